#!/bin/bash
# Bring-up benchmark (not a test): on the same ibsim fabric, wall time from
# start to exit of `ibsmd --once` (all ports ACTIVE, LFTs programmed) and of
# `opensm --once` at its default and at --maxsmps 64; median of N runs
# (each run on a freshly started ibsim, so every port starts in INIT without
# a LID), runs interleaved so load changes hit every SM alike.  Also the
# SMPs ibsmd sent against the minimum the fabric needs (ibsmd's own count:
# discovery Gets by formula + the Sets that differ).  ibsmd runs with
# qos.enable=$IBSMD_QOS (default false), like for like with OpenSM's
# default, which writes no SL2VL or VLArb table; tests/bench/qos.sh
# measures QoS bring-ups against opensm -Q.  Also each SM's peak RSS
# (/usr/bin/time, median of the runs), the time ibsmd's CONFIGURE waited
# for port-group probes (from its log) and the load average before and
# after each fabric, since the machine is shared.  ibsim gets the options
# `ibsmgen ibsim-args` prints (-L 49152 past 30,719 LIDs).  IBSMD_ARGS adds
# options to ibsmd's command line (e.g. "-o routing.unicast=minhop"),
# OSM_ARGS to both OpenSM runs' (e.g. "-R nue --nue_max_num_vls 8 -Q"
# against "-o routing.unicast=layered").
#
# usage: O=build tests/bench/bringup.sh [-n RUNS] [FABRIC...]
#   FABRIC: ft2:HOSTS (ibsmgen fattree2 --hosts HOSTS), ft3:K (fattree3
#           --k K; 40 is 16,000 hosts), pruned3:P,L,H,M,T,U (ibsmgen
#           pruned3 --pods P --leaves L --hosts-per-leaf H --middles M
#           --tops T --uplinks U; p3th is 40,32,32,8,32,16, the MR4LMS
#           paper's 40,960 hosts), torus:X,Y,Z,H or a .net file;
#           default: ft2:500 ft2:1000 ft2:2000 torus:8,8,8,2
#   OSM_DEFAULT=0 skips OpenSM at its default (only --maxsmps 64 runs):
#   at 40,960 hosts it takes minutes and GBs per run.
set -u
O=${O:-build}
O=$(cd "$O" && pwd)
RUNS=3
if [ "${1:-}" = -n ]; then RUNS=$2; shift 2; fi
FABRICS=${*:-ft2:500 ft2:1000 ft2:2000 torus:8,8,8,2}
UMAD2SIM=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
W=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-bench.XXXXXX")
export IBSIM_SOCKNAME="ibsmdbench$$"
SIMPID=
cleanup() { [ -n "$SIMPID" ] && kill "$SIMPID" 2>/dev/null; wait 2>/dev/null; rm -rf "$W"; }
. "$(dirname "$0")/../procs.bash"
procs_guard cleanup

gen() { # gen SPEC FILE
	case $1 in
	ft2:*) "$O/ibsmgen" fattree2 --hosts "${1#ft2:}" -o "$2" 2>/dev/null ;;
	torus:*) IFS=, read -r x y z h <<<"${1#torus:}"
		"$O/ibsmgen" torus "$x" "$y" "$z" --hosts-per-switch "$h" -o "$2" 2>/dev/null ;;
	ft3:*) "$O/ibsmgen" fattree3 --k "${1#ft3:}" -o "$2" 2>/dev/null ;;
	pruned3:*) IFS=, read -r p l h m t u <<<"${1#pruned3:}"
		"$O/ibsmgen" pruned3 --pods "$p" --leaves "$l" --hosts-per-leaf "$h" \
			--middles "$m" --tops "$t" --uplinks "$u" -o "$2" 2>/dev/null ;;
	*) cp "$1" "$2" ;;
	esac
}

. "$(dirname "$0")/sim.bash"

# Runs one SM under a fresh ibsim; prints seconds, or "fail"; its peak
# RSS (KB) goes to $log.rss.
timed() {
	local net=$1 log=$2; shift 2
	local s e rc
	start_sim "$net"
	s=$(date +%s.%N)
	LD_PRELOAD=$UMAD2SIM /usr/bin/time -f %M -o "$log.rss" "$@" >"$log" 2>&1
	rc=$?
	e=$(date +%s.%N)
	stop_sim
	[ $rc -eq 0 ] || { echo fail; return; }
	echo "$e - $s" | bc
}

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { print (NR ? v[int((NR + 1) / 2)] : "n/a") }'; }
mb() { echo "scale=0; ${1:-0} / 1024" | bc; }
f3() { case $1 in n/a|fail|'') echo "${1:-n/a}" ;; *) printf "%.3f" "$1" ;; esac; }
load() { cut -d' ' -f1 /proc/loadavg; }

printf "%-24s %6s %5s | %8s %8s %8s | %5s %5s | %6s %6s | %5s | %8s %8s %6s | %s\n" \
	fabric hosts sw ibsmd_s osm_def_s osm_64_s x_def x_64 rss_MB osm64MB pg_ms \
	smps min_smps smp_x load
for spec in $FABRICS; do
	net=$W/fabric.net
	gen "$spec" "$net" || { echo "cannot generate $spec" >&2; continue; }
	hosts=$(grep -c '^Hca' "$net"); sw=$(grep -c '^Switch' "$net")
	ti=""; td=""; t64=""; smps=""; minsmps=""; ri=""; r64=""; pg=""
	l0=$(load)
	for _ in $(seq "$RUNS"); do
		rm -rf "$W/st"
		ti="$ti $(timed "$net" "$W/ibsmd.log" "$O/ibsmd" --once --state-dir "$W/st" -o qos.enable="${IBSMD_QOS:-false}" ${IBSMD_ARGS:-})"
		ri="$ri $(cat "$W/ibsmd.log.rss" 2>/dev/null)"
		pg="$pg $(sed -n 's/.*port groups: .*(\([0-9.]*\) ms of it waiting for probes).*/\1/p' "$W/ibsmd.log" | tail -1)"
		smps=$(sed -n 's/.*SMPs: \([0-9]*\) sent.*/\1/p' "$W/ibsmd.log" | tail -1)
		minsmps=$(sed -n 's/.*needed at least \([0-9]*\);.*/\1/p' "$W/ibsmd.log" | tail -1)
		if [ "${OSM_DEFAULT:-1}" != 0 ]; then
			rm -rf "$W/osm"; mkdir -p "$W/osm"
			td="$td $(OSM_CACHE_DIR=$W/osm timed "$net" "$W/osm.log" opensm --once ${OSM_ARGS:-} -f "$W/osm.file")"
		fi
		rm -rf "$W/osm"; mkdir -p "$W/osm"
		t64="$t64 $(OSM_CACHE_DIR=$W/osm timed "$net" "$W/osm.log" opensm --once --maxsmps 64 ${OSM_ARGS:-} -f "$W/osm.file")"
		r64="$r64 $(cat "$W/osm.log.rss" 2>/dev/null)"
	done
	mi=$(echo "$ti" | median); md=$(echo "$td" | median); m64=$(echo "$t64" | median)
	xd=$(echo "scale=2; $mi / $md" | bc 2>/dev/null); x64=$(echo "scale=2; $mi / $m64" | bc 2>/dev/null)
	smpx=$(echo "scale=3; ${smps:-0} / ${minsmps:-1}" | bc 2>/dev/null)
	printf "%-24s %6s %5s | %8s %8s %8s | %5s %5s | %6s %6s | %5s | %8s %8s %6s | %s\n" \
		"$spec" "$hosts" "$sw" "$(f3 "$mi")" "$(f3 "$md")" "$(f3 "$m64")" "${xd:-n/a}" "${x64:-n/a}" \
		"$(mb "$(echo "$ri" | median)")" "$(mb "$(echo "$r64" | median)")" \
		"$(echo "$pg" | median)" "$smps" "$minsmps" "$smpx" "$l0 -> $(load)"
	echo "  runs: ibsmd [$ti ] rss [$ri ] pg_wait_ms [$pg ] opensm [$td ] opensm-64 [$t64 ] rss [$r64 ]" >&2
done
