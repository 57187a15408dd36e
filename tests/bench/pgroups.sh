#!/bin/bash
# Port-group benchmark (ibsmroute --port-groups, offline).  Per fabric and
# cap: distinct multi-port candidate sets per switch (max, mean), groups
# used, coverage of the multi-path (switch, LID) pairs with subsets and
# with the whole-sets baseline (--pg-whole-sets, the peer measured in the
# same run), computation time (median of REPS runs) and its ratio to the
# unicast routing time of the same runs, and the SMPs/bytes ibsmd sends to
# program the tables on switches that held none.
#
#   O=build tests/bench/pgroups.sh [--reps N] [--small] [--routing R]
#
# Default fabrics are the papers' sizes: the 16,000-host fat tree
# (fattree3 --k 40), the 3-D torus 30x20x20 with 2 hosts per switch, the
# dragonfly a=18 p=h=9 and the random network of 2,048 40-port switches;
# --small uses scaled-down ones (a minute in all).  Prints a Markdown table.
set -u
O=${O:-build}
reps=3 small=0 routing=minhop
while [ $# -gt 0 ]; do
	case $1 in
	--reps) reps=$2; shift ;;
	--small) small=1 ;;
	--routing) routing=$2; shift ;;
	*) echo "usage: $0 [--reps N] [--small] [--routing minhop|updown]" >&2; exit 2 ;;
	esac
	shift
done
W=$(mktemp -d "${TMPDIR:-/tmp}/pgroups-bench.XXXXXX")
. "$(dirname "$0")/../procs.bash"
procs_guard 'rm -rf "$W"'

if [ $small = 1 ]; then
	fabrics=("ft-k16|fattree3 --k 16" "torus-8x8x8|torus 8 8 8 --hosts-per-switch 2"
		 "df-a8|dragonfly --a 8 --p 4 --h 4"
		 "rnd-256|random --switches 256 --ports 24 --hosts-per-switch 8 --seed 1"
		 "rnd-64|random --switches 64 --ports 12 --hosts-per-switch 4 --seed 1")
else
	fabrics=("ft-16k|fattree3 --k 40" "torus-30x20x20|torus 30 20 20 --hosts-per-switch 2"
		 "df-a18|dragonfly --a 18 --p 9 --h 9"
		 "rnd-2048|random --switches 2048 --ports 40 --hosts-per-switch 20 --seed 1"
		 "rnd-64|random --switches 64 --ports 12 --hosts-per-switch 4 --seed 1")
fi
caps=(255 64 16 8)

# One ibsmroute run -> "pg_seconds unicast_seconds" and the JSON kept.
run() { # net cap extra json
	"$O/ibsmroute" "$1" --routing "$routing" --port-groups --pg-cap "$2" $3 \
		--json "$4" >/dev/null 2>"$4.err" || { cat "$4.err" >&2; return 1; }
}
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]][sys.argv[3]])' "$@"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "ibsmroute --routing $routing --port-groups; medians of $reps runs; $(nproc) CPUs; load $(cut -d' ' -f1 /proc/loadavg)"
echo
echo "| fabric | switches | cap | sets/switch max | sets/switch mean | groups max | coverage | whole sets | pg s | pg / unicast | SMPs | MB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for fab in "${fabrics[@]}"; do
	name=${fab%%|*}
	# shellcheck disable=SC2086
	"$O/ibsmgen" ${fab#*|} -o "$W/$name.net" || exit 1
	for cap in "${caps[@]}"; do
		: >"$W/t"
		for r in $(seq "$reps"); do
			run "$W/$name.net" "$cap" "" "$W/$name-$cap.json" || exit 1
			echo "$(field "$W/$name-$cap.json" port_groups seconds) $(field "$W/$name-$cap.json" unicast seconds)" >>"$W/t"
		done
		pg=$(awk '{ print $1 }' "$W/t" | median)
		ratio=$(awk '{ print $1 / $2 }' "$W/t" | median)
		run "$W/$name.net" "$cap" --pg-whole-sets "$W/$name-$cap-w.json" || exit 1
		j=$W/$name-$cap.json
		python3 - "$j" "$W/$name-$cap-w.json" "$name" "$cap" "$pg" "$ratio" <<'PY'
import json, sys
a = json.load(open(sys.argv[1])); w = json.load(open(sys.argv[2]))
p, t = a["port_groups"], a["topology"]
print("| %s | %d | %s | %d | %.1f | %d | %.3f | %.3f | %.3f | %.2f | %d | %.1f |" % (
    sys.argv[3], t["switches"], sys.argv[4], p["max_sets_per_switch"],
    p["avg_sets_per_switch"], p["max_groups_per_switch"], p["coverage"],
    w["port_groups"]["coverage"], float(sys.argv[5]), float(sys.argv[6]),
    p["smps_to_program"], p["bytes_to_program"] / 1e6))
PY
	done
done
