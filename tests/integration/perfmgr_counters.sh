#!/bin/bash
# The performance manager's counters against perfquery on the same ports,
# under ibsim (a 3-level fat tree, perfmgr every second).
#   - Every error counter of a switch port and a host port, set with
#     ibsim's PerformanceSet, is what `ibsmctl counters` shows, equal to
#     perfquery; the data and packet counters (64-bit, from
#     PortCountersExtended) lie between perfquery -x read before and after.
#   - A 16-bit counter past half its range is cleared before it saturates
#     (perfquery reads it low again) and the total goes on: 64-bit totals
#     across clears, also one made by someone else (perfquery -R).
#   - A restart adds only what grew while ibsmd was down (no old total
#     counted twice), and port_counters.dump holds the same totals.
#   - A quiet round reads every switch's error counters as one
#     AllPortSelect sum and costs fewer than two MADs per port; a switch
#     port's PortXmitWait (which no sum judges) is still read.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bringup_common.bash"
. "$TOP/tests/integration/health_common.bash"
hd_fabric
hd_start -o dumps=subnet,counters
wait_count heavy_sweeps 1
wait_count perfmgr_rounds 1
SW=S1 SWP=3 SWLID=$(lid_of S1) SWG=$(guid_of S1)
HLID=$(awk '$1 == "CA" && $0 ~ /\( .H3. - / { print $2; exit }' "$T/topo.p")
HG=$(awk '$1 == "CA" && $0 ~ /\( .H3. - / { print $4; exit }' "$T/topo.p")
[ -n "$SWLID" ] && [ -n "$HLID" ] || fail "LIDs of S1 and H3 from ibnetdiscover"
# Node GUID of H3 (ibsmctl counters names nodes): its port GUID is one more
# under ibsim, so take it from the counters listing by description.
HNG=$(ctl counters | awk '/node_desc="H3"/ { sub(/node_guid=/, "", $2); print $2; exit }')
[ -n "$HNG" ] || fail "H3 is not among the ports read"

# ibsim's PerformanceSet field names, perfquery's labels, ibsmd's names,
# values below their thresholds (no health noise) and half range.
COUNTERS="SymbolErrorCounter SymbolErrorCounter symbol_errors 11
LinkErrorRecoveryCounter LinkErrorRecoveryCounter link_error_recovery 2
LinkDownedCounter LinkDownedCounter link_downed 3
PortRcvErrors PortRcvErrors rcv_errors 14
PortRcvRemotePhysicalErrors PortRcvRemotePhysicalErrors rcv_remote_physical_errors 15
PortRcvSwitchRelayErrors PortRcvSwitchRelayErrors rcv_switch_relay_errors 16
PortXmitDiscards PortXmitDiscards xmit_discards 17
PortXmitConstraintErrors PortXmitConstraintErrors xmit_constraint_errors 18
PortRcvConstraintErrors PortRcvConstraintErrors rcv_constraint_errors 19
LocalLinkIntegrityErrors LocalLinkIntegrityErrors local_link_integrity_errors 5
ExcessiveBufferOverrunErrors ExcessiveBufferOverrunErrors excessive_buffer_overrun_errors 6
VL15Dropped VL15Dropped vl15_dropped 21"
while read -r set pq name v; do
	ibsim_cmd "PerformanceSet \"$SW\"[$SWP] PortCounters.$set=$v"
	ibsim_cmd "PerformanceSet \"H3\"[1] PortCounters.$set=$((v + 1))"
done <<<"$COUNTERS"
rounds 2
# ours GUID PORT NAME: ibsmd's total.
ours() { ctl counters "$1" "$2" | tr ' ' '\n' | sed -n "s/^$3=//p"; }
pq() { sim perfquery $3 "$1" "$2" 2>/dev/null | sed -n "s/^$4:\.*//p"; }
n=0
for port in "$SWLID $SWP $SWG" "$HLID 1 $HNG"; do
	set -- $port
	while read -r set label name v; do
		a=$(pq "$1" "$2" "" "$label") b=$(ours "$3" "$2" "$name")
		[ -n "$a" ] && [ "$a" = "$b" ] || fail "LID $1 port $2 $name: perfquery $a, ibsmd ${b:-none}"
		n=$((n + 1))
	done <<<"$COUNTERS"
	for c in "PortXmitData xmit_data" "PortRcvData rcv_data" "PortXmitPkts xmit_pkts" "PortRcvPkts rcv_pkts"; do
		set -- $port $c
		before=$(pq "$1" "$2" -x "$4")
		rounds 2 # the second reads the port after "before" was read
		mine=$(ours "$3" "$2" "$5")
		after=$(pq "$1" "$2" -x "$4")
		[ -n "$mine" ] && [ "$before" -le "$mine" ] && [ "$mine" -le "$after" ] ||
			fail "LID $1 port $2 $5: ibsmd ${mine:-none} not between perfquery's $before and $after"
		[ "$before" -gt 0 ] || fail "$5 is 0 on LID $1 port $2: the check could not fail"
		n=$((n + 1))
	done
done
echo "$n counters of a switch port and a host port agree with perfquery"

# Clear before saturation, then totals across clears.
c0=$(field perfmgr_clears)
ibsim_cmd "PerformanceSet \"$SW\"[$SWP] PortCounters.SymbolErrorCounter=40000"
rounds 2
[ "$(field perfmgr_clears)" -gt "$c0" ] || fail "no clear counted"
raw=$(pq "$SWLID" "$SWP" "" SymbolErrorCounter)
[ "$raw" -lt 32768 ] || fail "SymbolErrorCounter still $raw: not cleared before it saturates"
[ "$(ours "$SWG" "$SWP" symbol_errors)" = 40000 ] || fail "total after the clear: $(ours "$SWG" "$SWP" symbol_errors), want 40000"
ibsim_cmd "PerformanceSet \"$SW\"[$SWP] PortCounters.SymbolErrorCounter=$((raw + 100))"
rounds 2
[ "$(ours "$SWG" "$SWP" symbol_errors)" = 40100 ] || fail "total: $(ours "$SWG" "$SWP" symbol_errors), want 40100"
sim perfquery -R "$SWLID" "$SWP" >/dev/null 2>&1 || fail "perfquery -R"
ibsim_cmd "PerformanceSet \"$SW\"[$SWP] PortCounters.SymbolErrorCounter=7"
rounds 2
[ "$(ours "$SWG" "$SWP" symbol_errors)" = 40107 ] || fail "total after perfquery -R: $(ours "$SWG" "$SWP" symbol_errors), want 40107"
echo "SymbolErrorCounter cleared at 40000, total 40107 across two clears"

# A restart: 13 more errors while ibsmd is down count once.
hd_stop
ibsim_cmd "PerformanceSet \"$SW\"[$SWP] PortCounters.SymbolErrorCounter=20"
hd_start -o dumps=subnet,counters
wait_count heavy_sweeps 1
wait_count perfmgr_rounds 2
[ "$(ours "$SWG" "$SWP" symbol_errors)" = 40120 ] || fail "total after the restart: $(ours "$SWG" "$SWP" symbol_errors), want 40120"
[ "$(ours "$HNG" 1 vl15_dropped)" = 22 ] || fail "H3's vl15_dropped after the restart: $(ours "$HNG" 1 vl15_dropped)"
field_no=$(awk '/^# node_guid/ { for (i = 1; i <= NF; i++) if ($i == "symbol_errors") print i - 1 }' "$T/state/port_counters.dump")
d=$(awk -v g="$SWG" -v p="$SWP" -v c="$field_no" '$1 == g && $2 == p { print $c }' "$T/state/port_counters.dump")
[ "$d" = 40120 ] || fail "port_counters.dump has ${d:-nothing} for S1 port 3"
echo "after the restart: total 40120, in the dump too"

# AllPortSelect: ibsim's switches offer it, so a quiet round reads each
# switch's error counters as one sum and its ports' PortCounters only
# when the sum moved (or every 4th round of the switch): fewer MADs than
# two per port, every switch summed.  The counters stay right: an error
# on a switch port moves the sum (checked above, after the first round),
# and PortXmitWait, which no sum judges, is read within 4 rounds.
nsw=$(awk '$1 == "SW" { print $4 }' "$T/topo.p" | sort -u | wc -l)
rounds 2
ports=$(field perfmgr_ports) mads=$(field perfmgr_last_mads)
sums=$(field perfmgr_last_sums) moved=$(field perfmgr_last_sums_moved)
echo "a quiet round: $ports ports, $mads MADs, $sums switch sums ($moved read port by port)"
[ "$sums" = "$nsw" ] || fail "$sums switches read as a sum, ibnetdiscover has $nsw"
[ "$moved" -lt "$sums" ] || fail "every switch read port by port in a quiet round"
[ "$mads" -lt $((2 * ports)) ] || fail "a quiet round sent $mads MADs for $ports ports"
[ "$mads" -ge $((ports + sums)) ] || fail "a round sent $mads MADs for $ports ports and $sums sums: a port not read"
ibsim_cmd "PerformanceSet \"$SW\"[$SWP] PortCounters.PortXmitWait=1234"
rounds 5
w=$(ours "$SWG" "$SWP" xmit_wait)
[ "$w" = 1234 ] && [ "$(pq "$SWLID" "$SWP" "" PortXmitWait)" = 1234 ] ||
	fail "PortXmitWait of S1 port 3 after 5 rounds: ibsmd ${w:-none}, perfquery $(pq "$SWLID" "$SWP" "" PortXmitWait)"
[ "$(field perfmgr_errors)" = 0 ] || fail "$(field perfmgr_errors) reads failed"
echo "PASS: counters equal perfquery's, cleared before saturation, 64-bit totals across clears and a restart; switches read as AllPortSelect sums"
