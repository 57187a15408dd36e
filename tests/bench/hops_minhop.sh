#!/bin/bash
# Hop tables + minhop LFTs for the 16,000-host 3-level fat tree (k = 40,
# 2,000 switches of 40 ports), target under 1 s of compute on 2 cores.
# Prints each run and the medians of 3 runs: wall time of hop tables, of
# the LFTs, their sum and its CPU time, the LFT walk (not part of the
# target), and the peak RSS of the process (topology, LIDs, hop table,
# LFTs, walk).  Then one full ibsmroute run for the whole-tool figures.
#   O=build tests/bench/hops_minhop.sh [K] [THREADS]
set -eu
O=${O:-build}
K=${1:-40}
THREADS=${2:-2}
TMP=$(mktemp -d)
. "$(dirname "$0")/../procs.bash"
procs_guard 'rm -rf "$TMP"'
[ -x "$O/ibsmgen" ] && [ -f "$O/libibsmrouting.a" ] || { echo "build first (make)"; exit 1; }
"$O/ibsmgen" fattree3 --k "$K" -o "$TMP/ft3.net"
cc -std=gnu11 -O2 -I. -D_GNU_SOURCE -pthread -o "$TMP/hm" tests/bench/hops_minhop.c \
	"$O/libibsmrouting.a" "$O/libibsm.a" -lm
for i in 1 2 3; do
	"$TMP/hm" "$TMP/ft3.net" "$THREADS" | tee -a "$TMP/runs"
done
python3 - "$TMP/runs" <<'PY'
import sys, statistics
runs = [dict(kv.split("=") for kv in l.split()) for l in open(sys.argv[1])]
med = lambda k: statistics.median(float(r[k]) for r in runs)
print("median of %d: hops %.3f s + LFTs %.3f s = %.3f s wall (%.3f s CPU), "
      "LFT walk %.3f s, peak RSS %.0f MB" % (len(runs), med("hops_s"),
      med("lfts_s"), med("total_s"), med("total_cpu_s"), med("verify_s"),
      med("peak_rss_mb")))
PY
/usr/bin/time -f "ibsmroute whole run: %e s wall, %U s user, peak RSS %M KB" \
	"$O/ibsmroute" "$TMP/ft3.net" --threads "$THREADS" --json "$TMP/r.json" 2>&1 |
	grep -v '^ibsmroute: [a-zA-Z ]* (' || true
cat "$TMP/r.json"
