#!/bin/bash
# Failover benchmark (not a test): on an ibsim fabric (default the 968-host
# 2-level fat tree, `ibsmgen fattree2 --hosts 968`), the time from the
# master SM's death (SIGKILL) to the standby's first completed sweep as
# master, for two ibsmd at their defaults (master on H1 priority 10,
# standby on H2 priority 1) and for two OpenSM 3.3.23 at theirs (same
# hosts and priorities, SM_Key 0).  Each run starts a fresh ibsim; runs are
# interleaved so that load changes hit both alike; medians of N runs and
# their ratio.  ibsmd's end: `ibsmctl status` says MASTER with a completed
# heavy sweep (polled every 20 ms); OpenSM's: "SUBNET UP" in the new
# master's log (flushed per line with -d2, polled every 50 ms).  Also the
# LFT blocks the new ibsmd master sent (0 when nothing changed).  ibsmd
# runs with qos.enable=$IBSMD_QOS (default false), like for like with
# OpenSM's default, which writes no SL2VL or VLArb table (a new ibsmd
# master with QoS writes every table once: docs/benchmarks.md, QoS).
#
# usage: O=build tests/bench/failover.sh [-n RUNS] [NETFILE]
set -u
O=${O:-build}
O=$(cd "$O" && pwd)
RUNS=3
if [ "${1:-}" = -n ]; then RUNS=$2; shift 2; fi
UMAD2SIM=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
W=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-failover.XXXXXX")
export IBSIM_SOCKNAME="ibsmdfo$$"
PIDS=
. "$(dirname "$0")/sim.bash"
stop_sms() {
	local p
	for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	PIDS=
}
cleanup() { stop_sms; stop_sim; rm -rf "$W"; }
. "$(dirname "$0")/../procs.bash"
procs_guard cleanup
trap 'exit 143' TERM INT

NET=$W/fabric.net
if [ -n "${1:-}" ]; then cp "$1" "$NET"; else
	"$O/ibsmgen" fattree2 --hosts 968 -o "$NET" 2>/dev/null || exit 1
fi

# bg HOST CMD...: a client of ibsim at HOST's node, its pid in PIDS and $BG
bg() { local h=$1; shift; SIM_HOST=$h LD_PRELOAD=$UMAD2SIM "$@" & BG=$!; PIDS="$PIDS $BG"; }
st() { "$O/ibsmctl" -s "$W/$1.sock" status 2>/dev/null | awk -v k="$2" '$1 == k { print $2; exit }'; }
swept_master() { [ "$(st "$1" sm_role)" = MASTER ] && [ "$(st "$1" heavy_sweeps)" -ge 1 ]; }

run_ibsmd() {
	local n t0 t1
	start_sim "$NET"
	for n in a b; do rm -rf "$W/st-$n"; mkdir -p "$W/st-$n"; done
	bg H1 "$O/ibsmd" --state-dir "$W/st-a" -o control_socket="$W/a.sock" -o sm.priority=10 -o qos.enable="${IBSMD_QOS:-false}" 2>"$W/ibsmd-a.log"
	local a=$BG
	until_true 300 0.2 swept_master a || { echo fail; stop_sms; stop_sim; return; }
	bg H2 "$O/ibsmd" --state-dir "$W/st-b" -o control_socket="$W/b.sock" -o sm.priority=1 -o qos.enable="${IBSMD_QOS:-false}" 2>"$W/ibsmd-b.log"
	until_true 120 0.2 eval '[ "$(st b mcast_copy)" = current ]' || { echo fail; stop_sms; stop_sim; return; }
	sleep 2 # a few quiet polls
	t0=$(now); kill -9 "$a"
	until_true 120 0.02 swept_master b || { echo fail; stop_sms; stop_sim; return; }
	t1=$(now)
	echo "$(st b smps_lft_blocks)" >"$W/lftb"
	stop_sms; stop_sim
	echo "$t1 - $t0" | bc
}

run_opensm() {
	local t0 t1
	start_sim "$NET"
	rm -rf "$W"/osm-*; mkdir -p "$W/osm-a" "$W/osm-b"
	OSM_CACHE_DIR=$W/osm-a bg H1 opensm -p 10 -k 0 -d2 -f "$W/osm-a/log" >/dev/null 2>&1
	local a=$BG
	until_true 600 0.2 grep -q "SUBNET UP" "$W/osm-a/log" || { echo fail; stop_sms; stop_sim; return; }
	OSM_CACHE_DIR=$W/osm-b bg H2 opensm -p 1 -k 0 -d2 -f "$W/osm-b/log" >/dev/null 2>&1
	until_true 300 0.2 grep -q "Entering STANDBY state" "$W/osm-b/log" || { echo fail; stop_sms; stop_sim; return; }
	sleep 2
	t0=$(now); kill -9 "$a"
	until_true 600 0.05 grep -q "SUBNET UP" "$W/osm-b/log" || { echo fail; stop_sms; stop_sim; return; }
	t1=$(now)
	stop_sms; stop_sim
	echo "$t1 - $t0" | bc
}

median() { tr ' ' '\n' | grep -v '^$' | grep -v fail | sort -g | awk '{ v[NR] = $1 } END { print (NR ? v[int((NR + 1) / 2)] : "n/a") }'; }

hosts=$(grep -c '^Hca' "$NET"); sw=$(grep -c '^Switch' "$NET")
ti="" to="" lft=""
for i in $(seq "$RUNS"); do
	rm -f "$W/lftb"
	ti="$ti $(run_ibsmd)"; lft="$lft $(cat "$W/lftb" 2>/dev/null || echo '?')"
	command -v opensm >/dev/null && to="$to $(run_opensm)"
	echo "run $i: ibsmd [$ti ] opensm [$to ]" >&2
done
mi=$(echo "$ti" | median); mo=$(echo "$to" | median)
ratio=n/a
[ "$mi" != n/a ] && [ "$mo" != n/a ] && ratio=$(echo "scale=1; $mo / $mi" | bc)
printf "%-10s %6s %4s | %10s %10s | %7s | %s\n" fabric hosts sw ibsmd_s opensm_s ratio "lft_blocks_resent"
printf "%-10s %6s %4s | %10.2f %10.2f | %6sx | %s\n" "$(basename "${1:-ft2-968}" .net)" "$hosts" "$sw" "$mi" "$mo" "$ratio" "$lft"
echo "runs: ibsmd [$ti ] opensm [$to ]"
