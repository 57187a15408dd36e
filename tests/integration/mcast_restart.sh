#!/bin/bash
# Restart: groups, members, colors and trees survive ibsmd being killed
# (SIGKILL) while every group is Ready.  After the new ibsmd's first sweep
# the MFTs read back with ibroute -M are byte for byte the same, every
# group is Ready with its MLID, nobody re-joined, and the groups still
# work (a new member extends a tree with the same MLID, deliveries walk).
. "${TOP:-.}/tests/integration/mcast_common.bash"
"$O/ibsmgen" fattree2 --hosts 32 -o "$T/ft.net" || fail "ibsmgen"
"$O/ibsmpattern" "$T/ft.net" grid 4x4x2 --members desc -o "$T/pattern" || fail "ibsmpattern"
mc_start "$T/ft.net"
awk '$1 == "+" { n = NF - 2; for (i = 3; i <= NF; i++) print $i, $2, n }' \
	"$T/pattern" >"$T/jobs"
while read -r h mg n; do
	grep -q "^status 0x0000" <<<"$(sa_at "$h" join "$mg" --member-count "$n")" ||
		fail "join $h $mg"
done <"$T/jobs"
# standard groups too, one with a SendOnlyFullMember
S1=ff12:601b:ffff::a1 S2=ff12:601b:ffff::a2
for h in H1 H12 H27; do sa_at $h join $S1 >/dev/null; done
sa_at H5 join $S2 >/dev/null; sa_at H30 join $S2 --join-state 8 >/dev/null
snapshot() { # snapshot NAME: group states and MLIDs, MFTs
	: >"$T/$1.groups"
	for mg in $(awk '$1 == "+" { print $2 }' "$T/pattern") $S1 $S2; do
		out=$(sa_at H2 mcg-state "$mg")
		echo "$mg $(field mlid <<<"$out") $(field state <<<"$out") $(field joined <<<"$out")" >>"$T/$1.groups"
	done
	mc_walk /dev/null >/dev/null
	grep -v '^ibwarn' "$T/mfts.txt" >"$T/$1.mfts"
}
for _ in $(seq 30); do
	snapshot before
	grep -qv " Ready " "$T/before.groups" || break
	sleep 0.2
done
grep -v " Ready " "$T/before.groups" && fail "groups not Ready before the restart"
[ -s "$T/state/mcgroups.state" ] || fail "no mcgroups.state in the state dir"
joins=$(field joins < <(ctl mcg stats))

kill -9 "$IBSMD_PID"; wait "$IBSMD_PID" 2>/dev/null
[ ! -e "$T/state/mcgroups.state.tmp" ] || fail "a half-written state file was left"
mc_ibsmd
for _ in $(seq 30); do
	snapshot after
	cmp -s "$T/before.groups" "$T/after.groups" && break
	sleep 0.2
done
diff "$T/before.groups" "$T/after.groups" || fail "groups differ after the restart"
diff "$T/before.mfts" "$T/after.mfts" || fail "MFTs differ after the restart"
ctl mcg stats >"$T/stats"
[ "$(field joins <"$T/stats")" = 0 ] || fail "joins after the restart"
# ibsim keeps its tables across our restart: that they read back the same
# proves something only because the new ibsmd wrote every block again
# (it does not know what the switches hold) -- at least one per switch.
[ "$(field mft_blocks_sent <"$T/stats")" -ge "$(grep -c '^Multicast mlids' "$T/after.mfts")" ] ||
	fail "the restarted ibsmd did not reprogram the MFTs: $(cat "$T/stats")"
grep -q "saved trees put back" "$T/ibsmd.log" || fail "trees were not restored"
# the groups still work: a new member keeps the MLID, deliveries walk
m1=$(awk -v g=$S1 '$1 == g { print $2 }' "$T/before.groups")
out=$(sa_at H20 join $S1)
[ "$(field mlid <<<"$out")" = "$m1" ] || fail "join after restart: $out"
{ awk '$1 == "+" { print }' "$T/pattern" | while read -r _ mg rest; do
	echo "$mg $(awk -v g="$mg" '$1 == g { print $2 }' "$T/before.groups") $rest"
  done
  echo "$S1 $m1 H1 H12 H27 H20"; } >"$T/groups"
mc_walk "$T/groups" || fail "deliveries after the restart"
echo "PASS: $(wc -l <"$T/before.groups") groups kept across a SIGKILL restart ($joins joins before, none after)"
