#!/bin/bash
# The expected cabling (topology.expected, topology.enforce) under ibsim.
# The plan is tests/data/default.net; the fabric ibsim runs has two leaf
# uplinks swapped at a spine (S1[5] and S2[5] on each other's S9 port)
# and one uplink pulled (S3[6]).  Without enforce ibsmd reports exactly
# the differences an independent comparison of the plan with
# `ibnetdiscover`'s view finds (topology_check.py diff): two miswired
# links and one missing, by name, in `ibsmctl topology diff`, the log and
# /metrics, and brings every link up.  With enforce, on a fresh ibsim, the
# two miswired links stay in Initialize at both ends (smpquery portinfo)
# while every other link is Active, and the LFTs read back route every
# host pair over Active links only, on shortest paths.  A plan the daemon
# cannot read stops it at start (exit 1, the file's line named).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bringup_common.bash"
. "$TOP/tests/integration/metrics_common.bash"
need ibsim ibnetdiscover smpquery ibroute python3
chk=$TOP/tests/integration/topology_check.py
plan=$TOP/tests/data/default.net
python3 "$chk" mutate "$plan" "$BASE_T/fabric.net" swap:S1:5:S2:5 cut:S3:6 ||
	fail "cannot make the miswired fabric"

# portstate GUID_OR_LID PORT: the LinkState smpquery reads.
portstate() {
	sim smpquery portinfo "$1" "$2" 2>/dev/null |
		sed -n 's/^LinkState:\.*\([A-Za-z]*\).*/\1/p'
}
# lid_of NAME: a switch's LID as ibnetdiscover shows it.
lid_of() {
	sed -n "s/^Switch.*# \"$1\" .* lid \([0-9]*\) .*/\1/p" "$T/netdisc" | head -1
}

# --- report only ---
start_sim "$BASE_T/fabric.net"
SOCK=$T/ibsmd.sock
MPORT=$(free_port)
start_daemon -o topology.expected="$plan" -o metrics.listen=127.0.0.1:$MPORT \
	-o sm.sweep_interval_ms=0
wait_heavy 0
sim ibnetdiscover >"$T/netdisc" 2>"$T/netdisc.err" || fail "ibnetdiscover: $(cat "$T/netdisc.err")"
"$IBSMCTL" -s "$SOCK" topology diff >"$T/diff" || fail "ibsmctl topology diff failed"
cat "$T/diff"
python3 "$chk" diff "$plan" "$T/netdisc" "$T/diff" || fail "ibsmctl topology diff disagrees with ibnetdiscover"
grep -qx 'miswired_links 2' "$T/diff" && grep -qx 'missing_links 1' "$T/diff" &&
	grep -qx 'extra_links 0' "$T/diff" || fail "counts in ibsmctl topology diff"
grep -q 'miswired "S1"\[5\](0x[0-9a-f]*) -- "S9"\[2\](0x[0-9a-f]*): expected "S1"\[5\] -- "S9"\[1\], "S9"\[2\] -- "S2"\[5\]' "$T/diff" ||
	fail "the S1[5] miswiring is not named with its planned peers"
grep -q 'topology: missing "S3"\[6\]' "$T/ibsmd.log" || fail "the missing link is not logged by name"
grep -q 'topology: 1 missing, 0 extra, 2 miswired' "$T/ibsmd.log" || fail "no summary in the log"
scrape >"$T/page"
[ "$(sample "$T/page" 'ibsmd_topology_differences{kind="miswired"}')" = 2 ] &&
	[ "$(sample "$T/page" 'ibsmd_topology_differences{kind="missing"}')" = 1 ] ||
	fail "metrics: $(grep topology "$T/page")"
s1=$(lid_of S1)
[ "$(portstate "$s1" 5)" = Active ] || fail "without enforce, S1[5] is $(portstate "$s1" 5), not Active"
kill -TERM $DPID; wait $DPID

# --- enforce, on a fresh ibsim (every port back in Initialize) ---
start_sim "$BASE_T/fabric.net"
SOCK=$T/ibsmd.sock
start_daemon -o topology.expected="$plan" -o topology.enforce=true -o sm.sweep_interval_ms=0
wait_heavy 0
"$IBSMCTL" -s "$SOCK" topology diff >"$T/diff" || fail "ibsmctl topology diff failed"
grep -qx 'links_left_out 2' "$T/diff" || fail "enforce: $(head -9 "$T/diff")"
read_back "$T/rb"
cp "$T/rb/netdisc" "$T/netdisc.p"
sim ibnetdiscover >"$T/netdisc" 2>/dev/null
s1=$(lid_of S1); s2=$(lid_of S2); s9=$(lid_of S9)
for lp in "$s1 5" "$s2 5" "$s9 1" "$s9 2"; do
	st=$(portstate $lp)
	[ "$st" = Initialize ] || fail "enforce: port $lp (LID, port) is '$st', not Initialize"
done
# every other linked port is Active: list them for the walk
awk '/^(SW|CA)/ && $7 == "-" { print $2, $3, $4; print $9, $10, $11 }' "$T/rb/netdisc" | sort -u >"$T/ports"
while read -r l p g; do
	st=$(portstate "$l" "$p")
	[ "$st" = Active ] && echo "$g $p"
done <"$T/ports" >"$T/active"
[ "$(wc -l <"$T/active")" -eq $(( $(wc -l <"$T/ports") - 4 )) ] ||
	fail "enforce: $(wc -l <"$T/active") of $(wc -l <"$T/ports") linked ports Active, want all but 4"
python3 "$TOP/tests/integration/topology_check.py" walk "$T/rb/netdisc" "$T/rb/lft" "$T/active" ||
	fail "the LFTs route over a link left down"
"$IBSMCTL" -s "$SOCK" sweep >/dev/null && wait_heavy 1
[ "$(portstate "$s1" 5)" = Initialize ] || fail "a second heavy sweep activated S1[5]"
grep 'error:' "$T/ibsmd.log" && fail "enforcing logged errors"
kill -TERM $DPID; wait $DPID

# --- a plan that cannot be read stops the start ---
printf 'Switch 8 "S1"\n[1] "H1"[x]\n' >"$T/bad.net"
start_daemon -o topology.expected="$T/bad.net"
wait $DPID; rc=$?
[ $rc -eq 1 ] || fail "a bad plan: exit $rc, not 1"
grep -q "topology.expected: $T/bad.net:2" "$T/ibsmd.log" || fail "the bad plan's line is not named: $(tail -3 "$T/ibsmd.log")"
echo "expected cabling: 2 miswired, 1 missing reported; enforced links stay in Initialize"
