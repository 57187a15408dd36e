#!/bin/bash
# PathRecords during heavy sweeps that change the routing.  Eight clients
# (ibsim allows ten; the ninth is ibsmd) send PathRecord Gets at full rate
# to every host LID of a 3x3x3 torus while a link goes down and heavy
# sweeps reroute it.  The SA answers from one complete model at a time
# (the previous sweep's until the new one is adopted, never a model whose
# tables are half computed or half programmed), so every answer must be a
# record: a walk through a mix of old and new tables would loop or hit a
# dead end and answer ERR_NO_RECORDS.  Requests may be lost on the wire
# (a client whose route to the SM crossed the dead link, until the new
# LFTs are in): that is the fabric, counted apart, and most queries must
# still be answered.  Afterwards the LFTs read back deliver every pair.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bringup_common.bash"
need ibsim ibnetdiscover ibroute saquery python3
LOAD=$O/tests/sim/sa_load
[ -x "$LOAD" ] || fail "tests/sim/sa_load not built"
net=$TOP/tests/data/torus-small.net
start_ibsim "$net"
sock=$T/sock
LD_PRELOAD="$UMAD2SIM${LD_PRELOAD:+:$LD_PRELOAD}" "$IBSMD" \
	--state-dir "$T/state" -o control_socket="$sock" -o log.level=info \
	-o sm.sweep_interval_ms=0 >"$T/ibsmd.log" 2>&1 &
DPID=$!
trap 'kill $DPID 2>/dev/null; cleanup' EXIT
field() { "$IBSMCTL" -s "$sock" status 2>/dev/null | awk -v k="$1" '$1 == k { print $2 }'; }
for _ in $(seq 100); do [ "$(field sm_state)" = MASTER ] && break; sleep 0.1; done
[ "$(field sm_state)" = MASTER ] || { tail "$T/ibsmd.log"; fail "ibsmd did not come up"; }
sim ibnetdiscover -p 2>/dev/null | awk '$1 == "CA" { print $2 }' | sort -un >"$T/lids"
[ "$(wc -l <"$T/lids")" -eq 27 ] || fail "expected 27 host LIDs, got $(wc -l <"$T/lids")"
lids=$(paste -sd, "$T/lids")

h0=$(field heavy_sweeps)
pids=()
for i in $(seq 2 9); do
	SIM_HOST=H$i sim "$LOAD" -t path -n 20000 -w 8 -l "$lids" -T 2000 \
		>"$T/load.$i" 2>&1 &
	pids+=($!)
done
sleep 0.3
# S1-S2 is one link of a 3-ring: pairs across it now go the long way.
ibsim_cmd 'Unlink "S1"[2]'
for _ in 1 2 3; do
	"$IBSMCTL" -s "$sock" sweep >/dev/null 2>&1
	sleep 0.3
done
# when the last sweep asked for had surely run (a sweep here takes ms)
t_sweeps=$(date +%s.%N)
for p in "${pids[@]}"; do wait "$p"; done
cat "$T"/load.*
h1=$(field heavy_sweeps)
[ "$h1" -ge $((h0 + 2)) ] || fail "only $((h1 - h0)) heavy sweeps ran during the load"
grep -q "sweep: DISCOVER -> CONFIGURE" "$T/ibsmd.log" || fail "no sweep reached CONFIGURE"
# No answer was an error; lost requests are the fabric's, and few.
python3 - "$T"/load.* <<'PY' || fail "SA answers during the sweeps: see above"
import re, sys
ok, good = True, 0
for f in sys.argv[1:]:
    m = re.search(r"(\d+) answered, (\d+) errors, (\d+) lost", open(f).read())
    if not m:
        print("client output unreadable:", f); ok = False; continue
    ans, err, lost = map(int, m.groups())
    good += ans - lost - err
    if err:
        print("%s: %d PathRecord queries answered with an error status" % (f, err)); ok = False
# A client whose window was lost on the wire stops (sa_load does not
# resend); the others carry on.
n = 20000 * len(sys.argv[1:])
print("answered with a record: %d of %d queries" % (good, n))
if good < n // 2:
    print("fewer than half the queries were answered"); ok = False
sys.exit(0 if ok else 1)
PY
# The sweeps ran while the clients were querying (not before, not after).
first_end=$(sed -n 's/.*span [0-9.]* \([0-9.]*\)$/\1/p' "$T"/load.* | sort -n | head -1)
echo "heavy sweeps during the load: $((h1 - h0)); first client ended at $first_end"
python3 -c "import sys; sys.exit(float(sys.argv[1]) < float(sys.argv[2]))" "$first_end" "$t_sweeps" ||
	fail "a client ended before the sweeps were done: the load did not cover them"
# The new model: the LFTs read back deliver every pair, around the dead link.
check_fabric "$T/after"
echo PASS
