#!/bin/bash
# One port flooding the SA with multicast joins: with
# multicast.join_rate 10 and join_burst 20, host H2 sends 20,000 joins as
# fast as they are answered; past its budget they are answered BUSY
# (status 0x0001) without touching the groups, while joins from H3 during
# the flood all succeed, the SA answers saquery, and the refusals cost one
# log line per 10 s.  Latency under the flood is measured in
# tests/bench/join_flood.sh, not here.
. "$(dirname "$0")/mcast_common.bash"
[ -x "$O/tests/sim/mcast_joins" ] || skip "tests/sim/mcast_joins not built"
mc_start "$TOP/tests/data/ft2-small.net" -o multicast.join_rate=10 \
	-o multicast.join_burst=20
sim ibnetdiscover >"$T/topo" 2>/dev/null
h2=$(sed -n 's/.*"H-[0-9a-f]*"\[1\](\([0-9a-f]*\)).*# "H2".*/\1/p' "$T/topo" | head -1)
[ -n "$h2" ] || fail "no port GUID for H2"
for i in $(seq 20000); do echo "ff12:601b:ffff::f:$((i % 50)) 0x$h2 0"; done >"$T/flood"
sim_at H2 "$O/tests/sim/mcast_joins" "$T/flood" >"$T/flood.out" 2>&1 &
FPID=$!
sleep 1
for i in 1 2 3 4 5; do
	out=$(sa_at H3 join "ff12:601b:ffff::e:$i")
	grep -q "^status 0x0000" <<<"$out" || fail "H3's join $i during the flood: $out"
done
kill -0 $FPID 2>/dev/null || echo "note: the flood ended before H3's joins"
out=$(sim saquery -N 2>&1) || fail "saquery during the flood: $out"
wait $FPID
cat "$T/flood.out"
busy=$(field busy <"$T/flood.out")
ok=$(field ok <"$T/flood.out")
[ "${busy:-0}" -gt 0 ] || fail "no join of the flood was answered BUSY"
[ "${ok:-0}" -ge 20 ] || fail "the flooding port's first joins were refused too"
[ "$((ok + busy))" -eq 20000 ] || fail "joins neither accepted nor BUSY: $(cat "$T/flood.out")"
kill -0 "$IBSMD_PID" 2>/dev/null || fail "ibsmd died under the join flood"
n=$(grep -c "answered BUSY" "$T/ibsmd.log")
echo "BUSY answers: $busy, log lines: $n"
[ "$n" -le 5 ] || fail "$n log lines for the refused joins"
echo "PASS: a join flood is limited to its port"
