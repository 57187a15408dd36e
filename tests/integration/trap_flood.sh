#!/bin/bash
# A port that floods the SM with traps: 3,000 traps 128
# and 1,000 each of 129 and 144 from one host, as fast as umad sends.
# Every trap is repressed (TrapRepress, IBA 13.4.9: ibsim's SMA logs each
# one it receives); the flood costs at
# most sm.trap_limit acted-on traps and one summary line per port and
# sm.trap_interval_ms, and its traps start at most one heavy sweep per
# interval (a light one: forged traps change nothing, so no rediscovery)
# -- with a 60 s interval, at most two during this test.  Other
# ports' traps are still acted on, and the SA answers afterwards.
. "$(dirname "$0")/mcast_common.bash"
[ -x "$O/tests/sim/trap_flood" ] || skip "tests/sim/trap_flood not built"
printf 'sm:\n  sweep_interval_ms: 0\n  trap_interval_ms: 60000\n' >"$T/ibsmd.yaml"
mc_start "$TOP/tests/data/ft2-small.net" -c "$T/ibsmd.yaml"
heavy() { ctl status | awk '$1 == "heavy_sweeps" { print $2 }'; }
sweeps() { ctl status | awk '$1 == "sweeps" { print $2 }'; }
h0=$(heavy); s0=$(sweeps)
t0=$(grep -c "trap" "$T/ibsmd.log")
for tr in 128:3000 129:1000 144:1000; do
	out=$(sim_at H2 "$O/tests/sim/trap_flood" "${tr#*:}" "${tr%:*}" 2>&1) ||
		fail "trap_flood $tr: $out"
	echo "trap ${tr%:*}: $out"
	[ "$out" = "sent ${tr#*:}" ] || fail "trap_flood $tr: $out"
	kill -0 "$IBSMD_PID" 2>/dev/null || fail "ibsmd died under the trap flood"
done
# every trap that reached the SM was repressed: ibsim's SMA logs each
# TrapRepress it gets (the simulator may lose some of a flood on the way)
got() { ctl status | awk '$1 == "traps" { print $2 }'; }
for _ in $(seq 100); do
	[ "$(grep -c "got trap repress" "$T/ibsim.log")" -ge "$(got)" ] && break
	sleep 0.1
done
r=$(grep -c "got trap repress" "$T/ibsim.log")
echo "traps received by ibsmd $(got), TrapRepress seen by ibsim $r"
[ "$r" -eq "$(got)" ] || fail "$r of $(got) traps repressed"
[ "$(got)" -ge 4000 ] || fail "only $(got) of 5000 traps reached ibsmd"
h1=$(heavy); s1=$(sweeps)
lines=$(( $(grep -c "trap" "$T/ibsmd.log") - t0 ))
grep "trap" "$T/ibsmd.log" | tail -4
echo "5000 traps: $((s1 - s0)) sweeps ($((h1 - h0)) heavy), $lines log lines about traps"
[ $((s1 - s0)) -le 2 ] || fail "the flood started $((s1 - s0)) sweeps (sm.trap_interval_ms 60000)"
[ "$lines" -le 40 ] || fail "the flood cost $lines log lines"
# Another port's trap is still acted on (its heavy sweep is held to the
# interval); a sweep through ibsmctl is not held.
flood_lid=$(sed -n 's/.*trap 128 (link state change) from LID \([0-9]*\),.*/\1/p' "$T/ibsmd.log" | head -1)
n128=$(grep -c "trap 128 (link state change)" "$T/ibsmd.log")
sim_at H3 "$O/tests/sim/trap_flood" 3 128 >/dev/null || fail "trap from H3"
for _ in $(seq 50); do
	[ "$(grep -c "trap 128 (link state change)" "$T/ibsmd.log")" -gt "$n128" ] && break
	sleep 0.1
done
grep "trap 128 (link state change)" "$T/ibsmd.log" | tail -1 | grep -qv "from LID $flood_lid," ||
	fail "another port's trap 128 was not acted on during the flood"
out=$(sim saquery -N 2>&1) || fail "saquery after the flood: $out"
h=$(heavy); ctl sweep >/dev/null
for _ in $(seq 100); do [ "$(heavy)" -gt "$h" ] && break; sleep 0.1; done
[ "$(heavy)" -gt "$h" ] || fail "ibsmctl sweep did not sweep after the flood"
# A flood longer than the interval: each summary line counts the ports
# that were over in its own interval (a port's interval and the summary's
# do not line up), so none says "from 0 ports", and the summaries add up
# to no more traps than were sent.
printf 'sm:\n  sweep_interval_ms: 0\n  trap_interval_ms: 500\n' >"$T/ibsmd.yaml"
kill -HUP "$IBSMD_PID"
for _ in $(seq 50); do grep -q "reload: configuration" "$T/ibsmd.log" && break; sleep 0.1; done
l0=$(wc -l <"$T/ibsmd.log")
out=$(sim_at H2 "$O/tests/sim/trap_flood" 2000 129 1000 2>&1) || fail "trap_flood: $out"
sleep 0.6
sim_at H3 "$O/tests/sim/trap_flood" 1 129 >/dev/null # one more summary
tail -n +"$((l0 + 1))" "$T/ibsmd.log" | grep "over sm.trap_limit" >"$T/summaries"
cat "$T/summaries"
[ "$(wc -l <"$T/summaries")" -ge 2 ] || fail "a 2 s flood at trap_interval_ms 500 gave fewer than 2 summaries"
! grep -q "from 0 ports" "$T/summaries" || fail "a summary counts no port"
n=$(awk '{ s += $3 } END { print s }' "$T/summaries")
[ "$n" -le 2000 ] || fail "the summaries count $n ignored traps of 2000 sent"
echo "PASS: trap flood throttled"
