#!/bin/bash
# 100 SIGHUPs within about a second are one reload and one heavy sweep
# the daemon goes on answering, and in the sanitizer
# build it exits on SIGTERM without a leak or error report.
. "$(dirname "$0")/mcast_common.bash"
need python3
SAN_OPTS=$ASAN_OPTIONS
ldd "$O/ibsmd" | grep -q libasan && SAN_OPTS=${ASAN_OPTIONS/detect_leaks=0/detect_leaks=1}
printf 'sm:\n  sweep_interval_ms: 0\n' >"$T/ibsmd.yaml"
ASAN_OPTIONS=$SAN_OPTS mc_start "$TOP/tests/data/ft2-small.net" -c "$T/ibsmd.yaml"
heavy() { ctl status | awk '$1 == "heavy_sweeps" { print $2 }'; }
h0=$(heavy)
r0=$(grep -c "reload: configuration" "$T/ibsmd.log")
python3 -c '
import os, sys, time
for _ in range(100):
    os.kill(int(sys.argv[1]), 1)
    time.sleep(0.01)
' "$IBSMD_PID"
# the reload comes after the burst: wait for it and for its sweep
for _ in $(seq 100); do
	[ "$(grep -c "reload: configuration" "$T/ibsmd.log")" -gt "$r0" ] &&
		[ "$(heavy)" -gt "$h0" ] && break
	sleep 0.1
done
sleep 1
kill -0 "$IBSMD_PID" 2>/dev/null || fail "ibsmd died under SIGHUPs"
reloads=$(( $(grep -c "reload: configuration" "$T/ibsmd.log") - r0 ))
sweeps=$(( $(heavy) - h0 ))
grep "SIGHUP" "$T/ibsmd.log" | tail -2
echo "100 SIGHUPs: $reloads reloads, $sweeps heavy sweeps"
[ "$reloads" -eq 1 ] || fail "100 SIGHUPs in a second gave $reloads reloads, want 1"
[ "$sweeps" -eq 1 ] || fail "100 SIGHUPs in a second gave $sweeps heavy sweeps, want 1"
out=$(sim saquery -N 2>&1) || fail "saquery after the SIGHUPs: $out"
# A later SIGHUP still reloads.
kill -HUP "$IBSMD_PID"
for _ in $(seq 50); do
	[ "$(grep -c "reload: configuration" "$T/ibsmd.log")" -gt $((r0 + 1)) ] && break
	sleep 0.1
done
[ "$(grep -c "reload: configuration" "$T/ibsmd.log")" -eq $((r0 + 2)) ] ||
	fail "a SIGHUP after the burst did not reload"
kill "$IBSMD_PID"; wait "$IBSMD_PID"; rc=$?; IBSMD_PID=
grep -E "ERROR: (Address|Leak)Sanitizer|runtime error" "$T/ibsmd.log" &&
	fail "sanitizer report at exit"
[ "$rc" -eq 0 ] || fail "ibsmd exited $rc on SIGTERM"
echo "PASS: a burst of SIGHUPs is one reload"
