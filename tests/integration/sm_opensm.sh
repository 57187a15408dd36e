#!/bin/bash
# ibsmd beside OpenSM 3.3.23 on one ibsim fabric (default.net):
#  1. OpenSM (priority 15) is master; ibsmd (priority 0) goes STANDBY, and
#     while it polls the master it sends no Set: every LID and every LFT and
#     MFT block read back with ibnetdiscover/ibroute is unchanged, sminfo
#     at ibsmd's LID says STANDBY, and OpenSM's SA lists both SMs.
#  2. OpenSM is killed: ibsmd takes over with every LID kept, and every
#     port's MasterSMLID points at it.
#  3. An OpenSM started at priority 0 beside the master ibsmd (which
#     announces its elevated priority 5 while master) stays STANDBY.
. "${TOP:-.}/tests/integration/lib.sh"
. "$TOP/tests/integration/bringup_common.bash"
. "$TOP/tests/integration/sm_common.bash"
NET=$TOP/tests/data/default.net
start_sim "$NET"

osm_up a H2 15
snap_fabric 0
OSM_LID=$(sminfo_of | sed -n 's/^sminfo: sm lid \([0-9]*\).*/\1/p')
[ -n "$OSM_LID" ] || fail "sminfo finds no master: $(sminfo_of)"

ibsmd_start a H1 -o sm.priority=0 -o sm.elevated_priority=5
wait_for 30 st_is a sm_role STANDBY || { tail "$T/ibsmd-a.out"; fail "ibsmd did not go STANDBY beside a master OpenSM"; }
wait_for 30 st_ge a sm_polls 6 || fail "the standby does not poll the master"
ME_LID=$(st a sm_lid)
sminfo_of "$ME_LID" | grep -q "priority 0 state 2 SMINFO_STANDBY" ||
	fail "sminfo $ME_LID: $(sminfo_of "$ME_LID")"
sminfo_of | grep -q "priority 15 state 3 SMINFO_MASTER" || fail "OpenSM is no longer master: $(sminfo_of)"
[ "$(st a master_lid)" = "$OSM_LID" ] || fail "ibsmd follows LID $(st a master_lid), OpenSM is at $OSM_LID"
# OpenSM's SA lists both IsSM ports.
sim_at "$TOOLS_AT" saquery -s >"$T/smir" 2>&1
for lid in "$ME_LID" "$OSM_LID"; do
	grep -q "EndPortLid\.*$lid\$" "$T/smir" || { cat "$T/smir"; fail "saquery -s does not list the SM at LID $lid"; }
done
for k in smps_portinfo_sets smps_switchinfo_sets smps_lft_blocks; do
	[ "$(st a $k)" = 0 ] || fail "the standby sent Sets: $k $(st a $k)"
done
snap_fabric 1
diff "$T/lids0" "$T/lids1" >/dev/null || fail "LIDs changed beside the standby"
diff "$T/tables0" "$T/tables1" >"$T/tables.diff" || { head "$T/tables.diff"; fail "LFT/MFT blocks changed beside the standby"; }
echo "standby beside OpenSM: $(st a sm_polls) polls, no Set, LIDs and tables unchanged"

osm_stop a
wait_for 30 st_is a sm_role MASTER || { tail "$T/ibsmd-a.out"; fail "ibsmd did not take over from the dead OpenSM"; }
wait_for 30 st_ge a heavy_sweeps 1 || fail "ibsmd master did not complete a sweep"
sminfo_of | grep -q "sm guid $(printf 0x%x "$(st a sm_guid)").* state 3 SMINFO_MASTER" ||
	fail "sminfo does not name ibsmd master: $(sminfo_of)"
snap_lids "$T/lids2"
diff "$T/lids0" "$T/lids2" >"$T/lids.diff" || { head "$T/lids.diff"; fail "LIDs changed in the takeover"; }
check_smlid "$ME_LID" "$T/lids2"
echo "takeover from OpenSM: LIDs kept, $(wc -l <"$T/lids2") ports point at LID $ME_LID"

osm_start b H2 0
wait_for 60 grep -q "Entering STANDBY state" "$T/osm-b.log" || { tail "$T/osm-b.log"; fail "OpenSM priority 0 did not go STANDBY beside master ibsmd"; }
wait_for 30 sminfo_has SMINFO_STANDBY "$OSM_LID" ||
	fail "sminfo $OSM_LID: $(sminfo_of "$OSM_LID")"
# One OpenSM poll interval (10 s) later nothing has moved.
sleep 11
grep -q "Entering MASTER state" "$T/osm-b.log" && fail "OpenSM priority 0 became master"
sminfo_of | grep -q "priority 5 state 3 SMINFO_MASTER" || fail "ibsmd is no longer master: $(sminfo_of)"
[ "$(st a sm_role)" = MASTER ] || fail "ibsmd role $(st a sm_role)"
osm_stop b
ibsmd_stop a
echo "OpenSM priority 0 stays STANDBY beside master ibsmd"
