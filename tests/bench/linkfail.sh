#!/bin/bash
# Link and switch failure benchmark (not a test): on an ibsim fabric
# (default the 968-host 2-level fat tree, `ibsmgen fattree2 --hosts 968`;
# any net file as the argument), the time from ibsim's Unlink to the
# tables being programmed again, for ibsmd (daemon, defaults) and OpenSM
# 3.3.23 (daemon, -k 0), in two cases:
#   link    leaf S1's first uplink (ibsim: Unlink "S1"[P])
#   switch  the switch at the other end of S1's second uplink, all its links
# ibsmd's end: `ibsmctl status` shows one more completed model adoption
# (heavy_sweeps, which incremental sweeps count too) and the sweep idle,
# polled every 10 ms; also the SMPs, LFT blocks and timeouts it took, and
# whether the sweep was incremental.  OpenSM's end: one more "SUBNET UP"
# in its log (-d2 flushes per line), polled every 20 ms.  Each run starts a
# fresh ibsim; the SMs alternate; medians of N runs and their ratio.
#
# IBSMD_ARGS adds options to ibsmd's command line (e.g. "-o
# routing.unicast=minhop"), OSM_ARGS to OpenSM's (e.g. "-R nue
# --nue_max_num_vls 8 -Q"); PEER=none leaves OpenSM out (engines compared
# with each other).
#
# usage: O=build tests/bench/linkfail.sh [-n RUNS] [NETFILE]
set -u
O=${O:-build}
O=$(cd "$O" && pwd)
RUNS=3
if [ "${1:-}" = -n ]; then RUNS=$2; shift 2; fi
UMAD2SIM=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
W=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-linkfail.XXXXXX")
export IBSIM_SOCKNAME="ibsmdlf$$"
. "$(dirname "$0")/sim.bash"
cleanup() { stop_sms; stop_sim; rm -rf "$W"; }
. "$(dirname "$0")/../procs.bash"
procs_guard cleanup
trap 'exit 143' TERM INT

bench_net "${1:-}"
# S1's uplinks: its switch-facing ports, from the net file.
read -r P1 P2 PEER2 < <(sed -n '/^Switch.*"S1"$/,/^$/p' "$NET" |
	sed -n 's/^\[\([0-9]*\)\]\t"\(S[0-9]*\)".*/\1 \2/p' | head -2 | paste -sd' ' |
	awk '{ print $1, $3, $4 }')
[ -n "${PEER2:-}" ] || { echo "S1 has fewer than two uplinks in $NET" >&2; exit 1; }
CMD_link="Unlink \"S1\"[$P1]"
CMD_switch="Unlink \"$PEER2\""

bg() { local h=$1; shift; SIM_HOST=$h LD_PRELOAD=$UMAD2SIM "$@" & BG=$!; PIDS="$PIDS $BG"; }
st() { "$O/ibsmctl" -s "$W/sock" status 2>/dev/null | awk -v k="$1" '$1 == k { print $2; exit }'; }
adopted() { [ "$(st heavy_sweeps)" -ge "$1" ] && [ "$(st sweep_state)" = IDLE ]; }

# run_ibsmd CASE: prints "seconds smps lft_blocks timeouts incremental"
run_ibsmd() {
	local cmd t0 t1 h s0 l0 to0 i0
	eval "cmd=\$CMD_$1"
	start_sim "$NET"
	rm -rf "$W/st"; mkdir -p "$W/st"
	bg H1 "$O/ibsmd" --state-dir "$W/st" -o control_socket="$W/sock" ${IBSMD_ARGS:-} 2>"$W/ibsmd.log"
	until_true 600 0.2 adopted 1 || { echo fail; stop_sms; stop_sim; return; }
	sleep 1
	h=$(st heavy_sweeps) s0=$(st smps_sent) l0=$(st smps_lft_blocks)
	to0=$(st smps_timeouts) i0=$(st incremental_sweeps)
	t0=$(now); echo "$cmd" >&$SIMIN
	until_true 300 0.01 adopted $((h + 1)) || { echo fail; stop_sms; stop_sim; return; }
	t1=$(now)
	echo "$(echo "$t1 - $t0" | bc) $(( $(st smps_sent) - s0 )) $(( $(st smps_lft_blocks) - l0 ))" \
		"$(( $(st smps_timeouts) - to0 )) $(( $(st incremental_sweeps) - i0 ))"
	stop_sms; stop_sim
}

run_opensm() {
	local cmd t0 t1 n0
	eval "cmd=\$CMD_$1"
	start_sim "$NET"
	rm -rf "$W/osm"; mkdir -p "$W/osm"
	OSM_CACHE_DIR=$W/osm bg H1 opensm -k 0 -d2 ${OSM_ARGS:-} -f "$W/osm/log" >/dev/null 2>&1
	until_true 900 0.2 grep -q "SUBNET UP" "$W/osm/log" || { echo fail; stop_sms; stop_sim; return; }
	sleep 1
	n0=$(grep -c "SUBNET UP" "$W/osm/log")
	t0=$(now); echo "$cmd" >&$SIMIN
	until_true 600 0.02 eval '[ "$(grep -c "SUBNET UP" "$W/osm/log")" -gt "$n0" ]' ||
		{ echo fail; stop_sms; stop_sim; return; }
	t1=$(now)
	echo "$t1 - $t0" | bc
	stop_sms; stop_sim
}

median() { tr ' ' '\n' | grep -v '^$' | grep -v fail | sort -g | awk '{ v[NR] = $1 } END { print (NR ? v[int((NR + 1) / 2)] : "n/a") }'; }

hosts=$(grep -c '^Hca' "$NET"); sw=$(grep -c '^Switch' "$NET")
printf "%-8s %6s %4s | %9s %9s %7s | %7s %6s %8s %5s\n" case hosts sw \
	ibsmd_s opensm_s ratio smps lft_blk timeouts incr
for c in link switch; do
	ti="" to="" detail=""
	for i in $(seq "$RUNS"); do
		r=$(run_ibsmd "$c"); set -- $r
		ti="$ti $1"; detail="${2:-?} ${3:-?} ${4:-?} ${5:-?}"
		[ "${PEER:-opensm}" = opensm ] && command -v opensm >/dev/null &&
			to="$to $(run_opensm "$c")"
		echo "$c run $i: ibsmd [$ti ] opensm [$to ] last: smps lft timeouts incr = $detail" >&2
	done
	mi=$(echo "$ti" | median); mo=$(echo "$to" | median)
	ratio=n/a
	[ "$mi" != n/a ] && [ "$mo" != n/a ] && ratio=$(echo "scale=1; $mo / $mi" | bc)
	set -- $detail
	printf "%-8s %6s %4s | %9s %9s %6sx | %7s %6s %8s %5s\n" "$c" "$hosts" "$sw" \
		"$mi" "$mo" "$ratio" "$1" "$2" "$3" "$4"
done
