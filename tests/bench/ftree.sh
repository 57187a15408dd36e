#!/bin/bash
# Fat-tree routing benchmark (not a test), three parts:
#
# quality  On a family of trees, the link loads of ibsmd's ftree, minhop
#          and updown (ibsmroute) and of OpenSM 3.3.23's ftree, minhop and
#          updn on the same fabric (`opensm --once` under ibsim, its
#          guid2lid and opensm-lfts.dump walked by our walk,
#          tests/bench/lft_metrics.c, so both are counted alike): the
#          busiest link of every shift permutation over the hosts in
#          cabling order (mean, worst, how many congestion-free) and of all
#          pairs.  OpenSM's ftree falls back to its minhop on trees it
#          refuses; the row says so.
# time     Routing the 16,000-host 3-level tree (fattree3 --k 40): hop
#          tables and the engine (ibsmroute's unicast seconds, wall), and
#          the CPU seconds of the whole ibsmroute process (parse, LIDs,
#          routing, the LFT walk; /usr/bin/time), ftree and minhop,
#          medians of RUNS, on 2 threads and on 1.
# repair   On the same tree, a leaf uplink and a middle switch fail
#          (ibsmroute --cut): the repair's routing time, LFT blocks
#          changed and busiest links against a fresh computation's;
#          medians of RUNS.
#
# usage: O=build tests/bench/ftree.sh [-n RUNS] [quality] [time] [repair]
# (default: all three; RUNS default 3).  The machine is shared: the load
# is printed with every part.
set -u
O=${O:-build}
O=$(cd "$O" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
RUNS=3
if [ "${1:-}" = -n ]; then RUNS=$2; shift 2; fi
PARTS=${*:-quality time repair}
UMAD2SIM=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
W=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-ftree.XXXXXX")
export IBSIM_SOCKNAME="ibsmdft$$"
. "$(dirname "$0")/sim.bash"
cleanup() { stop_sim; rm -rf "$W"; }
. "$(dirname "$0")/../procs.bash"
procs_guard cleanup
trap 'exit 143' TERM INT

load() { echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR ? v[int((NR + 1) / 2)] : "n/a") }'; }
json() { # json FILE EXPR: a value of an ibsmroute report
	python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# degrade SRC DST NODE[:PORT]...: SRC without those links or switches.
degrade() { python3 "$TOP/tests/integration/net_degrade.py" "$@"; }

row() { # row FABRIC SM ENGINE "mean worst free shifts all_pairs" [NOTE]
	read -r mean worst free shifts pairs <<<"$4"
	printf "| %s | %s %s | %.2f (%s) | %s of %s | %s |%s\n" "$1" "$2" "$3" \
		"$mean" "$worst" "$free" "$shifts" "$pairs" "${5:+ $5}"
}

osm_run() { # osm_run NET NAME ARGS...: OpenSM's tables, walked
	local net=$1 name=$2 d=$W/osm-$2; shift 2
	rm -rf "$d"; mkdir -p "$d/cache" "$d/dump"
	start_sim "$net"
	OSM_CACHE_DIR=$d/cache SIM_HOST=H1 LD_PRELOAD=$UMAD2SIM timeout 900 \
		opensm --once -D 0x43 --dump_files_dir "$d/dump" -f "$d/log" \
		"$@" >/dev/null 2>&1
	stop_sim
	"$W/lm" "$net" "$d/cache/guid2lid" "$d/dump/opensm-lfts.dump" | python3 -c '
import sys
r = dict(kv.split("=") for kv in sys.stdin.read().split())
print(r["shifts_mean"], r["shifts_worst"], r["shifts_free"], r["shifts"],
      r["max_link_routes"])'
}

quality() {
	local g=$W/nets
	mkdir -p "$g"
	cc -std=gnu11 -O2 -I"$TOP" -D_GNU_SOURCE -pthread -o "$W/lm" \
		"$TOP/tests/bench/lft_metrics.c" "$O/libibsmrouting.a" \
		"$O/libibsm.a" -lm || exit 1
	"$O/ibsmgen" fattree2 --hosts 128 --radix 16 -o "$g/ft2-r16.net"
	"$O/ibsmgen" fattree2 --hosts 968 -o "$g/ft2-968.net"
	"$O/ibsmgen" fattree3 --k 8 -o "$g/ft3-k8.net"
	"$O/ibsmgen" fattree3 --k 12 -o "$g/ft3-k12.net"
	"$O/ibsmgen" fattree2 --hosts 96 --radix 16 --uplinks 4 -o "$g/pruned2.net"
	"$O/ibsmgen" pruned --hosts 256 --radix 16 --uplinks 4 -o "$g/pruned-256.net"
	"$O/ibsmgen" pruned3 --pods 4 --leaves 4 --hosts-per-leaf 8 --middles 4 \
		--tops 8 --uplinks 4 -o "$g/pruned3.net"
	degrade "$g/ft3-k8.net" "$g/ft3-k8-link.net" S1:5
	degrade "$g/ft3-k8.net" "$g/ft3-k8-switch.net" S33
	degrade "$g/ft3-k12.net" "$g/ft3-k12-core.net" S145
	degrade "$g/ft2-r16.net" "$g/ft2-r16-link.net" S1:9
	load
	echo "| fabric | SM engine | shifts: mean busiest (worst) | congestion-free | all pairs: busiest |"
	echo "|---|---|---:|---:|---:|"
	for name in ft2-r16 ft2-968 ft3-k8 ft3-k12 pruned2 pruned-256 pruned3 \
		ft3-k8-link ft3-k8-switch ft3-k12-core ft2-r16-link; do
		local net=$g/$name.net e r
		for e in ftree minhop updown; do
			"$O/ibsmroute" "$net" --routing $e --shifts 0 \
				--json "$W/r.json" >/dev/null 2>&1 || { echo "| $name | ibsmd $e | failed |"; continue; }
			r=$(json "$W/r.json" '" ".join(str(x) for x in (r["unicast"]["shifts"]["busiest_mean"], r["unicast"]["shifts"]["busiest_worst"], r["unicast"]["shifts"]["congestion_free"], r["unicast"]["shifts"]["of"], r["unicast"]["max_link_routes"]))')
			row "$name" ibsmd $e "$r"
		done
		for e in ftree minhop updn; do
			local note=
			case $e in
			minhop) r=$(osm_run "$net" $e) ;;
			*) r=$(osm_run "$net" $e -R $e)
			   grep -qiE "AB0D|falling back|routing failed" "$W/osm-$e/log" &&
				note="(refused: OpenSM's minhop)" ;;
			esac
			[ -n "$r" ] && row "$name" OpenSM $e "$r" "$note"
		done
	done
}

timing() {
	"$O/ibsmgen" fattree3 --k 40 -o "$W/ft40.net"
	load
	echo "| engine | threads | routing s, median of $RUNS (runs) | process CPU-s, median (runs) |"
	echo "|---|---:|---:|---:|"
	for th in 2 1; do
		for e in ftree minhop; do
			local v="" c=""
			for _ in $(seq "$RUNS"); do
				/usr/bin/time -f "%U %S" -o "$W/cpu" "$O/ibsmroute" \
					"$W/ft40.net" --routing $e --threads $th \
					--shifts 1 --json "$W/t.json" >/dev/null 2>&1 || exit 1
				v="$v $(json "$W/t.json" '"%.3f" % r["unicast"]["seconds"]')"
				c="$c $(awk '{ printf "%.2f", $1 + $2 }' "$W/cpu")"
			done
			echo "| $e | $th | $(echo $v | tr ' ' '\n' | median) ($v ) | $(echo $c | tr ' ' '\n' | median) ($c ) |"
		done
	done
	load
}

repair() {
	[ -f "$W/ft40.net" ] || "$O/ibsmgen" fattree3 --k 40 -o "$W/ft40.net"
	load
	echo "| failure | engine | repair s (median of $RUNS) | fresh s | blocks repair / fresh | all pairs repair / fresh | shifts mean repair / fresh |"
	echo "|---|---|---:|---:|---:|---:|---:|"
	# S1's first uplink (port 21), and the middle switch S801
	for cut in S1:21 S801; do
		for e in ftree minhop; do
			local rs="" fs=""
			for _ in $(seq "$RUNS"); do
				"$O/ibsmroute" "$W/ft40.net" --routing $e --cut $cut \
					--shifts 256 --json "$W/c.json" >/dev/null 2>&1 || exit 1
				rs="$rs $(json "$W/c.json" '"%.3f" % r["repair"]["seconds"]')"
				fs="$fs $(json "$W/c.json" '"%.3f" % r["repair"]["fresh"]["seconds"]')"
			done
			echo "| $cut | $e | $(echo $rs | tr ' ' '\n' | median) | $(echo $fs | tr ' ' '\n' | median) | $(json "$W/c.json" '"%d / %d | %d / %d | %.2f / %.2f" % (r["repair"]["blocks_changed"], r["repair"]["fresh"]["blocks_changed"], r["repair"]["max_link_routes"], r["repair"]["fresh"]["max_link_routes"], r["repair"]["shifts_busiest_mean"], r["repair"]["fresh"]["shifts_busiest_mean"])') |"
		done
	done
	load
}

for p in $PARTS; do
	case $p in
	quality) quality ;;
	time) timing ;;
	repair) repair ;;
	*) echo "unknown part $p (quality, time, repair)" >&2; exit 2 ;;
	esac
done
