#!/bin/bash
# Collective joins (MemberCount) under ibsim with a 32-entry MFT: a 2-level
# fat tree of 128 hosts, a 4x4x8 3-D grid pattern (80 groups: more groups
# than MLIDs), every host joins its groups from its own simulated node
# with MemberCount = the group's size (8 clients at a time: ibsim takes 9
# besides the SM), the first member of each group polls MCGStateRecord
# until Ready.  Then every switch's MFT is read back with ibroute -M and
# walked: every member's packet reaches every other member exactly once,
# loop-free (mcast_walk.py trusts only ibnetdiscover and ibroute).
. "${TOP:-.}/tests/integration/mcast_common.bash"
HOSTS=${MC_HOSTS:-128}
GRID=${MC_GRID:-4x4x8}
"$O/ibsmgen" fattree2 --hosts "$HOSTS" -o "$T/ft.net" || fail "ibsmgen"
"$O/ibsmpattern" "$T/ft.net" grid "$GRID" --members desc -o "$T/pattern" ||
	fail "ibsmpattern"
NG=$(grep -c '^+' "$T/pattern")
mc_start "$T/ft.net"

# one job per (host, group): "HOST MGID N"
awk '$1 == "+" { n = NF - 2; for (i = 3; i <= NF; i++) print $i, $2, n }' \
	"$T/pattern" >"$T/jobs"
NJ=$(wc -l <"$T/jobs")
mkdir -p "$T/jobs.d"
export O UMAD2SIM IBSIM_SOCKNAME JD="$T/jobs.d"
t0=$(date +%s%N)
xargs -P 8 -L 1 sh -c 'SIM_HOST=$0 LD_PRELOAD=$UMAD2SIM "$O/ibsmctl" sa \
	join $1 --member-count $2 >"$JD/$0-$1" 2>&1' <"$T/jobs"
t1=$(date +%s%N)
ok=$(grep -l "^status 0x0000 success" "$T"/jobs.d/* | wc -l)
[ "$ok" -eq "$NJ" ] || {
	grep -L "^status 0x0000 success" "$T"/jobs.d/* | head -3 | xargs tail -n 3
	fail "$((NJ - ok)) of $NJ joins were not answered with success"
}
# A collective group's join answer carries MLID 0 until it is Ready; once
# Ready the SA gives the MLID.  Only an answer before Ready must be 0.
echo "joins: $NJ in $(((t1 - t0) / 1000000)) ms from $HOSTS hosts, $NG groups"

# the first member of each group polls MCGStateRecord until Ready
: >"$T/groups"
while read -r _ mgid first rest; do
	st=
	for _ in $(seq 50); do
		sa_at "$first" mcg-state "$mgid" >"$T/st" || true
		st=$(field state <"$T/st")
		[ "$st" = Ready ] && break
		sleep 0.1
	done
	[ "$st" = Ready ] || { cat "$T/st"; ctl mcg show "$mgid"; fail "$mgid is not Ready (state '$st')"; }
	mlid=$(field mlid <"$T/st")
	[ "$(field joined <"$T/st")" -eq $((1 + $(echo $rest | wc -w))) ] ||
		fail "$mgid: JoinedCount wrong in $(cat "$T/st")"
	echo "$mgid $mlid $first $rest" >>"$T/groups"
done < <(grep '^+' "$T/pattern")
echo "all $NG groups Ready"
# MLIDs stay inside the 32-entry MFT
while read -r mg mlid _; do
	[ $((mlid)) -ge $((0xc000)) ] && [ $((mlid)) -le $((0xc01f)) ] ||
		fail "$mg: MLID $mlid outside the 32-entry MFT"
done <"$T/groups"
# an extra port and a wrong MemberCount are refused
read -r mg _ m1 members < <(head -1 "$T/groups")
for h in $(seq "$HOSTS" -1 1); do
	grep -qw "H$h" <<<"$m1 $members" || break
done
n=$(($(echo $members | wc -w) + 1))
out=$(sa_at "H$h" join "$mg" --member-count "$n")
echo "$out" | grep -q "ERR_REQ_INVALID" ||
	fail "an (N+1)-th port (H$h) was not refused: $out"
out=$(sa_at "$m1" join "$mg" --member-count 99)
echo "$out" | grep -q "ERR_REQ_INVALID" || fail "a different MemberCount was not refused: $out"
out=$(sa_at "$m1" join "$mg" --member-count "$n")
echo "$out" | grep -q "^status 0x0000" || fail "a repeated join was not idempotent: $out"

mc_walk "$T/groups" || fail "MFT walk found errors"
grep -q "mlid=0xc0" "$T/state/mcgroups.dump" || fail "no mcgroups.dump in the state dir"
echo "PASS: $NG collective groups Ready in a 32-entry MFT, delivery verified"
