# Shared by the multicast benchmarks (mcast.sh, mcast-ncolor.sh), sourced
# after procs.bash: the paths they use and a check of what they run.
# Environment: O (build dir, default build), WORK (scratch, default
# $O/bench-mcast), DOCS (default docs), THREADS (ibsmroute --threads).
TOP=$(cd "$(dirname "$0")/../.." && pwd)
O=${O:-build}
case $O in /*) ;; *) O=$TOP/$O ;; esac
WORK=${WORK:-$O/bench-mcast}
DOCS=${DOCS:-$TOP/docs}
THREADS=${THREADS:-2}
GEN=$O/ibsmgen PAT=$O/ibsmpattern ROUTE=$O/ibsmroute

# Exits with a message unless the built tools and the programs named exist.
mcast_bench_need() {
	local b
	for b in "$GEN" "$PAT" "$ROUTE"; do
		[ -x "$b" ] || { echo "$(basename "$0"): $b missing; run make first" >&2; exit 1; }
	done
	for b in "$@"; do
		command -v "$b" >/dev/null || { echo "$(basename "$0"): needs $b" >&2; exit 1; }
	done
}
