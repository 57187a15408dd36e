#!/bin/bash
# SM_Key: ibsmd A (priority 1, sm.sm_key 0x1111) is master; ibsmd B
# (priority 10, sm.sm_key 0x2222) starts, stands by and is offered the
# subnet with SMInfo Set HANDOVER carrying A's key.  B refuses it (counted
# in sminfo_bad_key) and nothing changes: A stays master (sminfo), B stays
# standby, no LID moves.
. "${TOP:-.}/tests/integration/lib.sh"
. "$TOP/tests/integration/bringup_common.bash"
. "$TOP/tests/integration/sm_common.bash"
NET=$TOP/tests/data/default.net
start_sim "$NET"

ibsmd_start a H1 -o sm.priority=1 -o sm.sm_key=0x1111
wait_for 60 st_ge a heavy_sweeps 1 || { tail "$T/ibsmd-a.out"; fail "A did not bring the subnet up"; }
snap_lids "$T/lids0"
A_LID=$(st a sm_lid)
ibsmd_start b H2 -o sm.priority=10 -o sm.sm_key=0x2222
wait_for 30 st_is b sm_role STANDBY || fail "B is $(st b sm_role)"
wait_for 30 st_ge a sm_handovers_sent 1 || fail "A never offered the subnet to the better SM B"
wait_for 30 st_ge b sminfo_bad_key 1 || fail "B did not refuse the HANDOVER with the wrong SM_Key"
grep -q "refused: wrong SM_Key" "$T/ibsmd-b.out" || fail "B did not log the refusal"
sleep 2
[ "$(st a sm_role)" = MASTER ] || fail "A is $(st a sm_role) after a refused handover"
[ "$(st b sm_role)" = STANDBY ] || fail "B is $(st b sm_role) after refusing the handover"
[ "$(st b sm_handovers_taken)" = 0 ] || fail "B took a handover with the wrong key"
sminfo_has "priority 1 state 3 SMINFO_MASTER" || fail "sminfo: $(sminfo_of)"
sminfo_of "$A_LID" | grep -q "sm guid $(printf 0x%x "$(st a sm_guid)")" || fail "sminfo $A_LID: $(sminfo_of "$A_LID")"
snap_lids "$T/lids1"
diff "$T/lids0" "$T/lids1" >/dev/null || fail "LIDs changed"
ibsmd_stop b
ibsmd_stop a
echo "HANDOVER with the wrong SM_Key refused ($(grep -c 'refused: wrong SM_Key' "$T/ibsmd-b.out") logged), nothing changed"
