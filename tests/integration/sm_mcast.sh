#!/bin/bash
# Failover between two ibsmd keeps the multicast groups and the
# ServiceRecords: master A
# (priority 10, on H1) and standby B (priority 1, on H2) on default.net with
# a 32-entry MFT.  50 collective groups of 4 hosts are joined (each member
# from its own node) and Ready; B copies A's multicast state.  A is killed:
# B takes over with every group's MGID, MLID, state and members as A had
# them (ibsmctl mcg list), its SA answers MCGStateRecord Ready with the same
# MLID, every switch's MFT read back with ibroute -M is unchanged, and B,
# having read the tables back, sent no LFT or MFT block.  30 ServiceRecords
# registered at A (lease 3600 s) are copied too (and one more group joined
# after the first copy makes B fetch only what A's journal gained): B's SA answers every one
# after the takeover, with its lease still counting down; so is H4's
# event subscription (saquery IIR at B lists it).
. "${TOP:-.}/tests/integration/lib.sh"
. "$TOP/tests/integration/bringup_common.bash"
. "$TOP/tests/integration/sm_common.bash"
NET=$TOP/tests/data/default.net
NG=${SM_GROUPS:-50}
start_sim "$NET"
# a 32-entry MFT makes groups share colors (merged trees) too
stop_sim
T=$BASE_T/mc; mkdir -p "$T"
start_ibsim "$NET" $(ibsim_opts "$NET") -M 32

ibsmd_start a H1 -o sm.priority=10
wait_for 60 st_ge a heavy_sweeps 1 || { tail "$T/ibsmd-a.out"; fail "A did not bring the subnet up"; }
ibsmd_start b H2 -o sm.priority=1
wait_for 30 st_is b sm_role STANDBY || fail "B is $(st b sm_role), not STANDBY"

# group g: MGID ff12:601b::1:g, members H(5+g%28) .. 4 hosts apart, never H1/H2
hosts() { local g=$1 i; for i in 0 1 2 3; do echo "H$(( (g * 5 + i * 7) % 30 + 3 ))"; done | sort -u; }
: >"$T/jobs"
for g in $(seq 1 "$NG"); do
	set -- $(hosts "$g")
	for h in "$@"; do echo "$h ff12:601b::1:$(printf %x "$g") $#"; done >>"$T/jobs"
done
mkdir -p "$T/jobs.d"
export UMAD2SIM IBSIM_SOCKNAME JD="$T/jobs.d" CTL="$IBSMCTL"
xargs -P 6 -L 1 sh -c 'SIM_HOST=$0 LD_PRELOAD=$UMAD2SIM "$CTL" sa \
	join $1 --member-count $2 >"$JD/$0-$1" 2>&1' <"$T/jobs"
bad=$(grep -L "^status 0x0000 success" "$T"/jobs.d/* | wc -l)
[ "$bad" -eq 0 ] || fail "$bad joins failed"
ready() { [ "$("$IBSMCTL" -s "$T/$1.sock" mcg list | grep -c 'state=Ready')" -ge "$NG" ]; }
wait_for 60 ready a || fail "A: groups not Ready: $("$IBSMCTL" -s "$T/a.sock" mcg list | grep -vc state=Ready)"
wait_for 30 st_is b mcast_copy current || fail "B holds no first copy: $(st b mcast_copy)"
# One more group joined at A: B fetches only what A's journal gained,
# not the whole file again (its copy still checks, byte for byte).
g0=$(st b mcast_copy_generation) c0=$(st b mcast_copy_chunks)
for h in H3 H10 H17; do
	sim_at "$h" "$IBSMCTL" sa join ff12:601b::2:1 --member-count 3 2>&1 |
		grep -q "^status 0x0000" || fail "the extra group's join from $h"
done
copied() { [ "$(st b mcast_copy_generation)" != "$g0" ] && st_is b mcast_copy current &&
	cmp -s "$T/state-a/mcgroups.state" "$T/state-b/mcgroups.replica"; }
wait_for 30 copied || fail "B's copy did not follow A's journal"
c1=$(st b mcast_copy_chunks) whole=$(( ($(stat -c %s "$T/state-a/mcgroups.state") + 159) / 160 ))
echo "B fetched $((c1 - c0)) chunks of a $whole-chunk file after the extra joins"
[ $((c1 - c0)) -lt "$whole" ] || fail "B fetched $((c1 - c0)) chunks: the whole file again, not what was appended"
extra_ready() { "$IBSMCTL" -s "$T/a.sock" mcg list | grep "^ff12:601b::2:1 " | grep -q state=Ready; }
wait_for 60 extra_ready || fail "A: the extra group is not Ready"
# mcg list without the tree columns, members sorted
groups() {
	"$IBSMCTL" -s "$T/$1.sock" mcg list |
		awk '{ m = $NF; sub(/^members=/, "", m); n = split(m, a, ",");
		       s = ""; for (i = 1; i <= n; i++) s = s " " a[i];
		       print $1, $2, $3, s }' | sort
}
groups a >"$T/groups0"
[ "$(grep -c state=Ready "$T/groups0")" -ge "$NG" ] || fail "A lists $(grep -c state=Ready "$T/groups0") Ready groups"
SVC="$O/tests/sim/sa_svc"
: >"$T/svc.acked"
sim_at H3 "$SVC" many 0x7000 30 svc 3600 "$T/svc.acked" >"$T/svc.out" 2>&1 ||
	{ cat "$T/svc.out"; fail "ServiceRecord Sets at A"; }
[ "$(wc -l <"$T/svc.acked")" -eq 30 ] || fail "$(wc -l <"$T/svc.acked") of 30 ServiceRecords acknowledged"
sim_at H4 "$O/tests/sim/sa_inform" 0 66 >"$T/inf.out" 2>&1
grep -q "^subscribed 66 status 0x0000" "$T/inf.out" || { cat "$T/inf.out"; fail "H4's subscription at A"; }
wait_for 30 st_is b informs_copy current || fail "B holds no current copy of the subscriptions: $(st b informs_copy)"
wait_for 30 st_is b mcast_copy current || fail "B holds no current copy: $(st b mcast_copy)"
wait_for 30 st_is b services_copy current || fail "B holds no current copy of the ServiceRecords: $(st b services_copy)"
cmp -s "$T/state-a/services.state" "$T/state-b/services.replica" || {
	sleep 2; cmp "$T/state-a/services.state" "$T/state-b/services.replica" ||
		fail "B's copy differs from A's services.state"; }
# B's copy is A's file, byte for byte
cmp -s "$T/state-a/mcgroups.state" "$T/state-b/mcgroups.replica" || {
	sleep 2; cmp "$T/state-a/mcgroups.state" "$T/state-b/mcgroups.replica" ||
		fail "B's copy differs from A's mcgroups.state"; }
snap_lids "$T/lids0"
snap_tables "$T/tables0" "$T/lids0"
grep -q "0xc0" "$T/tables0" || fail "no MLID in any MFT read back"

ibsmd_stop a
wait_for 30 st_is b sm_role MASTER || { tail "$T/ibsmd-b.out"; fail "B did not take over"; }
wait_for 30 st_ge b heavy_sweeps 1 || fail "B did not complete a sweep"
wait_for 30 ready b || fail "B: groups not Ready after the takeover"
groups b >"$T/groups1"
diff "$T/groups0" "$T/groups1" >"$T/d" || { head "$T/d"; fail "groups changed in the failover"; }
# B's SA gives the same MLID, Ready, to a member asking
while read -r mg mlid state _; do
	h=$(awk -v m="$mg" '$2 == m { print $1; exit }' "$T/jobs")
	[ -n "$h" ] || continue
	sim_at "$h" "$IBSMCTL" sa mcg-state "$mg" 2>/dev/null >"$T/st"
	[ "$(awk '$1 == "state" { print $2 }' "$T/st")" = Ready ] &&
		[ "mlid=$(awk '$1 == "mlid" { print $2 }' "$T/st")" = "$mlid" ] ||
		{ cat "$T/st"; fail "$mg: B's SA does not answer Ready with $mlid"; }
done < <(grep -v "^ff12:401b" "$T/groups0")
snap_lids "$T/lids1"
snap_tables "$T/tables1" "$T/lids1"
diff "$T/lids0" "$T/lids1" >"$T/d" || { head "$T/d"; fail "LIDs changed"; }
diff "$T/tables0" "$T/tables1" >"$T/d" || { head "$T/d"; fail "LFT/MFT entries changed in the failover"; }
grep -q "re-register" "$T/ibsmd-b.out" && fail "B asked hosts to re-register although it held the groups"
# B read the MFTs back and found nothing to write
sent=$("$IBSMCTL" -s "$T/b.sock" mcg stats | awk '$1 == "mft_blocks_sent" { print $2 }')
[ "$sent" = 0 ] || fail "B sent $sent MFT blocks although nothing changed"
[ "$(st b smps_lft_blocks)" = 0 ] || fail "B sent $(st b smps_lft_blocks) LFT blocks although nothing changed"
sim_at H3 "$SVC" check "$T/svc.acked" >"$T/svc.check" 2>&1 ||
	{ grep -m5 lost "$T/svc.check"; fail "$(grep -c lost "$T/svc.check") of 30 ServiceRecords lost in the failover"; }
lease=$(awk '$1 == "have" { print $3; exit }' "$T/svc.check")
sim_at H5 saquery IIR >"$T/iir" 2>&1
grep -q "trap_num.*66" "$T/iir" || { cat "$T/iir"; fail "B's SA does not list H4's event subscription"; }
[ "$lease" -gt 3000 ] && [ "$lease" -lt 3600 ] || fail "a ServiceRecord's lease after the failover: $lease s"
ibsmd_stop b
echo "failover with $NG collective groups: MGIDs, MLIDs, states, members, MFTs kept; 30 ServiceRecords kept (lease $lease s left)"
