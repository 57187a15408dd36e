#!/bin/bash
# Acknowledged means durable, for ServiceRecords too: ibsmd is killed with
# SIGKILL while a client registers thousands of ServiceRecords one after
# the other (tests/sim/sa_svc many logs each ServiceID as its success
# answer arrives).  After the restart the SA answers a Get for every
# acknowledged one; a record deleted before the kill stays deleted, a
# lease keeps counting down across the restart (a 2 s lease is gone), and
# damaged lines added to services.state are reported with their line
# number and skipped while the rest loads.
. "${TOP:-.}/tests/integration/mcast_common.bash"
SVC="$O/tests/sim/sa_svc"
[ -x "$SVC" ] || skip "tests/sim/sa_svc not built"
"$O/ibsmgen" fattree2 --hosts 16 -o "$T/ft.net" || fail "ibsmgen"
mc_start "$T/ft.net"

# Before the flood: a record with a long lease, one with a 2 s lease and
# one registered then deleted.
sim "$SVC" set 0x5000 long-lease 3600 >/dev/null || fail "Set long-lease"
sim "$SVC" set 0x5001 short-lease 2 >/dev/null || fail "Set short-lease"
sim "$SVC" set 0x5002 deleted >/dev/null || fail "Set deleted"
sim "$SVC" delete 0x5002 deleted >/dev/null || fail "Delete deleted"

: >"$T/acked"
sim "$SVC" many 0x100000 4000 svc 4294967295 "$T/acked" >"$T/out" 2>&1 &
CPID=$!
for _ in $(seq 600); do
	[ "$(wc -l <"$T/acked")" -ge 1500 ] && break
	kill -0 $CPID 2>/dev/null || break
	sleep 0.05
done
kill -9 "$IBSMD_PID"; wait "$IBSMD_PID" 2>/dev/null
# answers sent before the kill may still be on their way to the client
sleep 2
killtree $CPID; wait $CPID 2>/dev/null
n=$(wc -l <"$T/acked")
echo "killed ibsmd after $n acknowledged ServiceRecord Sets"
[ "$n" -ge 1500 ] || { cat "$T/out"; fail "only $n Sets acknowledged before the kill"; }

mc_ibsmd
sim "$SVC" check "$T/acked" >"$T/check" 2>&1 ||
	{ grep -m5 lost "$T/check"; fail "$(grep -c lost "$T/check") of $n acknowledged ServiceRecords lost across SIGKILL"; }
echo "all $n acknowledged ServiceRecords survived SIGKILL and restart"

echo 0x5000 >"$T/long"; echo 0x5001 >"$T/short"; echo 0x5002 >"$T/gone"
sim "$SVC" check "$T/long" >"$T/c.long" 2>&1 || { cat "$T/c.long"; fail "the long-lease record was lost"; }
lease=$(awk '$1 == "have" { print $3 }' "$T/c.long")
[ "$lease" -lt 3600 ] || fail "the lease did not count down across the restart (still $lease s)"
echo "long lease: $lease s left of 3600"
sim "$SVC" check "$T/short" >"$T/c.short" 2>&1 && { cat "$T/c.short"; fail "the 2 s lease outlived the restart"; }
sim "$SVC" check "$T/gone" >"$T/c.gone" 2>&1 && { cat "$T/c.gone"; fail "a deleted record came back"; }
echo "expired lease and deleted record stayed gone"

# Damaged lines: reported with their number, the rest loads.
kill -9 "$IBSMD_PID"; wait "$IBSMD_PID" 2>/dev/null
f="$T/state/services.state"
lines=$(wc -l <"$f")
{ echo "service 12 zz"; head -c 300 /dev/urandom | tr -d '\n'; echo; printf 'service 0 0011'; } >>"$f"
: >"$T/ibsmd.log"
mc_ibsmd
kill -0 "$IBSMD_PID" || fail "ibsmd died on a damaged services.state"
for l in $((lines + 1)) $((lines + 2)) $((lines + 3)); do
	grep -q "services.state:$l: damaged" "$T/ibsmd.log" ||
		{ grep services.state "$T/ibsmd.log"; fail "damaged line $l not reported"; }
done
sim "$SVC" check "$T/acked" >"$T/check2" 2>&1 ||
	fail "$(grep -c lost "$T/check2") records lost after damaged lines"

# sa.service_lease_max_s: an infinite lease asked for is granted as the
# limit, and the SA answers the lease that remains of it.
kill "$IBSMD_PID"; wait "$IBSMD_PID" 2>/dev/null
mc_ibsmd -o sa.service_lease_max_s=30
sim "$SVC" set 0x6000 capped >/dev/null || fail "Set capped"
echo 0x6000 >"$T/capped"
sim "$SVC" check "$T/capped" >"$T/c.capped" 2>&1 || { cat "$T/c.capped"; fail "the capped record is missing"; }
lease=$(awk '$1 == "have" { print $3 }' "$T/c.capped")
[ "$lease" -ge 1 ] && [ "$lease" -le 30 ] ||
	fail "an infinite lease under sa.service_lease_max_s 30 was granted as $lease"
echo "infinite lease asked under sa.service_lease_max_s 30: $lease s"
echo "PASS: $n acknowledged ServiceRecords survived SIGKILL; damaged lines reported and skipped; leases capped"
