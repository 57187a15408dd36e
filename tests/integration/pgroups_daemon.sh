#!/bin/bash
# Port groups programmed by ibsmd under ibsim.  ibsim implements no
# port-group attribute: it drops such an SMP (umad status 110 at once)
# unless a client holding the issm device is attached to the target node,
# which then gets the request.  tests/sim/pg_agent is such a client: a
# switch that keeps the three tables in memory and writes them out.  With
# agents on three leaves and one spine of the bundled fat tree:
# - the tables read back from the agents equal port-groups.dump, and pass
#   an independent check (pgroups_check.py: min-hop ports from its own
#   BFS, LFT port inside, every multi-path LID covered on agent switches);
# - each switch without an agent is logged once, never again;
# - a heavy resweep of the unchanged fabric sends no port-group block;
# - a link taken down is gone from every group within one sweep.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bringup_common.bash"
need ibsim python3

net=$TOP/tests/data/default.net
start_sim "$net"
st=$T/state
sock=$T/ibsmd.sock
CHECK=$TOP/tests/integration/pgroups_check.py
AGENTS="S1 S2 S3 S9"
declare -A GUID
for sw in $AGENTS; do
	sim_at "$sw" "$O/tests/sim/pg_agent" -c 8 -f 1024 -d "$T/agent-$sw.dump" \
		>"$T/agent-$sw.out" 2>&1 &
done
for sw in $AGENTS; do
	for _ in $(seq 100); do grep -q ready "$T/agent-$sw.out" && break; sleep 0.1; done
	GUID[$sw]=$(sed -n 's/.*guid=\(0x[0-9a-f]*\).*/\1/p' "$T/agent-$sw.out")
	[ -n "${GUID[$sw]}" ] || fail "agent on $sw did not attach: $(cat "$T/agent-$sw.out")"
done
LD_PRELOAD="$UMAD2SIM${LD_PRELOAD:+:$LD_PRELOAD}" "$IBSMD" --state-dir "$st" \
	-o control_socket="$sock" -o log.level=info -o sm.sweep_interval_ms=300 \
	>"$T/ibsmd.log" 2>&1 &
DPID=$!
trap 'kill $DPID 2>/dev/null; wait $DPID 2>/dev/null; cleanup' EXIT

status() { "$IBSMCTL" -s "$sock" status 2>/dev/null; }
field() { status | awk -v k="$1" '$1 == k { print $2 }'; }
wait_heavy() {
	local before=$1
	for _ in $(seq 150); do
		h=$(field heavy_sweeps)
		if [ "${h:-0}" -gt "$before" ] && [ "$(field sweep_state)" = IDLE ]; then
			return 0
		fi
		kill -0 $DPID 2>/dev/null || { tail "$T/ibsmd.log"; fail "ibsmd died"; }
		sleep 0.1
	done
	tail -20 "$T/ibsmd.log"
	fail "no heavy sweep after $before within 15 s"
}

# Agent tables against the daemon's dump, switch by switch.
compare_agents() {
	local sw g
	for sw in $AGENTS; do
		g=${GUID[$sw]}
		grep "^$g " "$st/port-groups.dump" | sort >"$T/want-$sw"
		grep -v " info " "$T/agent-$sw.dump" | sort >"$T/got-$sw"
		diff -u "$T/want-$sw" "$T/got-$sw" >"$T/diff-$sw" ||
			fail "agent $sw holds other tables than port-groups.dump: $(head -20 "$T/diff-$sw")"
	done
}
# The LFTs the checker reads, written now (a daemon writes lfts.dump only
# when the dumps key lists it, and then on a helper thread).
dump_now() { "$IBSMCTL" -s "$sock" dump "$st" >/dev/null || fail "ibsmctl dump $st"; }
agent_sets() { sed -n 's/.* sets \([0-9]*\)$/\1/p' "$T/agent-$1.dump"; }

wait_heavy 0
[ -s "$st/port-groups.dump" ] || fail "no port-groups.dump in the state directory"
compare_agents
guids=$(for sw in S1 S2 S3; do printf '%s,' "${GUID[$sw]}"; done)
dump_now
out=$(python3 "$CHECK" "$st" --minhop --cap 8 --full-coverage --switches "${guids%,}") ||
	fail "port-groups.dump: $out"
echo "$out"
for sw in S1 S2 S3; do
	n=$(grep -c "^${GUID[$sw]} pg " "$st/port-groups.dump")
	[ "$n" -ge 1 ] || fail "leaf $sw got no group"
	grep -q " info cap 8 fdb_cap 1024 top $n enable 1 " "$T/agent-$sw.dump" ||
		fail "PortGroupInfo of $sw not set (top $n, enable): $(grep info "$T/agent-$sw.dump")"
done
# switches without an agent: no lines in the dump, one summary line for
# the 8 of them (count and the first names), none per switch
without() { grep "port groups: [0-9]* switches answer PortGroupInfo with" "$T/ibsmd.log"; }
[ "$(without | wc -l)" = 1 ] || fail "want one summary line for the switches without port groups: $(without)"
without | grep -q "port groups: 8 switches answer PortGroupInfo" ||
	fail "want 8 switches without port groups in the summary: $(without)"
[ "$(field smps_unsupported)" = 8 ] ||
	fail "want 8 probes answered unsupported, got $(field smps_unsupported)"
lines=$(awk '{ print $1 }' "$st/port-groups.dump" | sort -u | wc -l)
[ "$lines" -le 4 ] || fail "port-groups.dump has $lines switches; only 4 have agents"

# A heavy resweep of the unchanged fabric sends nothing.
before=$(for sw in $AGENTS; do agent_sets "$sw"; done | tr '\n' ' ')
h=$(field heavy_sweeps)
"$IBSMCTL" -s "$sock" sweep >/dev/null || fail "ibsmctl sweep failed"
wait_heavy "$h"
after=$(for sw in $AGENTS; do agent_sets "$sw"; done | tr '\n' ' ')
[ "$before" = "$after" ] || fail "an unchanged resweep wrote to the agents (Sets $before -> $after)"
tail -n 30 "$T/ibsmd.log" | grep "port groups: .* programmed" | tail -1 |
	grep -q "0 switches programmed, 0 table and 0 forwarding blocks, 0 info Sets" ||
	fail "unchanged resweep: $(grep 'port groups: .* programmed' "$T/ibsmd.log" | tail -1)"
[ "$(without | wc -l)" = 1 ] && [ "$(field smps_unsupported)" = 8 ] ||
	fail "switches without port groups were asked (and logged) again"

# S1 port 5 goes to spine S9: after one heavy sweep no group holds it.
grep -q "^${GUID[S1]} pg .*ports \(5\|5,.*\|.*,5\|.*,5,.*\)$" "$st/port-groups.dump" ||
	fail "S1 port 5 was in no group before the link went down"
h=$(field heavy_sweeps)
ibsim_cmd 'Unlink "S1"[5]'
wait_heavy "$h"
compare_agents
grep "^${GUID[S1]} pg " "$T/agent-S1.dump" | grep -q "ports \(5\|5,.*\|.*,5\|.*,5,.*\)$" &&
	fail "S1 port 5 still in a group after the sweep: $(grep pg "$T/agent-S1.dump")"
dump_now
out=$(python3 "$CHECK" "$st" --minhop --cap 8 --full-coverage --switches "${guids%,}") ||
	fail "after link down: $out"
echo "after link down: $out"
grep "port groups: .* programmed" "$T/ibsmd.log" | tail -1

kill -TERM $DPID
wait $DPID
echo "ok: port groups programmed, verified on the agents, unchanged resweep sent nothing, link down fixed in one sweep"
