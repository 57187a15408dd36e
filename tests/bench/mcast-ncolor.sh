#!/bin/bash
# Max EFI against Ncolor (the MR4LMS paper's Fig. 8) for one 3-level
# pruned fat tree and one random fabric, at the paper's scale and with its
# patterns for that figure (34x34x34 on the TaihuLight-like tree, 32x32x40
# on the random network): MR4LMS at each MFT size, as the offline planner
# routes (shapes in turn, with the unlimited trial as forecast) and in file
# order without a forecast (as the daemon routes groups arriving one by
# one).  Writes $WORK/ncolor.tsv, docs/mcast-ncolor.png, and regenerates
# docs/benchmarks.md from the last tests/bench/mcast.sh results in WORK.
#
#   tests/bench/mcast-ncolor.sh [--sizes "0 768 512 ..."]
# Environment: O (build dir, default build), WORK (default
# $O/bench-mcast, shared with mcast.sh), DOCS (default docs), THREADS.
set -euo pipefail
. "$(dirname "$0")/../procs.bash"
procs_guard

. "$(dirname "$0")/mcast-env.bash"
SIZES="0 768 512 384 256 192 128 96 64 48 32"
while [ $# -gt 0 ]; do
	case $1 in
	--sizes) SIZES=$2; shift ;;
	*) echo "usage: $0 [--sizes \"N...\"]" >&2; exit 2 ;;
	esac
	shift
done
mcast_bench_need jq gnuplot
mkdir -p "$WORK/ncolor"
OUT=$WORK/ncolor.tsv
: >"$OUT"

# fabric id | ibsmgen arguments | pattern id | ibsmpattern arguments
fabrics() {
	echo "p3th|pruned3 --pods 40 --leaves 32 --hosts-per-leaf 32 --middles 8 --tops 32 --uplinks 16|34x34x34|grid 34x34x34"
	echo "rnd|random --switches 2048 --ports 40 --hosts-per-switch 20 --seed 1|32x32x40|grid 32x32x40"
}

T0=$(date +%s)
while IFS='|' read -r fab gen pat patargs; do
	tf=$WORK/ncolor/$fab.topo pf=$WORK/ncolor/$fab.$pat.ev
	# shellcheck disable=SC2086
	[ -s "$tf" ] || "$GEN" $gen -o "$tf"
	# shellcheck disable=SC2086
	[ -s "$pf" ] || "$PAT" "$tf" $patargs -o "$pf" 2>/dev/null
	for n in $SIZES; do
		for mode in planner fileorder; do
			[ "$n" = 0 ] && [ $mode = fileorder ] && continue
			j=$WORK/ncolor/$fab.$pat.$n.$mode.json
			if [ $mode = planner ]; then
				"$ROUTE" "$tf" --groups "$pf" --mft-size "$n" --threads "$THREADS" \
					--json "$j" >/dev/null 2>"$j.err"
			else
				IBSM_MC_FILE_ORDER=1 IBSM_MC_NO_FORECAST=1 "$ROUTE" "$tf" --groups "$pf" \
					--mft-size "$n" --threads "$THREADS" --json "$j" >/dev/null 2>"$j.err"
			fi
			jq -r --arg f "$fab" --arg p "$pat" --arg n "$n" --arg m "$mode" \
				'.multicast | select(.verified) | [$f, $p, $n, $m, .max_efi, .max_tfi,
				 (.avg_tfi * 100 | round / 100), (.seconds * 100 | round / 100)] | @tsv' \
				"$j" >>"$OUT"
			echo "mcast-ncolor.sh: [$(( $(date +%s) - T0 ))s] $fab $pat Ncolor $n $mode: $(tail -1 "$OUT" | cut -f5-)" >&2
		done
	done
done < <(fabrics)
# the unlimited run is the same for both modes
awk -F'\t' 'BEGIN { OFS = "\t" } $3 == 0 { print; $4 = "fileorder"; print; next } { print }' \
	"$OUT" >"$OUT.tmp" && mv "$OUT.tmp" "$OUT"

# one file per curve, x ascending (no limit drawn at the right edge)
for fab in p3th rnd; do
	for mode in planner fileorder; do
		awk -F'\t' -v f=$fab -v m=$mode '$1 == f && $4 == m { print ($3 == 0 ? 1200 : $3), $5 }' \
			"$OUT" | sort -n >"$WORK/ncolor-$fab-$mode.dat"
	done
done
gnuplot -e "dir='$WORK'; out='$DOCS/mcast-ncolor.png'" "$TOP/tests/bench/mcast-ncolor.gp"
echo "mcast-ncolor.sh: done in $(( $(date +%s) - T0 )) s; $DOCS/mcast-ncolor.png" >&2
if [ -s "$WORK/results.tsv" ] && [ -s "$WORK/topologies.tsv" ]; then
	python3 "$TOP/tests/bench/mcast-report.py" "$WORK/results.tsv" "$WORK/topologies.tsv" "$DOCS" "$WORK"
fi
