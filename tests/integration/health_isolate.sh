#!/bin/bash
# health.policy isolate on a 3-level fat tree under ibsim, perfmgr every
# second.  Link A (leaf S1's first uplink) gets SymbolErrorCounter 500
# with ibsim's PerformanceSet (threshold 100 per interval); link B (leaf
# S3's second uplink) flaps six times with Unlink/ReLink (limit 5).
# Then, as a user would check:
#   - `ibsmctl health` lists both with both ends (description, GUID,
#     port), what tripped, since when, and the action "isolated";
#   - A went out through an incremental sweep (no rediscovery), which sent
#     exactly the LFT blocks that changed (lfts.dump before and after);
#   - the LFTs and MFTs read back with ibroute route no host pair and no
#     group over A or B (all 16 hosts joined one group), every pair is
#     delivered on a shortest path of the fabric without them, while both
#     links stay ACTIVE (smpquery) and A's counters are still read;
#   - the "health" event lines parse as JSON;
#   - after a restart ibsmd still holds both out (health.state);
#   - `ibsmctl health clear` brings both back: listed no more, and the
#     tables read back route pairs over them again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bringup_common.bash"
. "$TOP/tests/integration/health_common.bash"
[ -x "$O/tests/sim/mcast_joins" ] || fail "tests/sim/mcast_joins not built"
hd_fabric
hd_start -o health.policy=isolate
wait_count heavy_sweeps 1
wait_count perfmgr_rounds 2
set -- $(peer_of S1 3); A_PEER=$1 A_PPORT=$2
set -- $(peer_of S3 4); B_PEER=$1 B_PPORT=$2
[ -n "$A_PEER" ] && [ -n "$B_PEER" ] || fail "leaf uplinks not found in $NET"
A=$(guid_of S1):3 B=$(guid_of S3):4
echo "A = S1[3] - $A_PEER[$A_PPORT] ($A), B = S3[4] - $B_PEER[$B_PPORT] ($B)"

# Every host joins one group (proxy joins from H1), so MFTs exist.
sim ibnetdiscover >"$T/topo0" 2>/dev/null
sed -n 's/.*"H-[0-9a-f]*"\[1\](\([0-9a-f]*\)).*# "\([^"]*\)".*/\2 \1/p' "$T/topo0" |
	awk '{ print "ff12:601b:ffff::1234", "0x" $2, 0 }' | sort -u >"$T/joins"
[ "$(wc -l <"$T/joins")" = 16 ] || fail "host port GUIDs from ibnetdiscover"
sim "$O/tests/sim/mcast_joins" --wait-ready "$T/joins" >"$T/joins.out" 2>/dev/null
grep -q "^ok 16$" "$T/joins.out" || { cat "$T/joins.out"; fail "joins refused"; }

lft_entries() {
	awk '/^Unicast lids/ { for (i = 1; i <= NF; i++) if ($i == "guid") g = $(i + 1) }
	     /^0x/ { print g, $1, $2 }' "$1" | sort
}
blocks() { # changed (switch, 64-LID block) units between two lft_entries
	python3 - "$1" "$2" <<'PY'
import sys
def load(p):
    return {(g, int(l, 16)): port for g, l, port in (x.split() for x in open(p))}
a, b = load(sys.argv[1]), load(sys.argv[2])
print(len({(k[0], k[1] // 64) for k in set(a) | set(b) if a.get(k) != b.get(k)}))
PY
}

# Before: both links carry routes and the group's tree crosses one of
# them, so the checks below could fail.
read_tables "$T/healthy"
walk "$T/healthy" "in:$A,$B" || fail "the healthy fabric is not delivered"
[ "$(walk_field "$T/healthy" held_uses)" -gt 0 ] && [ "$(walk_field "$T/healthy" mft_uses)" -gt 0 ] ||
	fail "A and B carry no route or no group before: the checks could not fail"

# Link A: errors over the threshold.
ctl dump "$T/before" >/dev/null || fail "ibsmctl dump"
lft_entries "$T/before/lfts.dump" >"$T/lft.before"
LFT0=$(field smps_lft_blocks) inc=$(field incremental_sweeps) heavy=$(field heavy_sweeps)
ibsim_cmd "PerformanceSet \"S1\"[3] PortCounters.SymbolErrorCounter=500"
wait_listed 1
wait_count incremental_sweeps $((inc + 1))
[ "$(field heavy_sweeps)" = $((heavy + 1)) ] || fail "A was isolated by more than one sweep"
grep -q "DISCOVER (health" "$T/ibsmd.log" && fail "A's isolation rediscovered the fabric"
ctl dump "$T/after" >/dev/null || fail "ibsmctl dump"
lft_entries "$T/after/lfts.dump" >"$T/lft.after"
sent=$(( $(field smps_lft_blocks) - LFT0 )) changed=$(blocks "$T/lft.before" "$T/lft.after")
echo "A isolated: $sent LFT blocks sent, $changed changed"
[ "$changed" -gt 0 ] || fail "isolating A changed no route: the check could not fail"
[ "$sent" -eq "$changed" ] || fail "sent $sent LFT blocks for $changed that changed"

# Link B: six flaps; each down is repaired, each up rediscovered.
for i in 1 2 3 4 5 6; do
	inc=$(field incremental_sweeps)
	ibsim_cmd "Unlink \"S3\"[4]"
	wait_count incremental_sweeps $((inc + 1))
	heavy=$(field heavy_sweeps)
	ibsim_cmd "ReLink \"S3\"[4]"
	wait_count heavy_sweeps $((heavy + 1))
done
wait_listed 2
ctl health | tee "$T/health" | sed 's/^/  /'
for l in "S1 3 $A_PEER $A_PPORT symbol_errors" "S3 4 $B_PEER $B_PPORT flaps"; do
	set -- $l
	g=$(guid_of "$1") pg=$(guid_of "$3")
	# both ends in either order, what tripped, since, action
	grep -E "^link .*(node_guid=$g port=$2 node_desc=\"$1\" remote_guid=$pg remote_port=$4 remote_desc=\"$3\"|node_guid=$pg port=$4 node_desc=\"$3\" remote_guid=$g remote_port=$2 remote_desc=\"$1\") tripped=$5 value=[0-9]+ since=20[0-9-]+T[0-9:]+Z .*action=isolated$" \
		"$T/health" >/dev/null || fail "ibsmctl health does not list $1[$2] - $3[$4] ($5, isolated)"
done
grep -q "tripped=flaps value=6 " "$T/health" || fail "B's six flaps are not the value shown"

sleep 1.5 # B came up held out: a sweep and a round later
read_tables "$T/held"
walk "$T/held" "$A,$B" || fail "with A and B held out, a pair is not delivered on a shortest path"
[ "$(walk_field "$T/held" held_uses)" = 0 ] || fail "the LFTs route pairs over a held link"
[ "$(walk_field "$T/held" mft_uses)" = 0 ] || fail "an MFT entry uses a held link"
for e in "S1 3" "$A_PEER $A_PPORT" "S3 4" "$B_PEER $B_PPORT"; do
	st=$(pstate $e)
	[ "$st" = Active ] || fail "held link end $e is $st, not Active"
done

# A's counters are still read while it is held.
ibsim_cmd "PerformanceSet \"S1\"[3] PortCounters.SymbolErrorCounter=700"
for _ in $(seq 50); do
	ctl counters "$(guid_of S1)" 3 | grep -q " held=1 .* symbol_errors=700 " && break
	sleep 0.1
done
ctl counters "$(guid_of S1)" 3 | grep -q " held=1 .* symbol_errors=700 " ||
	fail "A's counters are not read while it is held: $(ctl counters "$(guid_of S1)" 3)"

# The events a log shipper gets.
events health >"$T/ev"
[ "$(grep -c '"change": "unhealthy"' "$T/ev")" = 2 ] || { cat "$T/ev"; fail "not one health event per unhealthy link"; }
grep -q '"action": "isolated".*"tripped": "flaps"' "$T/ev" || fail "no flaps event"
events heavy_sweep >"$T/ev.sweep"
grep -q '"incremental": true' "$T/ev.sweep" || fail "no incremental heavy_sweep event"
events trap >"$T/ev.trap"
grep -q '"trap": 128' "$T/ev.trap" || fail "no trap 128 event"

# A restart keeps both out.
hd_stop
heavy=0
hd_start -o health.policy=isolate
wait_count heavy_sweeps 1
wait_listed 2
read_tables "$T/restart"
walk "$T/restart" "$A,$B" || fail "after the restart a pair is not delivered"
[ "$(walk_field "$T/restart" held_uses)" = 0 ] || fail "after the restart the LFTs use a held link"

# health clear: both back in routing.
heavy=$(field heavy_sweeps)
ctl health clear || fail "ibsmctl health clear"
wait_listed 0
wait_count heavy_sweeps $((heavy + 1))
read_tables "$T/clear"
walk "$T/clear" "in:$A,$B" >/dev/null || fail "after health clear a pair is not delivered on a shortest path"
grep "used by" "$T/clear/walk" | sed 's/^/  /'
grep -q "used by 0 pairs" "$T/clear/walk" && fail "after health clear a link carries no route"
events health >"$T/ev"
grep -q '"change": "cleared"' "$T/ev" || fail "no cleared event"
echo "PASS: an erring and a flapping link isolated incrementally, out of every LFT and MFT, still up and read; kept across a restart; back on clear"
