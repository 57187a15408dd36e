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
# measures QoS bring-ups against opensm -Q.  IBSMD_ARGS adds options to
# ibsmd's command line (e.g. "-o routing.unicast=minhop").
#
# usage: O=build tests/bench/bringup.sh [-n RUNS] [FABRIC...]
#   FABRIC: ft2:HOSTS (ibsmgen fattree2 --hosts HOSTS), torus:X,Y,Z,H
#           or a .net file; default: ft2:500 ft2:1000 ft2:2000 torus:8,8,8,2
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
	*) cp "$1" "$2" ;;
	esac
}

. "$(dirname "$0")/sim.bash"

# Runs one SM under a fresh ibsim; prints seconds, or "fail".
timed() {
	local net=$1 log=$2; shift 2
	local s e rc
	start_sim "$net"
	s=$(date +%s.%N)
	LD_PRELOAD=$UMAD2SIM "$@" >"$log" 2>&1
	rc=$?
	e=$(date +%s.%N)
	stop_sim
	[ $rc -eq 0 ] || { echo fail; return; }
	echo "$e - $s" | bc
}

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { print (NR ? v[int((NR + 1) / 2)] : "n/a") }'; }

printf "%-16s %6s %6s | %9s %9s %9s | %6s | %8s %8s %6s\n" fabric hosts sw \
	ibsmd_s osm_def_s osm_64_s ratio smps min_smps smp_x
for spec in $FABRICS; do
	net=$W/fabric.net
	gen "$spec" "$net" || { echo "cannot generate $spec" >&2; continue; }
	hosts=$(grep -c '^Hca' "$net"); sw=$(grep -c '^Switch' "$net")
	ti=""; td=""; t64=""; smps=""; minsmps=""
	for _ in $(seq "$RUNS"); do
		rm -rf "$W/st"
		ti="$ti $(timed "$net" "$W/ibsmd.log" "$O/ibsmd" --once --state-dir "$W/st" -o qos.enable="${IBSMD_QOS:-false}" ${IBSMD_ARGS:-})"
		smps=$(sed -n 's/.*SMPs: \([0-9]*\) sent.*/\1/p' "$W/ibsmd.log" | tail -1)
		minsmps=$(sed -n 's/.*needed at least \([0-9]*\);.*/\1/p' "$W/ibsmd.log" | tail -1)
		rm -rf "$W/osm"; mkdir -p "$W/osm"
		td="$td $(OSM_CACHE_DIR=$W/osm timed "$net" "$W/osm.log" opensm --once -f "$W/osm.file")"
		rm -rf "$W/osm"; mkdir -p "$W/osm"
		t64="$t64 $(OSM_CACHE_DIR=$W/osm timed "$net" "$W/osm.log" opensm --once --maxsmps 64 -f "$W/osm.file")"
	done
	mi=$(echo "$ti" | median); md=$(echo "$td" | median); m64=$(echo "$t64" | median)
	best=$(printf "%s\n%s\n" "$md" "$m64" | grep -v n/a | sort -g | head -1)
	ratio=$(echo "scale=2; $mi / $best" | bc 2>/dev/null)
	smpx=$(echo "scale=3; ${smps:-0} / ${minsmps:-1}" | bc 2>/dev/null)
	printf "%-16s %6s %6s | %9.3f %9.3f %9.3f | %6s | %8s %8s %6s\n" "$spec" "$hosts" "$sw" \
		"$mi" "$md" "$m64" "$ratio" "$smps" "$minsmps" "$smpx"
	echo "  runs: ibsmd [$ti ] opensm [$td ] opensm-64 [$t64 ]" >&2
done
