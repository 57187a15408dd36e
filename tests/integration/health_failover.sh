#!/bin/bash
# The unhealthy links survive a failover: master A (health.policy
# isolate, perfmgr every second) isolates a leaf uplink over its
# SymbolErrorCounter threshold; standby B copies A's health.state
# (ibsmctl status health_copy current, the copy equal to A's file); A is
# killed, B takes over, lists the same link with the same start, and the
# LFTs read back after its sweep still route no pair over it.
. "${TOP:-.}/tests/integration/lib.sh"
. "$TOP/tests/integration/bringup_common.bash"
. "$TOP/tests/integration/sm_common.bash"
. "$TOP/tests/integration/health_common.bash"
hd_fabric
P="-o health.policy=isolate -o perfmgr.enable=true -o perfmgr.interval_ms=1000 -o sm.sweep_interval_ms=1000"
ibsmd_start a H1 -o sm.priority=10 $P
wait_for 60 st_ge a heavy_sweeps 1 || { tail "$T/ibsmd-a.out"; fail "A did not bring the subnet up"; }
wait_for 30 st_ge a perfmgr_rounds 1 || fail "A read no counters"
ibsmd_start b H2 -o sm.priority=1 $P
wait_for 30 st_is b sm_role STANDBY || fail "B is $(st b sm_role), not STANDBY"
A=$(guid_of S1):3
ibsim_cmd "PerformanceSet \"S1\"[3] PortCounters.SymbolErrorCounter=800"
wait_for 30 st_is a health_unhealthy 1 || fail "A does not list the link"
"$IBSMCTL" -s "$T/a.sock" health | grep "^link" >"$T/a.health"
grep -q "action=isolated$" "$T/a.health" || { cat "$T/a.health"; fail "A did not isolate"; }
wait_for 30 st_is b health_copy current || fail "B holds no current copy of health.state: $(st b health_copy)"
cmp "$T/state-a/health.state" "$T/state-b/health.replica" || fail "B's copy differs from A's health.state"
ibsmd_stop a
wait_for 30 st_is b sm_role MASTER || { tail "$T/ibsmd-b.out"; fail "B did not take over"; }
wait_for 30 st_ge b heavy_sweeps 1 || fail "B did not complete a sweep"
wait_for 10 st_is b sweep_state IDLE
"$IBSMCTL" -s "$T/b.sock" health | grep "^link" >"$T/b.health"
# the same link, the same episode (B may have seen more errors since)
cut -d' ' -f1-10 "$T/a.health" | diff - <(cut -d' ' -f1-10 "$T/b.health") ||
	fail "B lists another link or episode than A"
grep -q "unhealthy links taken over" "$T/ibsmd-b.out" || fail "B did not log the takeover of the links"
read_tables "$T/b"
walk "$T/b" "$A" || fail "after the failover a pair is not delivered"
[ "$(walk_field "$T/b" held_uses)" = 0 ] || fail "after the failover the LFTs use the isolated link"
ibsmd_stop b
echo "PASS: the isolated link copied to the standby and still held out after it took over"
