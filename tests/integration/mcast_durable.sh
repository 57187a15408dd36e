#!/bin/bash
# Acknowledged means durable: ibsmd is killed with
# SIGKILL while 1,000 collective groups are being joined (proxy joins
# from one node, tests/sim/mcast_joins --acked logs every join as its
# answer arrives).  After the restart every acknowledged join is still
# there: its group exists and lists the member (ibsmctl mcg list).
. "${TOP:-.}/tests/integration/mcast_common.bash"
NGR=${MC_DURABLE_GROUPS:-1000}
[ -x "$O/tests/sim/mcast_joins" ] || skip "tests/sim/mcast_joins not built"
"$O/ibsmgen" fattree2 --hosts 32 -o "$T/ft.net" || fail "ibsmgen"
"$O/ibsmpattern" "$T/ft.net" random --count "$NGR" --size 2-3 --seed 5 \
	--members desc -o "$T/pattern" 2>/dev/null || fail "ibsmpattern"
# Groups waiting for members must outlive the restart.
mc_start "$T/ft.net" -o multicast.join_timeout_ms=3600000
sim ibnetdiscover >"$T/topo0" 2>/dev/null
sed -n 's/.*"H-[0-9a-f]*"\[1\](\([0-9a-f]*\)).*# "\([^"]*\)".*/\2 \1/p' \
	"$T/topo0" >"$T/guids"
awk 'NR == FNR { g[$1] = $2; next }
     $1 == "+" { for (i = 3; i <= NF; i++) print $2, "0x" g[$i], NF - 2 }' \
	"$T/guids" "$T/pattern" >"$T/coll"
grep -q " 0x " "$T/coll" && fail "a member without a port GUID"
echo "$(wc -l <"$T/coll") joins for $NGR groups"

: >"$T/acked"
sim "$O/tests/sim/mcast_joins" --acked "$T/acked" "$T/coll" >"$T/out" 2>&1 &
JPID=$!
journal=
for _ in $(seq 600); do
	# joins go to a journal after the snapshot (a snapshot rewritten
	# every 50 ms or more empties it, so it is looked for while joining)
	grep -q '^journal$' "$T/state/mcgroups.state" 2>/dev/null && journal=1
	[ "$(wc -l <"$T/acked")" -ge 400 ] && break
	kill -0 $JPID 2>/dev/null || break
	sleep 0.1
done
kill -9 "$IBSMD_PID"; wait "$IBSMD_PID" 2>/dev/null
grep -q '^journal$' "$T/state/mcgroups.state" && journal=1
[ -n "$journal" ] || fail "mcgroups.state never had a journal while the joins were answered"
# answers sent before the kill may still be on their way to the client
sleep 2
killtree $JPID; wait $JPID 2>/dev/null
n=$(wc -l <"$T/acked")
echo "killed ibsmd after $n acknowledged joins"
[ "$n" -ge 400 ] || fail "only $n joins acknowledged before the kill"

mc_ibsmd -o multicast.join_timeout_ms=3600000
ctl mcg list >"$T/list" || fail "mcg list after the restart"
awk 'NR == FNR { m = $0; sub(/.*members=/, "", m); split($1, x, " ");
		 grp[$1] = "," m ","; next }
     { if (index(grp[$1], "," $2 ",") == 0) { print "lost:", $1, $2; bad++ } }
     END { exit bad > 0 }' "$T/list" "$T/acked" >"$T/lost" ||
	{ head "$T/lost"; fail "$(wc -l <"$T/lost") acknowledged joins lost across SIGKILL"; }
echo "all $n acknowledged joins survived SIGKILL and restart"

# A torn last append to the journal (a crash mid-write) is reported by
# line and what came before it stands.
kill -9 "$IBSMD_PID"; wait "$IBSMD_PID" 2>/dev/null
grep -q '^journal$' "$T/state/mcgroups.state" || echo journal >>"$T/state/mcgroups.state"
lines=$(wc -l <"$T/state/mcgroups.state"); echo "state file: $lines complete lines, then a torn one"
printf 'group ff12:601b' >>"$T/state/mcgroups.state"
: >"$T/ibsmd.log"
mc_ibsmd -o multicast.join_timeout_ms=3600000
grep -q "mcgroups.state:$((lines + 1)): unreadable.*journal is read up to there" "$T/ibsmd.log" ||
	{ grep mcgroups.state "$T/ibsmd.log"; fail "the torn journal line was not reported"; }
ctl mcg list >"$T/list2" || fail "mcg list after the torn journal"
awk 'NR == FNR { m = $0; sub(/.*members=/, "", m); grp[$1] = "," m ","; next }
     { if (index(grp[$1], "," $2 ",") == 0) bad++ }
     END { exit bad > 0 }' "$T/list2" "$T/acked" ||
	fail "acknowledged joins lost after a torn journal line"
echo "PASS: a torn journal line is reported and every acknowledged join stands"
