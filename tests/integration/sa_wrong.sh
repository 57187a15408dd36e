#!/bin/bash
# Wrong SA requests get the answer the IBA asks for, and
# the same answer as OpenSM 3.3.23 gives on its own copy of the fabric:
# tests/sim/sa_raw sends each malformed request from a host and prints the
# MAD status, or "dropped".  Where OpenSM is not what the IBA says, the
# IBA wins and the difference is printed (and listed below).  Then a few
# thousand mutated requests go to ibsmd, which must still answer a
# well-formed query afterwards and still be running.
. "${TOP:-.}/tests/integration/lib.sh"
need ibsim opensm saquery
[ -x "$O/ibsmd" ] && [ -x "$O/tests/sim/sa_raw" ] || skip "ibsmd/sa_raw not built"
NET=$TOP/tests/data/ft2-small.net
SIMARGS="-N 34 -S 10 -P 114"
cd "$T"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}replace_intrin=0"

stop_all() {
	for p in ${PID_OSM:-} ${PID_IBSMD:-}; do killtree "$p"; done
	for p in ${PID_SIM_osm:-} ${PID_SIM_ibsmd:-}; do kill "$p" 2>/dev/null; done
	cleanup
}
trap stop_all EXIT

start_named_sim osm
start_named_sim ibsmd
at osm opensm -f "$T/opensm.log" >"$T/opensm.out" 2>&1 &
PID_OSM=$!
mkdir -p "$T/state"
# Leaks are looked for in the sanitizer build (at exit, after the fuzzing).
IBSMD_ASAN=$ASAN_OPTIONS
ldd "$O/ibsmd" | grep -q libasan && IBSMD_ASAN=${ASAN_OPTIONS/detect_leaks=0/detect_leaks=1}
# Started directly, so that $! is ibsmd and its exit status is seen.
ASAN_OPTIONS=$IBSMD_ASAN IBSIM_SOCKNAME="${IBSIM_SOCKNAME}ibsmd" \
	LD_PRELOAD="$UMAD2SIM" "$O/ibsmd" --state-dir "$T/state" \
	-o control_socket="$T/ibsmd.sock" >"$T/ibsmd.out" 2>&1 &
PID_IBSMD=$!
for sm in osm ibsmd; do
	ok=
	for _ in $(seq 60); do
		at $sm saquery SMIR 2>/dev/null | grep -q "SMState.*3" && { ok=1; break; }
		sleep 0.5
	done
	[ -n "$ok" ] || { tail "$T/$sm"*.out; fail "$sm: the SA does not answer"; }
done

cases=$("$O/tests/sim/sa_raw" -l | cut -f1)
for sm in osm ibsmd; do
	SIM_HOST=H2 at $sm "$O/tests/sim/sa_raw" $cases >"$T/$sm.ans" 2>"$T/$sm.err" ||
		fail "sa_raw against $sm: $(tail -3 "$T/$sm.err")"
done
sed -i 's/ status / /' "$T/osm.ans" "$T/ibsmd.ans"
join "$T/osm.ans" "$T/ibsmd.ans" >"$T/both"
awk '{ printf "%-20s opensm %-8s ibsmd %s\n", $1, $2, $3 }' "$T/both"

# What the IBA asks for (MAD status; SA codes are the high byte):
#  0x000c  method/attribute combination not supported (unknown attribute,
#          or a method the attribute does not have)
#  0x0008  method not supported
#  0x0400  ERR_REQ_TOO_MANY_RECORDS (a Get matching several records)
#  0x0300  ERR_REQ_NO_RECORDS
#  0x0600  ERR_REQ_INSUFFICIENT_COMPONENTS (half a ServiceID; a join
#          without JoinState; a ServiceRecord Delete without its keys)
#  0x0200  ERR_REQ_INVALID (a component bit beyond the record)
#  dropped: a version no agent is registered for, and RMPP control
#          packets outside an RMPP transfer.
# "same": OpenSM answers alike.  Where OpenSM differs, it is printed:
# under ibsim it sends nothing for an unsupported method or attribute,
# takes class version 1 and an RMPP ACK as requests, answers a PathRecord
# Get without destination with one record, ignores component bits beyond
# the record and answers a keyless ServiceRecord Delete with NO_RECORDS.
want="unknown_attr 0x000c
unknown_method 0x0008
set_noderecord 0x000c
bad_class_version dropped
rmpp_ack dropped
get_many 0x0400 same
get_none 0x0300 same
path_no_dest 0x0400
path_half_serviceid 0x0600 same
join_no_joinstate 0x0600 same
comp_mask_beyond 0x0200
sr_delete_none 0x0600"
while read -r c st same; do
	got=$(awk -v c="$c" '$1 == c { print $3 }' "$T/both")
	osm=$(awk -v c="$c" '$1 == c { print $2 }' "$T/both")
	[ "$got" = "$st" ] || fail "$c: ibsmd answered '$got', the IBA asks for $st"
	if [ -n "$same" ]; then
		[ "$osm" = "$st" ] || fail "$c: OpenSM answered '$osm', expected the same as ibsmd ($st)"
	elif [ "$osm" != "$st" ]; then
		echo "differs from OpenSM: $c (OpenSM $osm, ibsmd $st)"
	fi
done <<<"$want"

# On the wire: mutated requests from another node, bounded in count and
# time (a dropped one costs the 100 ms timeout).
n=${SA_WIRE_FUZZ:-3000}
out=$(SIM_HOST=H3 at ibsmd timeout 300 "$O/tests/sim/sa_raw" -t 100 "fuzz:$n:$$" 2>&1) ||
	fail "fuzz client: $out"
echo "$out"
echo "$out" | grep -q "fuzz sent $n" || fail "the fuzz client did not finish: $out"
kill -0 "$PID_IBSMD" 2>/dev/null || fail "ibsmd died under the fuzz: $(tail -5 "$T/ibsmd.out")"
out=$(SIM_HOST=H2 at ibsmd saquery -N 2>&1) || fail "saquery after the fuzz: $out"
echo "$out" | grep -q NodeRecord || fail "no NodeRecord after the fuzz"
grep "SA: dropped" "$T/ibsmd.out" | head -3
# Stop ibsmd (SIGTERM, exit 0) and read its sanitizer report, if any.
kill "$PID_IBSMD"
for _ in $(seq 100); do kill -0 "$PID_IBSMD" 2>/dev/null || break; sleep 0.1; done
wait "$PID_IBSMD"; rc=$?
PID_IBSMD=
grep -E "ERROR: (Address|Leak)Sanitizer|runtime error" "$T/ibsmd.out" &&
	fail "sanitizer report in ibsmd's output"
[ "$rc" -eq 0 ] || fail "ibsmd exited $rc after the fuzz: $(tail -5 "$T/ibsmd.out")"
echo "PASS: wrong SA requests answered per the IBA, fuzz survived"
