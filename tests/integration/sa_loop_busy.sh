#!/bin/bash
# The SA answers Gets of model records while the event loop is busy
# (docs/design.md §3.1): IBSMD_TEST_HOLD_AT holds the loop thread at a
# heavy sweep's CONFIGURE (its routing done, nothing programmed),
# for as long as the test wants, as a routing computation at scale or a
# state-file write would.  Meanwhile 8 clients' PathRecords to every
# host, a NodeRecord table and a PortInfoRecord Get must all be answered,
# from the model adopted before; the hold must still be on when they are
# (its marker file goes when the loop is released).  No timing: the loop
# stays held until the test releases it.  Then the sweep finishes and the
# daemon serves as before.
. "${TOP:-.}/tests/integration/mcast_common.bash"
LOAD="$O/tests/sim/sa_load"
[ -x "$LOAD" ] || skip "tests/sim/sa_load not built"
need saquery
CLIENTS=8

export IBSMD_TEST_HOLD_AT=sweep:CONFIGURE IBSMD_TEST_HOLD_FILE="$T/hold"
mc_start "$TOP/tests/data/ft3-small.net"
LIDS=$(host_lids)
[ -n "$LIDS" ] || fail "no host LIDs found"
h=$(ctl status | field heavy_sweeps)

touch "$T/hold"
ctl sweep >/dev/null || fail "ibsmctl sweep refused"
for _ in $(seq 300); do
	[ -e "$T/hold.held" ] && break
	kill -0 "$IBSMD_PID" || fail "ibsmd died"
	sleep 0.1
done
[ -e "$T/hold.held" ] || fail "the loop never reached the hold point (see $T/ibsmd.log)"

pids=()
for i in $(seq 2 $((CLIENTS + 1))); do
	sim_at "H$i" "$LOAD" -t path -n 400 -w 8 -T 1000 -l "$LIDS" \
		-r "$T/ans.$i" >"$T/load.$i" 2>&1 &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || true; done
cat "$T"/load.* | sed 's/^/  /'
bad=$(grep -L " 0 errors, 0 lost" "$T"/load.* | wc -l)
[ "$bad" = 0 ] || fail "$bad clients had PathRecords unanswered or refused while the loop was held"
nans=$(cat "$T"/ans.* | wc -l)
[ "$nans" = $((CLIENTS * 400)) ] || fail "$nans PathRecord answers recorded, want $((CLIENTS * 400))"
awk '$2 != "0x0000" { bad++ } END { exit bad > 0 }' "$T"/ans.* ||
	fail "PathRecords answered with an error status while the loop was held"
nodes=$(sim saquery -N 2>/dev/null | grep -c "NodeRecord dump")
[ "$nodes" -gt 0 ] || fail "no NodeRecords answered while the loop was held"
sim saquery PIR -l 1 >/dev/null 2>&1 ||
	fail "PortInfoRecord of LID 1 not answered while the loop was held"
[ -e "$T/hold.held" ] || fail "the loop was released before the queries ended: the test shows nothing"
echo "answered while the loop was held: $nans PathRecords, a NodeRecord table ($nodes records in its first MAD under ibsim), a PortInfoRecord"

rm -f "$T/hold"
for _ in $(seq 300); do
	[ "$(ctl status | field heavy_sweeps)" -gt "$h" ] &&
		[ "$(ctl status | field sweep_state)" = IDLE ] && break
	sleep 0.1
done
[ "$(ctl status | field heavy_sweeps)" -gt "$h" ] || fail "the held sweep did not finish after the release"
sim saquery -N >/dev/null 2>&1 || fail "no NodeRecords after the release"
# Each client asked its 400 paths over fewer destinations: the repeats
# came from the answer cache.
st=$(ctl status)
rg=$(echo "$st" | field sa_gets_on_receiver) ca=$(echo "$st" | field sa_answers_cached)
echo "status: sa_gets_on_receiver $rg, sa_answers_cached $ca"
[ "${rg:-0}" -ge $((CLIENTS * 400)) ] || fail "sa_gets_on_receiver ${rg:-none}, want >= $((CLIENTS * 400))"
[ "${ca:-0}" -gt 0 ] || fail "no answer came from the answer cache"
echo "PASS: the SA answered PathRecord, NodeRecord and PortInfoRecord Gets while the loop was held"
