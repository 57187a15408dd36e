#!/bin/bash
# The daemon's own cost of a multicast join from 1,000 to 40,960 hosts
# (tests/bench/join_cost.c: the SA and the multicast manager without a
# transport, one core): a collective join must cost the same whatever the
# fabric's size (no request walks the fabric).  Fabrics: 2-level fat tree
# of 1,024 hosts, 3-level fat trees of 3,456 and 16,000 hosts, and the
# MR4LMS paper's 3-level pruned tree of 40,960 hosts.  Medians of RUNS
# runs of JOINS collective joins, a quarter as many standard joins, and
# the joins of one group of every host (as the IPoIB broadcast group).
# With OLD=<a source tree built with make>, the same bench is also built
# against that tree and run on the same fabrics in the same run (e.g. a
# worktree of the commit before the fabric-wide figures were kept).
#   O=build tests/bench/join_cost.sh [RUNS] [JOINS]
set -eu
O=${O:-build}
RUNS=${1:-3}
JOINS=${2:-20000}
TMP=$(mktemp -d)
. "$(dirname "$0")/../procs.bash"
procs_guard 'rm -rf "$TMP"'
[ -f "$O/libibsmdaemon.a" ] && [ -x "$O/ibsmgen" ] || { echo "build first (make)"; exit 1; }
LIBS="$(pkg-config --libs yaml-0.1 libsystemd libibumad) -lm"
SRC=$(cd "$(dirname "$0")" && pwd)/join_cost.c
build() { # TREE BUILD OUT
	(cd "$1" && cc -std=gnu11 -O2 -I. -D_GNU_SOURCE -pthread -o "$3" "$SRC" \
		"$2/libibsmdaemon.a" "$2/libibsmrouting.a" "$2/libibsmmad.a" \
		"$2/libibsm.a" $LIBS)
}
build . "$(cd "$O" && pwd)" "$TMP/jc"
kinds=new
if [ -n "${OLD:-}" ]; then build "$OLD" "$OLD/build" "$TMP/jc_old" && kinds="new old"; fi
"$O/ibsmgen" fattree2 --hosts 1024 -o "$TMP/f1k.net" 2>/dev/null
"$O/ibsmgen" fattree3 --k 24 -o "$TMP/f3k.net" 2>/dev/null
"$O/ibsmgen" fattree3 --k 40 -o "$TMP/f16k.net" 2>/dev/null
"$O/ibsmgen" pruned3 --pods 40 --leaves 32 --hosts-per-leaf 32 --middles 8 \
	--tops 32 --uplinks 16 -o "$TMP/f40k.net" 2>/dev/null
echo "load $(cut -d' ' -f1-3 /proc/loadavg); $RUNS runs of $JOINS collective and $((JOINS / 4)) standard joins"
printf "%-8s %8s %8s %14s %14s %14s\n" build hosts nodes "collective_us" "standard_us" "all_hosts_us"
for net in f1k f3k f16k f40k; do
	for k in $kinds; do
		bin=$TMP/jc; [ $k = old ] && bin=$TMP/jc_old
		for r in $(seq "$RUNS"); do "$bin" "$TMP/$net.net" "$JOINS"; done >"$TMP/$net.$k"
		awk -v k=$k '{ h = $1; n = $3; c[NR] = $7; s[NR] = $15; a[NR] = $(NF - 3) }
			function med(v, n,   i, j, t) {
				for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
					if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
				return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
			END { printf "%-8s %8s %8s %14.2f %14.2f %14.2f\n", k, h, n,
				med(c, NR), med(s, NR), med(a, NR) }' \
			"$TMP/$net.$k"
	done
done
