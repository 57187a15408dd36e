#!/bin/bash
# Multicast benchmark: every engine (minhop, minhop-rr, sssp, sssp-rr, fulb,
# mr4lms) on the papers' topologies and patterns through the offline planner
# (ibsmroute --groups), writing docs/benchmarks.md and docs/mcast-*.png.
#
#   tests/bench/mcast.sh [--full] [--reps N] [--only TOPO] [--pattern PAT]
#                        [--engines "E..."] [--append] [--no-docs]
#
# Default: the papers' fat tree, dragonfly and random network, both
# 2-level pruned trees and six 3-level pruned trees (ibsmgen pruned3, at
# the two Sunway scales) with their headline patterns, plus a scaled-down
# torus — about 15 minutes on 2 cores.  The paper-scale torus:
#   tests/bench/mcast.sh --only torus --append [--engines "..."]
# --full: all six topologies at the papers' scale and every pattern.
# --only/--pattern restrict the runs; --append adds them to the results of
# an earlier run in the same WORK (e.g. one paper-scale torus pattern added
# to the default set) and regenerates the report from everything.
# Timing: multicast "seconds" of the JSON report (routing only, no parsing
# or unicast); fulb and mr4lms are run --reps times (default 3) on the
# timing cases (fulb unlimited, mr4lms at the recommended MFT size) and the
# median is reported; the per-group median comes from ibsmroute itself.
# The machine's load average is recorded: on a shared machine totals (not
# per-group medians) grow with it.  Peak RSS by /usr/bin/time.
# Environment: O (build dir, default build), WORK (scratch, default
# $O/bench-mcast), DOCS (default docs), THREADS (ibsmroute --threads),
# RUN_TIMEOUT (seconds per run, default 120, 1800 with --full; a run that
# is killed shows as "timeout" in the tables).
set -euo pipefail
. "$(dirname "$0")/../procs.bash"
procs_guard

. "$(dirname "$0")/mcast-env.bash"
RUN_TIMEOUT=${RUN_TIMEOUT:-} # seconds per ibsmroute run (default 120, --full 1800)
ARGS="$*"
ENGINES="minhop minhop-rr sssp sssp-rr fulb mr4lms"
FULL=0
REPS=3
ONLY=
ONLYPAT=
APPEND=0
NODOCS=0
while [ $# -gt 0 ]; do
	case $1 in
	--full) FULL=1 ;;
	--reps) REPS=$2; shift ;;
	--only) ONLY=$2; shift ;;
	--pattern) ONLYPAT=$2; shift ;;
	--append) APPEND=1 ;;
	--engines) ENGINES=$2; shift ;;
	--no-docs) NODOCS=1 ;;
	*) echo "usage: $0 [--full] [--reps N] [--only TOPO] [--pattern PAT] [--engines LIST] [--append] [--no-docs]" >&2; exit 2 ;;
	esac
	shift
done

[ -n "$RUN_TIMEOUT" ] || RUN_TIMEOUT=$([ $FULL = 1 ] && echo 1800 || echo 120)
mcast_bench_need jq gnuplot /usr/bin/time
mkdir -p "$WORK/topo" "$WORK/pat" "$WORK/runs"
RESULTS=$WORK/results.tsv
TOPOS_TSV=$WORK/topologies.tsv
if [ $APPEND = 0 ]; then
	: >"$RESULTS"
	: >"$TOPOS_TSV"
fi

# ---- topologies: id | ibsmgen arguments | recommended MFT size | label ----
# Recommended Ncolor (MR4LMS paper §4.5, Table 4 lost with the figures):
# 128 for the fat tree and pruned trees (stated in the text); 256 for the
# torus and the random network (the text quotes Ncolor=256 for both);
# 256 for the dragonfly (not stated; chosen like the other non-tree ones).
topologies() {
	echo "ft40|fattree3 --k 40|128|3-level fat tree, 40-port, 16,000 hosts (paper)"
	echo "bl8704|pruned --hosts 8704 --radix 64 --uplinks 8|128|pruned fat tree, 8,704 hosts, 8 paths (Sunway BlueLight model)"
	echo "th40960|pruned --hosts 40960 --radix 64 --uplinks 2|128|pruned fat tree, 40,960 hosts, 2 paths (Sunway TaihuLight model)"
	echo "df|dragonfly --a 18 --p 9 --h 9|256|dragonfly a=18 p=h=9, 26,406 hosts (paper)"
	echo "rnd|random --switches 2048 --ports 40 --hosts-per-switch 20 --seed 1|256|random, 2,048 40-port switches, 40,960 hosts (paper)"
	# 3-level pruned fat trees (pods of leaves under pod middles, middles
	# trunked to tops, M*U/T paths leaf -> top), at the Sunway machines'
	# two scales, three shapes each
	echo "p3bl|pruned3 --pods 8 --leaves 34 --hosts-per-leaf 32 --middles 4 --tops 16 --uplinks 8|128|3-level pruned, 8 pods x 34 leaves x 32 hosts, 4 middles/pod, 16 tops, 2 paths (8,704 hosts)"
	echo "p3bl-b|pruned3 --pods 16 --leaves 17 --hosts-per-leaf 32 --middles 4 --tops 16 --uplinks 8|128|3-level pruned, 16 pods x 17 leaves x 32 hosts, 4 middles/pod, 16 tops, 2 paths (8,704 hosts)"
	echo "p3bl-c|pruned3 --pods 4 --leaves 68 --hosts-per-leaf 32 --middles 8 --tops 16 --uplinks 8|128|3-level pruned, 4 pods x 68 leaves x 32 hosts, 8 middles/pod, 16 tops, 4 paths (8,704 hosts)"
	echo "p3th|pruned3 --pods 40 --leaves 32 --hosts-per-leaf 32 --middles 8 --tops 32 --uplinks 16|128|3-level pruned, 40 pods x 32 leaves x 32 hosts, 8 middles/pod, 32 tops, 4 paths (40,960 hosts)"
	echo "p3th-b|pruned3 --pods 40 --leaves 32 --hosts-per-leaf 32 --middles 4 --tops 16 --uplinks 8|128|3-level pruned, 40 pods x 32 leaves x 32 hosts, 4 middles/pod, 16 tops, 2 paths (40,960 hosts)"
	echo "p3th-c|pruned3 --pods 160 --leaves 8 --hosts-per-leaf 32 --middles 4 --tops 16 --uplinks 4|128|3-level pruned, 160 pods x 8 leaves x 32 hosts, 4 middles/pod, 16 tops, 1 path (40,960 hosts)"
	if [ $FULL = 1 ] || [ "$ONLY" = torus ]; then
		echo "torus|torus 30 20 20 --hosts-per-switch 2|256|3-D torus 30x20x20, 2 hosts/switch, 24,000 hosts (paper)"
	else
		# the paper-scale torus costs about a minute of unicast routing
		# per ibsmroute run: add it with --only torus --append
		echo "torus-s|torus 10 10 8 --hosts-per-switch 2|256|3-D torus 10x10x8, 2 hosts/switch, 1,600 hosts (scaled down)"
	fi
}

# ---- patterns per topology: id | ibsmpattern arguments | timing case ----
# Grid placement is sequential (topology order) unless "shuf"; the papers'
# "topology-unaware" grids are square/cubic shapes laid sequentially, our
# shuffled ones are a stronger unaware case (random placement, seed 1).
patterns() {
	case $1 in
	ft40)
		echo "160x100|grid 160x100|0"
		echo "40x20x20|grid 40x20x20|1"
		echo "25x25x25-shuf|grid 25x25x25 --shuffle 1|0"
		if [ $FULL = 1 ]; then
			echo "25x25x25|grid 25x25x25|0"
			echo "random|random --count 1000 --size 2-64 --seed 1|0"
			echo "64x25x40-ppn4|grid 64x25x40 --ppn 4|0"
		fi
		;;
	bl8704)
		echo "256x34|grid 256x34|0"
		echo "90x90|grid 90x90|0"
		echo "64x16x34-ppn4|grid 64x16x34 --ppn 4|0"
		[ $FULL = 1 ] && echo "90x90-shuf|grid 90x90 --shuffle 1|0"
		;;
	th40960)
		echo "128x32x40-ppn4|grid 128x32x40 --ppn 4|1"
		[ $FULL = 1 ] && echo "34x34x34|grid 34x34x34|0"
		[ $FULL = 1 ] && echo "256x160|grid 256x160|0"
		;;
	torus)
		echo "240x100|grid 240x100|1"
		[ $FULL = 1 ] && echo "60x20x20|grid 60x20x20|0"
		[ $FULL = 1 ] && echo "28x28x28|grid 28x28x28|0"
		[ $FULL = 1 ] && echo "28x28x28-shuf|grid 28x28x28 --shuffle 1|0"
		;;
	df)
		echo "81x27x12|grid 81x27x12|1"
		[ $FULL = 1 ] && echo "29x29x29-shuf|grid 29x29x29 --shuffle 1|0"
		[ $FULL = 1 ] && echo "162x163|grid 162x163|0"
		;;
	rnd)
		echo "256x160|grid 256x160|1"
		[ $FULL = 1 ] && echo "32x32x40|grid 32x32x40|0"
		[ $FULL = 1 ] && echo "128x32x40-ppn4|grid 128x32x40 --ppn 4|0"
		;;
	p3bl)
		echo "64x16x34-ppn4|grid 64x16x34 --ppn 4|1"
		[ $FULL = 1 ] && echo "90x90|grid 90x90|0"
		;;
	p3bl-*)
		echo "64x16x34-ppn4|grid 64x16x34 --ppn 4|0"
		;;
	p3th)
		echo "128x32x40-ppn4|grid 128x32x40 --ppn 4|1"
		[ $FULL = 1 ] && echo "34x34x34|grid 34x34x34|0"
		;;
	p3th-*)
		echo "128x32x40-ppn4|grid 128x32x40 --ppn 4|0"
		;;
	torus-s)
		echo "40x40|grid 40x40|0"
		echo "20x10x8|grid 20x10x8|1"
		echo "12x12x11-shuf|grid 12x12x11 --shuffle 1|0"
		;;
	esac
}


# One ibsmroute run; appends a TSV row:
# topo pattern engine mft rep groups colors trees merged max_efi avg_efi
# max_tfi avg_tfi max_hexcess seconds ms_per_group median_ms_per_group
# verified rss_kb status
run_one() {
	local topo=$1 pat=$2 eng=$3 mft=$4 rep=$5
	local base=$WORK/runs/$topo.$pat.$eng.$mft.$rep
	local st=ok rc=0
	/usr/bin/time -f %M -o "$base.rss" timeout "$RUN_TIMEOUT" "$ROUTE" \
		"$WORK/topo/$topo.topo" --mcast-engine "$eng" --mft-size "$mft" \
		--threads "$THREADS" --groups "$WORK/pat/$topo.$pat.ev" \
		--json "$base.json" >"$base.out" 2>"$base.err" || rc=$?
	case $rc in 0) ;; 124) st=timeout ;; *) st=failed ;; esac
	local rss
	rss=$(tail -1 "$base.rss" 2>/dev/null || echo 0)
	if [ -s "$base.json" ] && jq -e .multicast "$base.json" >/dev/null 2>&1; then
		jq -r --arg t "$topo" --arg p "$pat" --arg e "$eng" --arg m "$mft" \
			--arg r "$rep" --arg rss "$rss" --arg st "$st" \
			'.multicast | [$t, $p, $e, $m, $r, .groups, .colors_used, .trees,
			 .merged_groups, .max_efi, .avg_efi, .max_tfi, .avg_tfi,
			 .max_height_excess, .seconds, .ms_per_group, .median_ms_per_group,
			 .verified, $rss, $st] | @tsv' \
			"$base.json" >>"$RESULTS"
	else
		printf '%s\t%s\t%s\t%s\t%s\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t%s\t%s\n' \
			"$topo" "$pat" "$eng" "$mft" "$rep" "$rss" "$st" >>"$RESULTS"
		[ $st = ok ] && st=failed
		echo "mcast.sh: $topo $pat $eng mft=$mft $st: $(tail -2 "$base.err" | tr '\n' ' ')" >&2
	fi
}

# True when the first run of (topo, pattern, engine, mft) routed in < 30 s.
quick() {
	local j=$WORK/runs/$1.$2.$3.$4.1.json
	[ -s "$j" ] && jq -e '.multicast.seconds < 30' "$j" >/dev/null 2>&1
}

T0=$(date +%s)
if [ $APPEND = 0 ]; then
	: >"$WORK/load.txt"
	: >"$WORK/wall.txt"
fi
cut -d' ' -f1 /proc/loadavg >>"$WORK/load.txt"
while IFS='|' read -r topo genargs rec label; do
	[ -n "$ONLY" ] && [ "$ONLY" != "$topo" ] && continue
	grep -q "^$topo	" "$TOPOS_TSV" ||
		printf '%s\t%s\t%s\t%s\n' "$topo" "$genargs" "$rec" "$label" >>"$TOPOS_TSV"
	tf=$WORK/topo/$topo.topo
	# shellcheck disable=SC2086
	if [ ! -s "$tf" ] && ! "$GEN" $genargs -o "$tf"; then
		echo "mcast.sh: ibsmgen $genargs failed; $topo skipped" >&2
		rm -f "$tf"
		continue
	fi
	while IFS='|' read -r pat patargs timing; do
		[ -n "$ONLYPAT" ] && [ "$ONLYPAT" != "$pat" ] && continue
		pf=$WORK/pat/$topo.$pat.ev
		# shellcheck disable=SC2086
		if [ ! -s "$pf" ] && ! "$PAT" "$tf" $patargs -o "$pf" 2>"$pf.err"; then
			echo "mcast.sh: ibsmpattern $patargs failed: $(cat "$pf.err"); skipped" >&2
			rm -f "$pf"
			continue
		fi
		echo "mcast.sh: [$(( $(date +%s) - T0 ))s] $topo $pat ($(wc -l <"$pf") groups)" >&2
		for eng in $ENGINES; do
			run_one "$topo" "$pat" "$eng" 0 1
		done
		case " $ENGINES " in *" mr4lms "*) run_one "$topo" "$pat" mr4lms "$rec" 1 ;; esac
		if [ "$timing" = 1 ]; then
			for r in $(seq 2 "$REPS"); do
				for em in "fulb 0" "mr4lms $rec"; do
					case " $ENGINES " in *" ${em%% *} "*) ;; *) continue ;; esac
					# shellcheck disable=SC2086
					set -- $em
					# long runs vary little: repeat only short ones
					quick "$topo" "$pat" "$1" "$2" && run_one "$topo" "$pat" "$1" "$2" "$r"
				done
			done
		fi
	done < <(patterns "$topo")
done < <(topologies)
cut -d' ' -f1 /proc/loadavg >>"$WORK/load.txt"
printf '%s\t%s\n' "$(( $(date +%s) - T0 ))" "tests/bench/mcast.sh${ARGS:+ $ARGS}" >>"$WORK/wall.txt"
echo "mcast.sh: runs done in $(( $(date +%s) - T0 )) s; results in $RESULTS" >&2

[ $NODOCS = 1 ] && exit 0
mkdir -p "$DOCS"
python3 "$TOP/tests/bench/mcast-report.py" "$RESULTS" "$TOPOS_TSV" "$DOCS" "$WORK"
