#!/bin/bash
# SA benchmark: PathRecord and NodeRecord Gets per second and latency
# percentiles from several clients at once (tests/sim/sa_load, one per
# simulated host; ibsim allows 9 clients besides the SM), OpenSM 3.3.23 and
# ibsmd on the same fabric in the same run, one after the other so they do
# not compete for the CPU.  Each SM gets its own ibsim; every client asks
# for paths from its own port to every end port (LIDs as that SM assigned
# them, read by ibnetdiscover), in a different order per client.
#   O=build tests/bench/sa.sh [NETFILE] [CLIENTS] [QUERIES_PER_CLIENT] [WINDOW]
# Targets: PathRecord throughput >= 2x OpenSM's, p99 no worse.
set -u
O=$(cd "${O:-build}" && pwd)
TOP=$(pwd)
NET=$(realpath "${1:-tests/data/ft3-small.net}")
CLIENTS=${2:-8}
N=${3:-3000}
WIN=${4:-8}
UMAD2SIM=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
T=$(mktemp -d "${TMPDIR:-/tmp}/sa-bench.XXXXXX")
SOCK="sabench$$"
cd "$T" # umad2sim leaves sys-PID directories in the working directory
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	sleep 1
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$T"
}
. "$(dirname "$0")/../procs.bash"
procs_guard cleanup
for c in ibsim opensm ibnetdiscover saquery; do
	command -v $c >/dev/null || { echo "SKIP: $c not installed"; exit 77; }
done
[ -x "$O/ibsmd" ] && [ -x "$O/tests/sim/sa_load" ] || { echo "build first (make)"; exit 1; }
# ibsim sizes: nodes/switches/ports from the file, with room to spare
nodes=$(grep -c '^\(Switch\|Hca\|Ca\)' "$NET")
SIMARGS="-N $((nodes + 8)) -S $((nodes + 8)) -P $((nodes * 40))"

at() { IBSIM_SOCKNAME="$SOCK$1" LD_PRELOAD="$UMAD2SIM" "${@:2}"; }

start() { # start SM: ibsim + the SM, wait for its SA
	local sm=$1
	mkfifo "$T/$sm.in"
	IBSIM_SOCKNAME="$SOCK$sm" ibsim -s $SIMARGS "$NET" <"$T/$sm.in" >"$T/$sm.ibsim.log" 2>&1 &
	PIDS+=($!)
	exec {fd}>"$T/$sm.in"
	sleep 1
	# started directly (not through a function) so $! is the SM itself
	if [ "$sm" = osm ]; then
		IBSIM_SOCKNAME="$SOCK$sm" LD_PRELOAD="$UMAD2SIM" \
			opensm -f "$T/opensm.log" >"$T/opensm.out" 2>&1 &
	else
		mkdir -p "$T/state"
		IBSIM_SOCKNAME="$SOCK$sm" LD_PRELOAD="$UMAD2SIM" \
			"$O/ibsmd" --state-dir "$T/state" -o control_socket="$T/ibsmd.sock" \
			-o log.level=notice >"$T/ibsmd.out" 2>&1 &
	fi
	SMPID=$!
	PIDS+=($SMPID)
	for _ in $(seq 120); do
		at $sm saquery SMIR 2>/dev/null | grep -q "SMState.*3" && break
		sleep 0.5
	done
	at $sm ibnetdiscover -p 2>/dev/null | awk '{ print $2; print $9 }' |
		grep -E '^[0-9]+$' | grep -v '^0$' | sort -un >"$T/$sm.lids"
	[ -s "$T/$sm.lids" ] || { echo "FAIL: $sm did not bring the fabric up"; exit 1; }
}

# OpenSM may take its time over SIGTERM on a loaded machine: give it 5 s.
stop() {
	kill "$SMPID" "${PIDS[-2]}" 2>/dev/null
	for _ in $(seq 50); do
		kill -0 "$SMPID" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$SMPID" "${PIDS[-2]}" 2>/dev/null
	wait "$SMPID" "${PIDS[-2]}" 2>/dev/null
}

# CPU ticks (user + system) the SM process has used so far.
sm_ticks() { awk '{ print $14 + $15 }' "/proc/$SMPID/stat"; }

run() { # run SM TYPE: CLIENTS clients at H2.., pooled latencies
	local sm=$1 type=$2 i t0 t1 c0 c1
	rm -f "$T/lat.$sm.$type".* "$T/out.$sm.$type".*
	c0=$(sm_ticks)
	t0=$(date +%s.%N)
	local cl=()
	for i in $(seq 2 $((CLIENTS + 1))); do
		lids=$(shuf --random-source=<(yes $i) "$T/$sm.lids" | paste -sd,)
		SIM_HOST=H$i at $sm "$O/tests/sim/sa_load" -t $type -n "$N" -w "$WIN" \
			-l "$lids" -o "$T/lat.$sm.$type.$i" >"$T/out.$sm.$type.$i" 2>&1 &
		cl+=($!)
	done
	wait "${cl[@]}"
	t1=$(date +%s.%N)
	c1=$(sm_ticks)
	cat "$T/lat.$sm.$type".* | sort -n >"$T/lat.$sm.$type"
	SM_CPU_S=$(python3 -c "import os; print(($c1 - $c0) / os.sysconf('SC_CLK_TCK'))") \
	python3 - "$T/lat.$sm.$type" "$t0" "$t1" "$sm" "$type" "$T"/out.$sm.$type.* <<'PY'
import sys, re, os
lat = [int(l) for l in open(sys.argv[1]) if l.strip()]
errs = lost = 0
starts, ends = [], []
for f in sys.argv[6:]:
    txt = open(f).read()
    m = re.search(r"(\d+) errors, (\d+) lost.*span ([\d.]+) ([\d.]+)", txt)
    if m:
        errs += int(m.group(1)); lost += int(m.group(2))
        starts.append(float(m.group(3))); ends.append(float(m.group(4)))
    else: errs += 1; print("  client failed:", txt.strip()[-200:])
# From the first client's first query to the last client's last answer.
t = (max(ends) - min(starts)) if starts else float(sys.argv[3]) - float(sys.argv[2])
p = lambda q: lat[min(len(lat) - 1, int(len(lat) * q))] if lat else 0
cpu = float(os.environ["SM_CPU_S"])
# SM CPU per answered query: under ibsim the simulator, not the SM, bounds
# the rate both SMs reach; the SM's own cost says what it could do.
cpq = cpu * 1e6 / len(lat) if lat else 0
print("%-6s %-10s %7d ok %5d err %5d lost %8.0f q/s  p50 %6d us  p99 %6d us  SM CPU %5.1f us/query (%6.0f q/CPU-s)" %
      (sys.argv[4], sys.argv[5], len(lat), errs, lost, len(lat) / t, p(0.5), p(0.99),
       cpq, 1e6 / cpq if cpq else 0))
with open(sys.argv[1] + ".sum", "w") as o:
    o.write("%f %d %d %d %f\n" % (len(lat) / t, p(0.99), errs, lost, cpq))
PY
}

echo "fabric $NET, $CLIENTS clients x $N Gets, window $WIN"
for sm in osm ibsmd; do
	start $sm
	run $sm path
	run $sm node
	stop
done
python3 - "$T" <<'PY'
import sys
T = sys.argv[1]
s = {}
for sm in ("osm", "ibsmd"):
    for ty in ("path", "node"):
        q, p99, e, l, c = open(f"{T}/lat.{sm}.{ty}.sum").read().split()
        s[sm, ty] = (float(q), int(p99), int(e) + int(l), float(c))
ok = True
for ty in ("path", "node"):
    r = s["ibsmd", ty][0] / max(s["osm", ty][0], 1)
    print("%s: ibsmd/OpenSM throughput %.2fx, p99 %d vs %d us, SM CPU per query %.1f vs %.1f us (%.1fx less)" %
          (ty, r, s["ibsmd", ty][1], s["osm", ty][1], s["ibsmd", ty][3], s["osm", ty][3],
           s["osm", ty][3] / max(s["ibsmd", ty][3], 1e-9)))
r = s["ibsmd", "path"][0] / max(s["osm", "path"][0], 1)
print("target PathRecord >= 2x OpenSM: %s (%.2fx)" % ("met" if r >= 2 else "MISSED", r))
print("target PathRecord p99 <= OpenSM's: %s" %
      ("met" if s["ibsmd", "path"][1] <= s["osm", "path"][1] else "MISSED"))
if s["ibsmd", "path"][2] or s["ibsmd", "node"][2]:
    print("FAIL: ibsmd answered with errors or lost requests"); sys.exit(1)
PY
