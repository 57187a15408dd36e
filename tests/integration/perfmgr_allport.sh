#!/bin/bash
# AllPortSelect seen on the wire: the performance manager's Gets captured
# as ibsmd hands them to libibumad (tests/tap/libmadtap.so, with each
# MAD's destination LID), on a 3-level fat tree under ibsim (20 switches,
# 16 hosts), perfmgr every second.  As a user checking "only the switch
# whose counters moved is read port by port" would:
#   - a quiet round sums every switch (PortCounters, PortSelect 0xFF) and
#     reads the PortCounters of only some switches' ports: those whose
#     periodic full reading is due, every switch once in four rounds;
#   - an error counter set with PerformanceSet on one port of switch S
#     (chosen so that its periodic reading is not due in the next rounds):
#     the first round after it reads every linked port of S with
#     PortCounters, and no other switch more than four rounds before;
#   - that round still reads every linked port's PortCountersExtended and
#     every host port's PortCounters, and the ports it did not read one
#     by one are all still reported: `ibsmctl counters` lists every linked
#     port, and a counter set earlier on a port of another switch is
#     still its value, equal to perfquery's; S's is perfquery's too.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bringup_common.bash"
. "$TOP/tests/integration/health_common.bash"
MADTAP=$O/tests/tap/libmadtap.so
[ -f "$MADTAP" ] || fail "$MADTAP not built"
CAP=$T/pm.cap
TAP="python3 $TOP/tests/integration/perfmgr_tap.py"
hd_fabric
MADTAP_FILE=$CAP MADTAP_LID=1 LD_PRELOAD=$MADTAP hd_start
wait_count heavy_sweeps 1
wait_count perfmgr_rounds 1
sim ibnetdiscover -p >"$T/topo.p" 2>/dev/null || fail "ibnetdiscover -p"
# The linked ports as ibnetdiscover reads them: "LID PORT NAME TYPE", a
# switch's ports under its LID (the one PerfMgt MADs go to), a host's
# under its port's.
python3 - "$T/topo.p" >"$T/linked" <<'PY' || fail "no links in ibnetdiscover -p"
import re, sys
ends = set()
for l in open(sys.argv[1]):
    m = re.match(r"(SW|CA)\s+(\d+)\s+(\d+)\s+0x[0-9a-f]+.*-\s+(SW|CA)\s+(\d+)\s+(\d+)\s+0x[0-9a-f]+.*\(\s*'([^']*)'\s*-\s*'([^']*)'", l)
    if m:
        ends.add((int(m.group(2)), int(m.group(3)), m.group(7), m.group(1)))
        ends.add((int(m.group(5)), int(m.group(6)), m.group(8), m.group(4)))
if not ends:
    sys.exit(1)
for e in sorted(ends):
    print(*e)
PY
nsw=$(awk '$4 == "SW" { print $1 }' "$T/linked" | sort -u | wc -l)
nlinked=$(wc -l <"$T/linked")
[ "$nsw" = 20 ] || fail "ibnetdiscover reads $nsw switches, the fat tree has 20"

# Another switch's port gets errors first; seven quiet rounds follow.
set -- $(awk '$3 == "S2" { print $2; exit }' "$T/linked"); TP=$1
ibsim_cmd "PerformanceSet \"S2\"[$TP] PortCounters.PortRcvErrors=4"
rounds 7

# pbp: the switches whose ports a round read with PortCounters (the
# host ports' readings left out).
export PYTHONPATH=$TOP/tests/integration
# S: a switch whose periodic reading is due in none of the next three
# rounds (the rounds go in a cycle of four; the last one captured may be
# under way).
python3 - "$CAP" "$T/linked" >"$T/pick" <<'PY' || fail "cannot pick the switch: $(cat "$T/pick")"
import sys
from perfmgr_tap import rounds
cap, linked = sys.argv[1:]
sw = {}
for l in open(linked):
    lid, port, name, kind = l.split()
    if kind == "SW":
        sw.setdefault(int(lid), name)
rs = list(rounds(cap))
if len(rs) < 6:
    sys.exit("only %d rounds with sums captured" % len(rs))
pbp = [set(l for l, _ in r["port_counters"] if l in sw) for r in rs]
cand = sorted(pbp[-5] - pbp[-4] - pbp[-3] - pbp[-2] - {l for l, n in sw.items() if n == "S2"})
if not cand:
    sys.exit("no switch read port by port only in round -5: %s" % [sorted(p) for p in pbp[-5:]])
s = cand[0]
print(s, sw[s], min(int(l.split()[1]) for l in open(linked) if int(l.split()[0]) == s and l.split()[3] == "SW"))
PY
read -r SLID SNAME SP <"$T/pick"
# ibsim applies a console command between MADs: a round that starts
# while it is on its way may not see it, the one after does.
mark1=$(wc -l <"$CAP")
ibsim_cmd "PerformanceSet \"$SNAME\"[$SP] PortCounters.SymbolErrorCounter=9"
mark2=$(wc -l <"$CAP")
rounds 3
echo "$SNAME (LID $SLID) port $SP got SymbolErrorCounter 9 between capture lines $mark1 and $mark2"

python3 - "$CAP" "$T/linked" "$mark1" "$mark2" "$SLID" <<'PY' || fail "the rounds on the wire are not what AllPortSelect promises"
import sys
from perfmgr_tap import rounds
cap, linked = sys.argv[1:3]
mark1, mark2, slid = (int(a) for a in sys.argv[3:6])
ports = [tuple(l.split()) for l in open(linked)]
sw = {int(p[0]) for p in ports if p[3] == "SW"}
swports = {(int(p[0]), int(p[1])) for p in ports if p[3] == "SW"}
hostports = {(int(p[0]), int(p[1])) for p in ports if p[3] == "CA"}
rs = list(rounds(cap))
pbp = lambda r: {l for l, _ in r["port_counters"] if l in sw}
after = [i for i, r in enumerate(rs) if r["start"] > mark1]
if not after or after[0] < 5:
    sys.exit("no round after the set, or fewer than 5 before it (%d rounds)" % len(rs))
R = after[0]
if rs[R]["start"] <= mark2 and slid not in pbp(rs[R]):
    R += 1  # it started while the command was on its way
if R + 1 >= len(rs):
    sys.exit("the round after the set is the last captured: it may be under way")
quiet = rs[R - 5:R - 1]  # four whole rounds before the set
for q in quiet + [rs[R]]:
    if set(q["sums"]) != sw:
        sys.exit("round at line %d summed %d switches of %d" % (q["start"], len(set(q["sums"])), len(sw)))
for q in quiet:
    if pbp(q) == sw:
        sys.exit("a quiet round (line %d) read every switch port by port" % q["start"])
cycle = set().union(*(pbp(q) for q in quiet))
if cycle != sw:
    sys.exit("in four quiet rounds %s were never read port by port" % sorted(sw - cycle))
r, before = rs[R], rs[R - 4]
if slid in pbp(before):
    sys.exit("S's periodic reading fell on the round after the set: the test cannot tell")
if slid not in pbp(r):
    sys.exit("the round after the set did not read S (LID %d) port by port" % slid)
got = {(l, p) for l, p in r["port_counters"] if l == slid}
want = {(l, p) for l, p in swports if l == slid}
if got != want:
    sys.exit("S's ports read: %s, linked: %s" % (sorted(got), sorted(want)))
if pbp(r) - {slid} != pbp(before):
    sys.exit("the round after the set read port by port %s; four rounds before: %s" % (
        sorted(pbp(r)), sorted(pbp(before))))
ext = {tuple(x) for x in r["extended"]}
if ext != swports | hostports:
    sys.exit("PortCountersExtended of %d ports, %d linked; missing %s" % (
        len(ext), len(swports | hostports), sorted((swports | hostports) - ext)[:5]))
hpc = {tuple(x) for x in r["port_counters"] if x[0] not in sw}
if hpc != hostports:
    sys.exit("PortCounters of %d host ports, %d linked" % (len(hpc), len(hostports)))
print("round at line %d: %d sums, port by port %d switches (S and the %d due), "
      "%d extended reads; quiet rounds read %s switches port by port" % (
          r["start"], len(r["sums"]), len(pbp(r)), len(pbp(before)), len(ext),
          [len(pbp(q)) for q in quiet]))
PY

# Every linked port still reported, the values perfquery's.
n=$(ctl counters | grep -c '^port ')
[ "$n" = "$nlinked" ] || fail "ibsmctl counters lists $n ports, ibnetdiscover $nlinked linked"
ours() { ctl counters "$1" "$2" | tr ' ' '\n' | sed -n "s/^$3=//p"; }
pq() { sim perfquery "$1" "$2" 2>/dev/null | sed -n "s/^$3:\.*//p"; }
S2LID=$(lid_of S2)
a=$(ours "$(guid_of S2)" "$TP" rcv_errors) b=$(pq "$S2LID" "$TP" PortRcvErrors)
[ "$a" = 4 ] && [ "$b" = 4 ] || fail "S2 port $TP rcv_errors: ibsmd ${a:-none}, perfquery ${b:-none}, set 4"
a=$(ours "$(guid_of "$SNAME")" "$SP" symbol_errors) b=$(pq "$SLID" "$SP" SymbolErrorCounter)
[ "$a" = 9 ] && [ "$b" = 9 ] || fail "$SNAME port $SP symbol_errors: ibsmd ${a:-none}, perfquery ${b:-none}, set 9"
[ "$(field perfmgr_errors)" = 0 ] || fail "$(field perfmgr_errors) reads failed"
echo "PASS: a moved sum read that switch's ports only; every port still read (extended) and reported, values as perfquery's"
