#!/bin/bash
# A LinearFDBCap too small for the fabric: ft3-small (45 switches, 54
# hosts, 99 LIDs) under `ibsim -L 64`, whose switches hold LIDs 0..63.
#  --once: ends after its one sweep with exit 1 and one error line naming
#  LinearFDBCap, its value, a switch, the LIDs needed and the ports left
#  out; in a capture of what it hands to libibumad no LFT block past the
#  cap (block >= 1) and no LinearFDBTop past it; read back with the real
#  tools every switch and 18 hosts (the SM's port first) have a LID below
#  64, the other 36 hosts none and their links down, and every pair of
#  the routed hosts is delivered on a shortest path.
#  daemon: the same line once in its log (also after another heavy
#  sweep), in `ibsmctl status` (lid_limit), and the SM is MASTER.
#  OpenSM 3.3.23 on the same fabric, in another ibsim: what it sends past
#  the cap and how many hosts it leaves routable, beside ibsmd's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bringup_common.bash"
need ibsim ibnetdiscover iblinkinfo ibroute smpquery python3 opensm
MADTAP=$O/tests/tap/libmadtap.so
[ -f "$MADTAP" ] || fail "$MADTAP not built"
NET=$TOP/tests/data/ft3-small.net
CAP=64
SIMARGS="$(ibsim_opts "$NET") -L $CAP"
nsw=$(grep -c '^Switch' "$NET")

# LFT Sets in a capture: all of them, and past the cap (blocks >= CAP / 64).
lft_sets() {
	python3 "$TOP/tests/integration/madtap.py" "$1" |
		python3 -c 'import sys
b = int(sys.argv[1])
n = [int(f[2], 16) for f in (l.split() for l in sys.stdin)
     if f[0] == "set" and f[1] == "0x0019"]
print(len(n), sum(1 for m in n if m >= b))' $((CAP / 64))
}
# CMD on ibsim NAME with its MADs captured into FILE.
tap_at() {
	local name=$1 file=$2; shift 2
	IBSIM_SOCKNAME=${IBSIM_SOCKNAME}$name MADTAP_FILE=$file \
		LD_PRELOAD=$MADTAP sim "$@"
}
# Hosts, and switches, with a LID below the cap, from ibnetdiscover -p.
routed_hosts() {
	awk -v cap=$CAP '$1 == "CA" && $2 > 0 && $2 < cap { n++ } END { print n + 0 }' "$1"
}
routed_switches() {
	awk -v cap=$CAP '$1 == "SW" && $2 > 0 && $2 < cap { print $4 }' "$1" | sort -u | wc -l
}

echo "== ibsmd --once"
start_named_sim ibsmd
cap=$T/ibsmd.cap
tap_at ibsmd "$cap" "$IBSMD" --once \
	--state-dir "$T/st" -o log.level=info >"$T/once.log" 2>&1 && rc=0 || rc=$?
[ $rc = 1 ] || { tail -5 "$T/once.log"; fail "ibsmd --once exited $rc, want 1"; }
errs=$(grep -c 'ibsmd: error' "$T/once.log")
# (the structured heavy_sweep event line carries the sweep's error too:
# it is for log shippers, not a second message)
line=$(grep 'LinearFDBCap' "$T/once.log" | grep -v ' event {')
[ "$errs" = 1 ] && [ "$(echo "$line" | wc -l)" = 1 ] ||
	fail "want one error line, got $errs: $(grep -E 'ibsmd: error|LinearFDBCap' "$T/once.log")"
echo "$line"
echo "$line" | grep -q "LinearFDBCap $CAP of S[0-9]* (and $((nsw - 1)) other switches) is below the 99 LIDs this fabric needs: 36 ports get no LID and cannot be reached through any switch (H[0-9]*, H[0-9]*, H[0-9]*, H[0-9]* and 32 more)" ||
	fail "the error does not name the cap, the switches, the LIDs needed and the ports"
[ "$(grep -c 'sweep: IDLE -> DISCOVER' "$T/once.log")" = 1 ] ||
	fail "--once swept more than once: another sweep cannot help"
read -r sets n < <(lft_sets "$cap")
[ "$sets" -gt 0 ] || fail "no LFT block in the capture"
[ "$n" = 0 ] || fail "$n LFT blocks past LinearFDBCap $CAP were sent"
d=$T/ibsmd-rb
IBSIM_SOCKNAME=${IBSIM_SOCKNAME}ibsmd read_back "$d"
IBSIM_SOCKNAME=${IBSIM_SOCKNAME}ibsmd sim iblinkinfo >"$d/linkinfo" 2>/dev/null ||
	fail "iblinkinfo failed"
for lid in $(ls "$d/lft"); do
	top=$(IBSIM_SOCKNAME=${IBSIM_SOCKNAME}ibsmd sim smpquery switchinfo "$lid" |
		sed -n 's/^LinearFdbTop:\.*//p')
	[ "$top" -lt $CAP ] || fail "switch LID $lid: LinearFDBTop $top is past the cap"
done
walk=$(python3 "$TOP/tests/integration/bringup_walk.py" "$d/netdisc" "$d/lft" \
	"$d/linkinfo" --cap $CAP) || { echo "$walk"; fail "LFT walk over the routed hosts failed"; }
echo "$walk" | tail -2
echo "$walk" | grep -q '^unrouted 36$' || fail "want 36 hosts without a LID: $walk"
ours=$(routed_hosts "$d/netdisc")
[ "$ours" = 18 ] || fail "want 18 routed hosts, read back $ours"
oursw=$(routed_switches "$d/netdisc")
[ "$oursw" = "$nsw" ] || fail "want all $nsw switches routed, read back $oursw"
grep -q "^0x0*100001 0x0*1 0x0*1$" "$T/st/guid2lid" || fail "the SM's own port did not get the first LID"

echo "== ibsmd daemon"
start_named_sim daemon
sock=$T/ctl.sock
at daemon "$IBSMD" --state-dir "$T/std" -o control_socket="$sock" \
	-o sm.sweep_interval_ms=300 >"$T/daemon.log" 2>&1 &
DPID=$!
trap 'kill $DPID 2>/dev/null; wait $DPID 2>/dev/null; cleanup' EXIT
field() { "$IBSMCTL" -s "$sock" status 2>/dev/null | awk -v k="$1" '$1 == k { $1 = ""; print substr($0, 2) }'; }
for _ in $(seq 100); do [ "$(field heavy_sweeps)" = 1 ] && break; sleep 0.1; done
[ "$(field sm_state)" = MASTER ] || fail "the daemon is not MASTER: $(field sm_state)"
field lid_limit | grep -q "LinearFDBCap $CAP of S[0-9]* .* 36 ports get no LID" ||
	fail "ibsmctl status does not show the limit: $(field lid_limit)"
"$IBSMCTL" -s "$sock" sweep >/dev/null || fail "ibsmctl sweep"
for _ in $(seq 100); do [ "$(field heavy_sweeps)" = 2 ] && [ "$(field sweep_state)" = IDLE ] && break; sleep 0.1; done
[ "$(field heavy_sweeps)" = 2 ] || fail "no second heavy sweep"
said=$(grep 'LinearFDBCap' "$T/daemon.log" | grep -vc ' event {')
[ "$said" = 1 ] || fail "the daemon said it more than once: $said lines"
kill $DPID; wait $DPID 2>/dev/null

echo "== OpenSM on the same fabric"
start_named_sim osm
ocap=$T/osm.cap
mkdir -p "$T/osmcache"
orc=0
OSM_CACHE_DIR=$T/osmcache tap_at osm "$ocap" opensm --once -f "$T/osm.log" \
	>"$T/osm.out" 2>&1 || orc=$?
IBSIM_SOCKNAME=${IBSIM_SOCKNAME}osm sim ibnetdiscover -p >"$T/osm.netdisc" 2>/dev/null ||
	fail "ibnetdiscover after OpenSM failed"
theirs=$(routed_hosts "$T/osm.netdisc")
theirsw=$(routed_switches "$T/osm.netdisc")
read -r osets on < <(lft_sets "$ocap")
echo "LFT blocks sent: ibsmd $sets, none past LinearFDBCap $CAP; OpenSM $osets, $on past it"
echo "ports with a LID below the cap: ibsmd $oursw of $nsw switches and $ours of 54 hosts;" \
	"OpenSM $theirsw switches and $theirs hosts (exit $orc," \
	"$(grep -c 'RAN OUT OF LIDS' "$T/osm.log") 'RAN OUT OF LIDS' log lines)"
# The LIDs below the cap are as many for both: ibsmd uses every one, and
# gives switches (whose LIDs every SMP-speaking tool and the SA need)
# theirs first.
[ $((oursw + ours)) = $((CAP - 1)) ] || fail "ibsmd left LIDs below the cap unused"
[ $((oursw + ours)) -ge $((theirsw + theirs)) ] ||
	fail "OpenSM routes more ports ($((theirsw + theirs))) than ibsmd ($((oursw + ours)))"
echo "ok: LinearFDBCap respected, one error, the rest up and routed"
