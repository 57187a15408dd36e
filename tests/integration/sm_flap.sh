#!/bin/bash
# Flapping: two ibsmd (A priority 10 on H1, B priority 1 on H2, both with
# sm.elevated_priority 15, the sticky option) on default.net.  Ten times in
# a row whichever is master is killed; the other takes over; the killed one
# is restarted and, although A outranks B, stands by: the master never
# moves back (no handover).  Afterwards exactly one SM is master (sminfo at
# both SM ports, ibsmctl status), the other polls it, and no port's LID
# has changed (ibnetdiscover).
. "${TOP:-.}/tests/integration/lib.sh"
. "$TOP/tests/integration/bringup_common.bash"
. "$TOP/tests/integration/sm_common.bash"
NET=$TOP/tests/data/default.net
ROUNDS=${SM_FLAPS:-10}
start_sim "$NET"
OPTS="-o sm.elevated_priority=15"
host_a=H1 prio_a=10 host_b=H2 prio_b=1

start() { local v=host_$1 p=prio_$1; ibsmd_start "$1" "${!v}" -o sm.priority="${!p}" $OPTS; }
start a
wait_for 60 st_ge a heavy_sweeps 1 || { tail "$T/ibsmd-a.out"; fail "A did not bring the subnet up"; }
start b
wait_for 30 st_is b sm_role STANDBY || fail "B is $(st b sm_role)"
snap_lids "$T/lids0"
A_LID=$(st a sm_lid) B_LID=$(st b sm_lid)

master() { local n; for n in a b; do [ "$(st $n sm_role)" = MASTER ] && echo $n; done; }
one_master_swept() {
	local m; m=$(master)
	[ "$(echo $m | wc -w)" = 1 ] && [ "$(st "$m" heavy_sweeps)" -ge 1 ] &&
		[ "$(st "$m" sweep_state)" = IDLE ]
}
for i in $(seq "$ROUNDS"); do
	m=$(master)
	[ "$(echo $m | wc -w)" = 1 ] || fail "round $i: masters: '$m'"
	o=$([ "$m" = a ] && echo b || echo a)
	ibsmd_stop "$m"
	wait_for 60 st_is "$o" sm_role MASTER || fail "round $i: $o did not take over from $m"
	start "$m"
	wait_for 30 st_is "$m" sm_role STANDBY || fail "round $i: restarted $m is $(st "$m" sm_role)"
	wait_for 60 one_master_swept || fail "round $i: no single master after restarting $m: a $(st a sm_role), b $(st b sm_role)"
	[ "$(master)" = "$o" ] || fail "round $i: the master moved back to $(master)"
	[ "$(st "$o" sm_handovers_sent)" = 0 ] || fail "round $i: $o handed the subnet over"
	echo "round $i: killed $m, $o took over, $m restarted and stands by"
done
# settled: the other SM stands by and polls the master
m=$(master); o=$([ "$m" = a ] && echo b || echo a)
wait_for 30 st_is "$o" sm_role STANDBY || fail "$o is $(st "$o" sm_role)"
n=0
for lid in "$A_LID" "$B_LID"; do
	sminfo_of "$lid" | grep -q "state 3 SMINFO_MASTER" && n=$((n + 1))
done
[ $n -eq 1 ] || fail "$n SMs answer SMInfo MASTER: $(sminfo_of "$A_LID"); $(sminfo_of "$B_LID")"
snap_lids "$T/lids1"
diff "$T/lids0" "$T/lids1" >"$T/d" || { head "$T/d"; fail "LIDs changed while the master flapped"; }
ibsmd_stop a
ibsmd_stop b
echo "$ROUNDS master restarts: one master ($m), LIDs unchanged"
