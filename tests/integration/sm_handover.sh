#!/bin/bash
# Two ibsmd on one ibsim fabric (default.net):
#  1. A (priority 1, on H1) is master; B (priority 10, on H2) starts later,
#     stands by, tells A (trap 144), and A hands the subnet over (SMInfo
#     HANDOVER/ACKNOWLEDGE): B master, A standby polling B.  No LID, LFT or
#     MFT block read back with ibnetdiscover/ibroute changes, and B sends
#     no LFT block.
#  2. B is killed: A takes the subnet back, again with nothing changed.
. "${TOP:-.}/tests/integration/lib.sh"
. "$TOP/tests/integration/bringup_common.bash"
. "$TOP/tests/integration/sm_common.bash"
NET=$TOP/tests/data/default.net
start_sim "$NET"

ibsmd_start a H1 -o sm.priority=1
wait_for 60 st_ge a heavy_sweeps 1 || { tail "$T/ibsmd-a.out"; fail "A did not bring the subnet up"; }
[ "$(st a sm_role)" = MASTER ] || fail "A is $(st a sm_role)"
snap_lids "$T/lids0"
snap_tables "$T/tables0" "$T/lids0"
A_LID=$(st a sm_lid)

ibsmd_start b H2 -o sm.priority=10
wait_for 60 st_is b sm_role MASTER || { tail "$T/ibsmd-b.out" "$T/ibsmd-a.out"; fail "no handover to the better SM B"; }
wait_for 30 st_is a sm_role STANDBY || fail "A did not stand by after the handover: $(st a sm_role)"
wait_for 30 st_ge b heavy_sweeps 1 || fail "B did not complete a sweep as master"
B_LID=$(st b sm_lid)
[ "$(st a master_lid)" = "$B_LID" ] || fail "A follows LID $(st a master_lid), B is at $B_LID"
[ "$(st a sm_handovers_sent)" = 1 ] && [ "$(st b sm_handovers_taken)" = 1 ] ||
	fail "handover counters: A sent $(st a sm_handovers_sent), B took $(st b sm_handovers_taken)"
sminfo_of | grep -q "priority 10 state 3 SMINFO_MASTER" || fail "sminfo: $(sminfo_of)"
sminfo_of "$A_LID" | grep -q "priority 1 state 2 SMINFO_STANDBY" || fail "sminfo $A_LID: $(sminfo_of "$A_LID")"
snap_lids "$T/lids1"
snap_tables "$T/tables1" "$T/lids1"
diff "$T/lids0" "$T/lids1" >"$T/d" || { head "$T/d"; fail "LIDs changed in the handover"; }
diff "$T/tables0" "$T/tables1" >"$T/d" || { head "$T/d"; fail "LFT/MFT blocks changed in the handover"; }
[ "$(st b smps_lft_blocks)" = 0 ] || fail "B sent $(st b smps_lft_blocks) LFT blocks"
check_smlid "$B_LID" "$T/lids1"
echo "handover A -> B: LIDs and tables unchanged, no LFT block sent"

ibsmd_stop b
wait_for 30 st_is a sm_role MASTER || { tail "$T/ibsmd-a.out"; fail "A did not take over from the dead B"; }
wait_for 30 st_is a sm_takeovers 1 || fail "A counts $(st a sm_takeovers) takeovers"
wait_for 30 sminfo_has "priority 1 state 3" || fail "sminfo does not show A master: $(sminfo_of)"
sleep 1
snap_lids "$T/lids2"
snap_tables "$T/tables2" "$T/lids2"
diff "$T/lids0" "$T/lids2" >"$T/d" || { head "$T/d"; fail "LIDs changed in the takeover"; }
diff "$T/tables0" "$T/tables2" >"$T/d" || { head "$T/d"; fail "LFT/MFT blocks changed in the takeover"; }
check_smlid "$A_LID" "$T/lids2"
ibsmd_stop a
echo "B killed: A master again, LIDs and tables unchanged"
