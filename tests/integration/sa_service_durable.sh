#!/bin/bash
# Acknowledged ServiceRecords survive SIGKILL: hosts register 40 services
# (half with an infinite lease, half with one hour) and delete 8 of them;
# ibsmd is killed with SIGKILL and started again; every registration the
# SA acknowledged and did not delete is answered again by a Get, with its
# name and a lease that kept counting, and no deleted one comes back.
# Then a damaged services.state line is skipped with a warning naming it,
# and the other records are still served.
. "${TOP:-.}/tests/integration/mcast_common.bash"
SVC=$O/tests/sim/sa_svc
[ -x "$SVC" ] || fail "tests/sim/sa_svc not built"
"$O/ibsmgen" fattree2 --hosts 16 -o "$T/ft.net" || fail "ibsmgen"
mc_start "$T/ft.net"

: >"$T/acked"
for i in $(seq 1 40); do
	h=H$(( (i % 8) + 1 )) lease=
	[ $((i % 2)) -eq 0 ] && lease=3600
	if sim_at "$h" "$SVC" set $((0x5000 + i)) "svc-$i" $lease >/dev/null 2>&1; then
		echo "$h $((0x5000 + i)) svc-$i ${lease:-inf}" >>"$T/acked"
	fi
done
[ "$(wc -l <"$T/acked")" -ge 30 ] || fail "only $(wc -l <"$T/acked") of 40 registrations acknowledged"
: >"$T/deleted"
for i in 3 4 11 12 19 20 27 28; do
	line=$(grep " svc-$i " "$T/acked") || continue
	set -- $line
	sim_at "$1" "$SVC" delete "$2" "$3" >/dev/null 2>&1 && echo "$line" >>"$T/deleted"
done
[ -s "$T/deleted" ] || fail "no delete acknowledged"

kill -9 "$IBSMD_PID"
wait "$IBSMD_PID" 2>/dev/null
mc_ibsmd
grep -q "ServiceRecords restored" "$T/ibsmd.log" || fail "the restart restored no ServiceRecord"

# Right after a restart ibsim may still route the first SA MAD to the
# killed process's client; a Get with no answer at all is asked again.
svc_get() {
	local out
	for _ in 1 2 3 4 5; do
		out=$(sim_at "$1" "$SVC" get "$2" "$3" 2>&1)
		echo "$out" | grep -q "no answer from the SA" || break
		sleep 0.5
	done
	echo "$out"
}

# check_all: every acknowledged, undeleted record answers, deleted ones do not
check_all() {
	local kept=0 h id name lease out
	while read -r h id name lease; do
		out=$(svc_get "$h" "$id" "$name")
		if grep -q " $name " "$T/deleted"; then
			echo "$out" | grep -q "^name $name " &&
				fail "deleted $name came back after the restart"
			continue
		fi
		echo "$out" | grep -q "^name $name " || fail "$name lost across the restart: $out"
		got=$(echo "$out" | sed -n 's/.* lease \([0-9]*\)$/\1/p')
		if [ "$lease" = inf ]; then
			[ "$got" = 4294967295 ] || fail "$name: infinite lease came back as $got"
		else
			[ "$got" -le 3600 ] && [ "$got" -gt 3000 ] ||
				fail "$name: lease of 3600 s came back as $got"
		fi
		kept=$((kept + 1))
	done <"$T/acked"
	echo "$kept"
}
kept=$(check_all) || exit 1
echo "after SIGKILL: $kept records answered, $(wc -l <"$T/deleted") deleted stay deleted"

# A damaged line costs that line only.
kill "$IBSMD_PID"; wait "$IBSMD_PID" 2>/dev/null
echo "service 12 not-a-record" >>"$T/state/services.state"
mc_ibsmd
grep -q "services.state:[0-9]*: damaged ServiceRecord line skipped" "$T/ibsmd.log" ||
	fail "no warning naming the damaged services.state line"
kept2=$(check_all) || exit 1
[ "$kept2" = "$kept" ] || fail "after a damaged line: $kept2 records, want $kept"
echo "PASS"
