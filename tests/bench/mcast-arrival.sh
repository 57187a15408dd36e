#!/bin/bash
# MR4LMS in arrival order, as the daemon routes: groups one by one in file
# order, no forecast (IBSM_MC_FILE_ORDER=1 IBSM_MC_NO_FORECAST=1), on the
# benchmark's pressured fabrics and on a family of other trees, patterns
# and MFT sizes.  Each case prints the max EFI with no limit, then for
# this build (O) and, with BASE, an earlier build on the same files: max
# EFI, its ratio to the unlimited one, max TFI, mean TFI, and the median
# seconds of RUNS runs; last, the geometric mean and the worst of the
# ratios over all cases.
#
#   tests/bench/mcast-arrival.sh [--base BUILD_DIR] [--runs N] [--only REGEX]
# Environment: O (build dir, default build), WORK (default
# $O/bench-mcast), THREADS.  Writes $WORK/arrival.tsv.
set -euo pipefail
. "$(dirname "$0")/../procs.bash"
procs_guard

. "$(dirname "$0")/mcast-env.bash"
BASE='' RUNS=3 ONLY=.
while [ $# -gt 0 ]; do
	case $1 in
	--base) BASE=$2; shift ;;
	--runs) RUNS=$2; shift ;;
	--only) ONLY=$2; shift ;;
	*) echo "usage: $0 [--base BUILD_DIR] [--runs N] [--only REGEX]" >&2; exit 2 ;;
	esac
	shift
done
mcast_bench_need jq
[ -z "$BASE" ] || [ -x "$BASE/ibsmroute" ] ||
	{ echo "$0: $BASE/ibsmroute missing" >&2; exit 1; }
mkdir -p "$WORK/arrival"
OUT=$WORK/arrival.tsv
: >"$OUT"

# case id | ibsmgen arguments | ibsmpattern arguments | MFT size
cases() {
	local bl="pruned --hosts 8704 --radix 64 --uplinks 8"
	local th="pruned --hosts 40960 --radix 64 --uplinks 2"
	local p3bl="pruned3 --pods 8 --leaves 34 --hosts-per-leaf 32 --middles 4 --tops 16 --uplinks 8"
	local p3blb="pruned3 --pods 16 --leaves 17 --hosts-per-leaf 32 --middles 4 --tops 16 --uplinks 8"
	local p3blc="pruned3 --pods 4 --leaves 68 --hosts-per-leaf 32 --middles 8 --tops 16 --uplinks 8"
	# the benchmark's fabrics and patterns (tests/bench/mcast.sh)
	echo "p3bl|$p3bl|grid 64x16x34 --ppn 4|128"
	echo "p3bl-b|$p3blb|grid 64x16x34 --ppn 4|128"
	echo "p3bl-c|$p3blc|grid 64x16x34 --ppn 4|128"
	echo "p3th|pruned3 --pods 40 --leaves 32 --hosts-per-leaf 32 --middles 8 --tops 32 --uplinks 16|grid 128x32x40 --ppn 4|128"
	echo "p3th-b|pruned3 --pods 40 --leaves 32 --hosts-per-leaf 32 --middles 4 --tops 16 --uplinks 8|grid 128x32x40 --ppn 4|128"
	echo "p3th-c|pruned3 --pods 160 --leaves 8 --hosts-per-leaf 32 --middles 4 --tops 16 --uplinks 4|grid 128x32x40 --ppn 4|128"
	echo "th40960|$th|grid 128x32x40 --ppn 4|128"
	echo "bl8704|$bl|grid 64x16x34 --ppn 4|128"
	echo "ft40|fattree3 --k 40|grid 40x20x20|128"
	echo "df|dragonfly --a 18 --p 9 --h 9|grid 81x27x12|256"
	echo "rnd|random --switches 2048 --ports 40 --hosts-per-switch 20 --seed 1|grid 256x160|256"
	# other sizes of MFT, patterns and trees
	echo "p3bl@96|$p3bl|grid 64x16x34 --ppn 4|96"
	echo "p3bl@192|$p3bl|grid 64x16x34 --ppn 4|192"
	echo "p3bl-b@96|$p3blb|grid 64x16x34 --ppn 4|96"
	echo "p3bl-c@64|$p3blc|grid 64x16x34 --ppn 4|64"
	echo "p3bl-32x32x34|$p3bl|grid 32x32x34 --ppn 4|128"
	echo "p3bl-ppn2@64|$p3bl|grid 64x16x17 --ppn 2|64"
	echo "p3bl-2d@64|$p3bl|grid 128x68|64"
	echo "p3bl-c-ppn8|$p3blc|grid 64x32x34 --ppn 8|128"
	echo "p3-6pods|pruned3 --pods 6 --leaves 40 --hosts-per-leaf 32 --middles 4 --tops 16 --uplinks 8|grid 64x16x30 --ppn 4|128"
	echo "p3-12pods|pruned3 --pods 12 --leaves 24 --hosts-per-leaf 24 --middles 6 --tops 12 --uplinks 4|grid 48x24x24 --ppn 4|128"
	echo "bl8704@64|$bl|grid 64x16x34 --ppn 4|64"
	echo "bl8704-32x32x34|$bl|grid 32x32x34 --ppn 4|128"
	echo "ft40@32|fattree3 --k 40|grid 40x20x20|32"
	echo "df@64|dragonfly --a 18 --p 9 --h 9|grid 81x27x12|64"
	echo "rnd@64|random --switches 2048 --ports 40 --hosts-per-switch 20 --seed 1|grid 256x160|64"
}

div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# prints "max_efi max_tfi mean_tfi seconds" of one verified run
route_once() { # ibsmroute topo events mft
	IBSM_MC_FILE_ORDER=1 IBSM_MC_NO_FORECAST=1 "$1" "$2" --groups "$3" \
		--mft-size "$4" --threads "$THREADS" --json - 2>/dev/null |
		jq -r '.multicast | if .verified then
			"\(.max_efi) \(.max_tfi) \(.avg_tfi * 100 | round / 100) \(.seconds)"
			else error("not verified") end'
}

# "max_efi max_tfi mean_tfi median_seconds" over RUNS runs
measure() { # ibsmroute topo events mft
	local i efi tfi mtfi s secs=()
	for ((i = 0; i < RUNS; i++)); do
		read -r efi tfi mtfi s <<<"$(route_once "$@")"
		secs+=("$s")
	done
	s=$(printf '%s\n' "${secs[@]}" | sort -g | sed -n "$(((RUNS + 1) / 2))p")
	echo "$efi $tfi $mtfi $(printf '%.2f' "$s")"
}

printf '%-16s %6s | %-26s' case "no lim" "this build: EFI (x) TFI/mean s"
[ -z "$BASE" ] || printf ' | %-26s | %s' "base: EFI (x) TFI/mean s" "this/base"
echo
T0=$(date +%s)
while IFS='|' read -r id gen pat mft; do
	[[ $id =~ $ONLY ]] || continue
	key=$(echo "$gen $pat" | md5sum | cut -c1-12)
	tf=$WORK/arrival/${id%@*}.topo pf=$WORK/arrival/$key.ev
	# shellcheck disable=SC2086
	[ -s "$tf" ] || "$GEN" $gen -o "$tf"
	# shellcheck disable=SC2086
	[ -s "$pf" ] || "$PAT" "$tf" $pat -o "$pf" 2>/dev/null
	read -r e0 _ <<<"$(route_once "$ROUTE" "$tf" "$pf" 0)"
	read -r e t mt s <<<"$(measure "$ROUTE" "$tf" "$pf" "$mft")"
	line=$(printf '%-16s %6s | %5s (x%s) %4s/%-5s %5s' "$id" "$e0" "$e" \
		"$(div "$e" "$e0")" "$t" "$mt" "$s")
	row="$id	$mft	$e0	$e	$t	$mt	$s"
	if [ -n "$BASE" ]; then
		read -r be bt bmt bs <<<"$(measure "$BASE/ibsmroute" "$tf" "$pf" "$mft")"
		line+=$(printf ' | %5s (x%s) %4s/%-5s %5s | x%s' "$be" \
			"$(div "$be" "$e0")" "$bt" "$bmt" "$bs" "$(div "$e" "$be")")
		row+="	$be	$bt	$bmt	$bs"
	fi
	echo "$line"
	echo "$row" >>"$OUT"
done < <(cases)
# geometric mean and worst of max EFI / unlimited max EFI over the cases
for col in 4 8; do
	[ $col = 8 ] && [ -z "$BASE" ] && continue
	awk -F'\t' -v c=$col -v who="$([ $col = 4 ] && echo "this build" || echo base)" '
		{ r = $c / $3; s += log(r); n++; if (r > w) { w = r; wc = $1 } }
		END { if (n) printf "%s: geometric mean of max EFI / no limit x%.2f, worst x%.2f (%s), %d cases\n",
			who, exp(s / n), w, wc, n }' "$OUT"
done
echo "mcast-arrival.sh: done in $(($(date +%s) - T0)) s; $OUT" >&2
