#!/bin/bash
# up/down benchmark.  Per fabric: max and mean hops (CA to CA, links),
# max link load (CA-to-CA routes over the busiest switch-to-switch link),
# credit loops (channel-dependency cycle), roots chosen, routing time and
# peak RSS, for ibsmd updown (bfs, dfs), ibsmd minhop and OpenSM 3.3.23
# -R updn run under ibsim on the same fabric (its LFTs read back from its
# opensm-lfts.dump and measured by the same LFT walk, tests/bench/
# updown_lft_metrics.c).  With --scale, ibsmroute at the papers' sizes.
#
#   O=build tests/bench/updown.sh [--scale] [--no-opensm] [NET...]
set -u
O=${O:-build}
TOP=$(pwd)
scale=0 opensm=1 nets=()
for a in "$@"; do
	case $a in
	--scale) scale=1 ;;
	--no-opensm) opensm=0 ;;
	*) nets+=("$a") ;;
	esac
done
W=$(mktemp -d "${TMPDIR:-/tmp}/updown-bench.XXXXXX")
. "$(dirname "$0")/../procs.bash"
procs_guard 'rm -rf "$W"'
CC=${CC:-cc}
for prog in updown_lft_metrics updown_bench; do
	$CC -std=gnu11 -O2 -I. -D_GNU_SOURCE -pthread -o "$W/$prog" \
		tests/bench/$prog.c "$O/libibsmrouting.a" "$O/libibsm.a" -lm ||
		exit 1
done

if [ ${#nets[@]} = 0 ]; then
	mkdir -p "$W/gen"
	"$O/ibsmgen" fattree2 --hosts 600 --radix 36 -o "$W/gen/ft2-600.net"
	"$O/ibsmgen" fattree3 --k 8 -o "$W/gen/ft3-k8.net"
	"$O/ibsmgen" torus 4 4 3 -o "$W/gen/torus-443.net"
	"$O/ibsmgen" random --switches 40 --ports 8 --hosts-per-switch 2 \
		--seed 3 -o "$W/gen/random-40.net"
	nets=(tests/data/*.net "$W"/gen/*.net)
fi

json() {
	python3 -c '
import json, sys
u = json.load(open(sys.argv[1]))["unicast"]
a = {True: "no", False: "YES", None: "?"}[u["cdg_acyclic"]]
print("max_hops=%d avg_hops=%.4f max_link=%d loops=%s unreach=%d secs=%.3f"
      % (u["max_hops"], u["avg_hops"], u["max_link_routes"], a,
         u["unreachable_pairs"], u["seconds"]))' "$1"
}

metrics() { # lft_metrics output -> same fields
	sed -E 's/max_link_routes=/max_link=/; s/cdg_acyclic=1/loops=no/;
		s/cdg_acyclic=0/loops=YES/; s/ unreachable=/ unreach=/;
		s/ ca_to_switch_unreachable=[0-9]+//; s/ why=.*//'
}

# OpenSM -R updn under ibsim; prints its metrics and root count.
opensm_updn() {
	local net=$1 d=$2
	mkdir -p "$d"
	(
		export O=$(cd "$O" && pwd) TOP
		. tests/integration/lib.sh >/dev/null
		start_ibsim "$net" >/dev/null
		opensm -c "$T/osm.conf" >/dev/null 2>&1
		sed -i "s#^dump_files_dir .*#dump_files_dir $d/#;
			s#^log_file .*#log_file $d/opensm.log#" "$T/osm.conf"
		timeout 600 env LD_PRELOAD="$UMAD2SIM" opensm -F "$T/osm.conf" \
			-o -R updn -D 0x43 >"$d/stdout" 2>&1
	) || true
	if [ ! -s "$d/opensm-lfts.dump" ]; then
		echo "no LFT dump (see $d/opensm.log)"
		return
	fi
	local roots note=""
	roots=$(grep -c . "$d/opensm-updn-roots.dump" 2>/dev/null)
	grep -q "disabling UPDN algorithm" "$d/opensm.log" &&
		note=" (updn disabled: no roots found, min-hop used)"
	echo "$("$W/updown_lft_metrics" "$net" "$d/opensm-lfts.dump" | metrics)" \
		"roots=${roots:-0}$note"
}

printf "%-16s %-11s %s\n" fabric engine metrics
for net in "${nets[@]}"; do
	name=$(basename "$net" .net)
	d=$W/$name
	for dir in bfs dfs; do
		"$O/ibsmroute" "$net" --routing updown --dump-dir "$d-$dir" \
			-o routing.updown.direction=$dir --json "$d-$dir.json" \
			>/dev/null 2>"$d-$dir.err" || {
			printf "%-16s %-11s FAILED: %s\n" "$name" "updown-$dir" \
				"$(tail -1 "$d-$dir.err")"
			continue
		}
		printf "%-16s %-11s %s roots=%s\n" "$name" "updown-$dir" \
			"$(json "$d-$dir.json")" "$(grep -c . "$d-$dir/updn-roots.dump")"
	done
	"$O/ibsmroute" "$net" --routing minhop --dump-dir "$d-minhop" \
		--json "$d-minhop.json" >/dev/null 2>&1
	printf "%-16s %-11s %s secs=%s\n" "$name" minhop \
		"$("$W/updown_lft_metrics" "$net" "$d-minhop/lfts.dump" | metrics)" \
		"$(python3 -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["unicast"]["seconds"])' "$d-minhop.json")"
	[ $opensm = 1 ] && command -v opensm >/dev/null &&
		printf "%-16s %-11s %s\n" "$name" opensm-updn \
			"$(opensm_updn "$net" "$d-opensm")"
done

[ $scale = 1 ] || exit 0
echo
echo "At scale, in memory (updown_bench: the engine alone, route_s and"
echo "route_cpu_s include its LFT verification; 2 threads):"
for b in "fattree3 40" "torus 30 20 20 2" "torus 30 20 20 2 --dfs" \
	"random 2048 40 20 1" "random 2048 40 20 1 --dfs"; do
	# shellcheck disable=SC2086
	"$W/updown_bench" $b | tail -1 | sed "s/^/$b: /"
done
echo
echo "At scale (ibsmroute, 2 threads; secs = routing incl. verification," \
	"peak RSS of the whole ibsmroute run):"
big=(
	"ft3-k40 fattree3 --k 40"
	"torus-30x20x20 torus 30 20 20 --hosts-per-switch 2"
	"random-2048 random --switches 2048 --ports 40 --hosts-per-switch 20"
)
for b in "${big[@]}"; do
	set -- $b
	name=$1; shift
	"$O/ibsmgen" "$@" -o "$W/$name.net" || continue
	for eng in updown minhop; do
		/usr/bin/time -f "%M %e %U" -o "$W/$name-$eng.time" \
			"$O/ibsmroute" "$W/$name.net" --routing $eng --threads 2 \
			--json "$W/$name-$eng.json" >/dev/null 2>"$W/$name-$eng.err"
		read -r rss wall user <"$W/$name-$eng.time"
		if [ -s "$W/$name-$eng.json" ]; then
			printf "%-16s %-7s %s peak_rss=%dMB wall_total=%ss\n" \
				"$name" $eng "$(json "$W/$name-$eng.json")" \
				$((rss / 1024)) "$wall"
		else
			printf "%-16s %-7s FAILED: %s\n" "$name" $eng \
				"$(tail -1 "$W/$name-$eng.err")"
		fi
	done
done
