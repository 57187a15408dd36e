#!/bin/bash
# QoS bring-up benchmark (not a test): on the same ibsim fabric (default
# the 968-host 2-level fat tree, `ibsmgen fattree2 --hosts 968`), wall time
# from start to exit of `ibsmd --once` with qos.enable false and true, and
# of `opensm --once` without and with QoS (-Q), median of N runs, each on a
# fresh ibsim (every port in INIT, tables at ibsim's reset values), runs
# interleaved so load changes hit every SM alike.  Also the SMPs ibsmd
# sent and the SL2VL/VLArb blocks among them (its own counts), and what a
# QoS bring-up adds.  With --check, one more ibsmd run whose every port is
# read back with smpquery (tests/integration/qos_check.py), as the
# integration tests do on the small fabrics.
#
# usage: O=build tests/bench/qos.sh [-n RUNS] [--check] [NETFILE]
set -u
O=${O:-build}
O=$(cd "$O" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
RUNS=3
CHECK=
while [ $# -gt 0 ]; do
	case $1 in
	-n) RUNS=$2; shift 2 ;;
	--check) CHECK=1; shift ;;
	*) break ;;
	esac
done
UMAD2SIM=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
W=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-bench.XXXXXX")
export IBSIM_SOCKNAME="ibsmdbench$$"
SIMPID=
cleanup() { [ -n "$SIMPID" ] && kill "$SIMPID" 2>/dev/null; wait 2>/dev/null; rm -rf "$W"; }
. "$(dirname "$0")/../procs.bash"
procs_guard cleanup
. "$(dirname "$0")/sim.bash"

NET=${1:-$W/ft2-968.net}
[ -n "${1:-}" ] || "$O/ibsmgen" fattree2 --hosts 968 -o "$NET" 2>/dev/null || exit 1
hosts=$(grep -c '^Hca' "$NET"); sw=$(grep -c '^Switch' "$NET")

timed() { # timed LOG CMD...: seconds of one run on a fresh ibsim, or fail
	local log=$1 s e rc; shift
	start_sim "$NET"
	s=$(now)
	LD_PRELOAD=$UMAD2SIM "$@" >"$log" 2>&1
	rc=$?
	e=$(now)
	stop_sim
	[ $rc -eq 0 ] || { echo fail; return; }
	echo "$e - $s" | bc
}
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { print (NR ? v[int((NR + 1) / 2)] : "n/a") }'; }
smps() { sed -n 's/.*SMPs: \([0-9]*\) sent.*/\1/p' "$1" | tail -1; }

t0=""; t1=""; o0=""; o1=""
for _ in $(seq "$RUNS"); do
	rm -rf "$W/st"
	t0="$t0 $(timed "$W/off.log" "$O/ibsmd" --once --state-dir "$W/st" -o qos.enable=false)"
	rm -rf "$W/st"
	t1="$t1 $(timed "$W/on.log" "$O/ibsmd" --once --state-dir "$W/st" -o log.level=info -o qos.enable=true)"
	rm -rf "$W/osm"; mkdir -p "$W/osm"
	o0="$o0 $(OSM_CACHE_DIR=$W/osm timed "$W/osm.log" opensm --once -f "$W/osm.file")"
	rm -rf "$W/osm"; mkdir -p "$W/osm"
	o1="$o1 $(OSM_CACHE_DIR=$W/osm timed "$W/osmq.log" opensm -Q --once -f "$W/osmq.file")"
done
m0=$(echo "$t0" | median); m1=$(echo "$t1" | median)
n0=$(echo "$o0" | median); n1=$(echo "$o1" | median)
s0=$(smps "$W/off.log"); s1=$(smps "$W/on.log")
read -r bsl bva < <(sed -n 's/.*qos: \([0-9]*\) SL2VL and \([0-9]*\) VLArb.*/\1 \2/p' "$W/on.log" | tail -1)
printf "fabric %s: %s hosts, %s switches; medians of %s runs, load %s\n" \
	"$(basename "$NET" .net)" "$hosts" "$sw" "$RUNS" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-22s %9s %9s %8s\n" "" "QoS off" "QoS on" "on/off"
printf "%-22s %9.3f %9.3f %8.2f\n" "ibsmd --once (s)" "$m0" "$m1" "$(echo "scale=2; $m1 / $m0" | bc)"
printf "%-22s %9.3f %9.3f %8.2f\n" "opensm --once (s)" "$n0" "$n1" "$(echo "scale=2; $n1 / $n0" | bc)"
printf "%-22s %9.2f %9.2f\n" "ibsmd / opensm" "$(echo "scale=3; $m0 / $n0" | bc)" "$(echo "scale=3; $m1 / $n1" | bc)"
printf "%-22s %9s %9s %8.2f\n" "ibsmd SMPs" "$s0" "$s1" "$(echo "scale=2; $s1 / $s0" | bc)"
printf "QoS bring-up adds %s SMPs: %s SL2VL and %s VLArb blocks (+ OperationalVLs in the PortInfo Sets)\n" \
	"$((s1 - s0))" "$bsl" "$bva"
echo "runs: ibsmd off [$t0 ] on [$t1 ] opensm [$o0 ] opensm -Q [$o1 ]" >&2
if [ -n "$CHECK" ]; then
	start_sim "$NET"
	rm -rf "$W/st"
	LD_PRELOAD=$UMAD2SIM "$O/ibsmd" --once --state-dir "$W/st" -o qos.enable=true >"$W/chk.log" 2>&1 ||
		{ echo "ibsmd --once failed" >&2; exit 1; }
	s=$(now)
	SIM_PRELOAD=$UMAD2SIM python3 "$TOP/tests/integration/qos_check.py" ||
		{ stop_sim; exit 1; }
	echo "read back in $(echo "$(now) - $s" | bc) s"
	stop_sim
fi
