#!/bin/bash
# Performance manager benchmark (not a test): what reading every port's
# counters costs, and what it costs the rest of the SM, on an ibsim fabric
# (default the 16,000-host 3-level fat tree, `ibsmgen fattree3 --k 40`;
# any net file as the argument).  One ibsmd per run on a fresh ibsim,
# configured by a file that SIGHUP re-reads (perfmgr.* and health.* apply
# without a sweep).  In each run, in this order:
#   off     perfmgr off: bring-up time; a heavy sweep (ibsmctl sweep); SA
#           PathRecord p99 of 8 clients for D seconds (tests/sim/sa_load);
#           a leaf uplink's repair time.
#   on      perfmgr on, 60 s interval (its reads paced over 45 s): as soon
#           as a round starts, a heavy sweep; then the SA load, while the
#           round's MADs flow; another leaf's uplink fails mid-round:
#           repair time; then the paced round's MADs and duration.
#   raw     perfmgr.interval_ms 1000: rounds run back to back, as fast as
#           the window allows: one round's MADs and time (with the
#           switches' AllPortSelect sums of the round before), against the
#           SMPs of a heavy sweep asked with ibsmctl sweep on the settled
#           fabric (the target: a round costs no more than one sweep's
#           worth), and against its discovery Gets alone.
#   health  60 s interval, health.policy isolate: a third leaf's uplink
#           gets SymbolErrorCounter 1000 (over its threshold, 100, from
#           that instant): time until it is out of routing (listed, and
#           the incremental sweep that holds it out done), in intervals.
#   off     perfmgr off again: the SA load once more; the p99 peer is the
#           mean of the two runs without perfmgr.
# The peer of each figure is the same SM without perfmgr in the same run
# (p99, repair), or the heavy sweep's SMPs (a round's MADs).  Medians of
# RUNS runs (-n, default 3).  The machine is shared: the load average is
# printed with each run.
#
# usage: O=build tests/bench/perfmgr.sh [-n RUNS] [-d SA_SECONDS] [NETFILE]
set -u
O=${O:-build}
O=$(cd "$O" && pwd)
RUNS=3 D=20
while [ $# -gt 0 ]; do
	case $1 in
	-n) RUNS=$2; shift 2 ;;
	-d) D=$2; shift 2 ;;
	*) break ;;
	esac
done
UMAD2SIM=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
W=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-perfmgr.XXXXXX")
export IBSIM_SOCKNAME="ibsmdpm$$"
. "$(dirname "$0")/sim.bash"
cleanup() { stop_sms; stop_sim; rm -rf "$W"; }
. "$(dirname "$0")/../procs.bash"
procs_guard cleanup
trap 'exit 143' TERM INT
[ -x "$O/ibsmd" ] && [ -x "$O/tests/sim/sa_load" ] || { echo "build first (make)"; exit 1; }

if [ -n "${1:-}" ]; then bench_net "$1"; else
	NET=$W/fabric.net
	"$O/ibsmgen" fattree3 --k 40 -o "$NET" 2>/dev/null || exit 1
fi
# Leaf uplinks: the first switch-facing port of S1, S2 and S3.
uplink() {
	sed -n "/^Switch.*\"$1\"\$/,/^\$/p" "$NET" |
		sed -n 's/^\[\([0-9]*\)\]\t"S[0-9]*".*/\1/p' | head -1
}
P1=$(uplink S1) P2=$(uplink S2) P3=$(uplink S3)
[ -n "$P3" ] || { echo "S1..S3 have no uplinks in $NET" >&2; exit 1; }

st() { "$O/ibsmctl" -s "$W/sock" status 2>/dev/null | awk -v k="$1" '$1 == k { print $2; exit }'; }
adopted() { [ "$(st heavy_sweeps)" -ge "$1" ] && [ "$(st sweep_state)" = IDLE ]; }
ge() { [ "$(st "$1")" -ge "$2" ] 2>/dev/null; }
conf() { # conf ENABLE INTERVAL POLICY: the config file, then SIGHUP
	printf 'perfmgr:\n  enable: %s\n  interval_ms: %s\nhealth:\n  policy: %s\n' \
		"$1" "$2" "$3" >"$W/ibsmd.yaml"
	[ -n "${DPID:-}" ] || return 0
	kill -HUP "$DPID"
	sleep 4 # the reload waits for a burst to end
}

# sa_p99: D seconds of PathRecord Gets from 8 clients (H2..H9), pooled p99
# in microseconds.
sa_p99() {
	local i cl=() lids
	sim_lids
	rm -f "$W"/lat.*
	for i in $(seq 2 9); do
		lids=$(shuf --random-source=<(yes $i) "$W/lids" | head -4000 | paste -sd,)
		SIM_HOST=H$i LD_PRELOAD=$UMAD2SIM "$O/tests/sim/sa_load" -t path \
			-n 100000000 -w 8 -d $((D * 1000)) -l "$lids" -o "$W/lat.$i" \
			>"$W/sa.$i" 2>&1 &
		cl+=($!)
	done
	wait "${cl[@]}"
	cat "$W"/lat.* | sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int(NR * 0.99) + 1] : "n/a" }'
}
sim_lids() {
	[ -s "$W/lids" ] && return
	SIM_HOST=H2 LD_PRELOAD=$UMAD2SIM ibnetdiscover -p 2>/dev/null |
		awk '$1 == "CA" { print $2 }' | sort -un >"$W/lids"
}
# repair PORT SWITCH: seconds from Unlink to the model adopted again.
repair() {
	local h t0 t1
	h=$(st heavy_sweeps)
	t0=$(now); echo "Unlink \"$2\"[$1]" >&$SIMIN
	until_true 300 0.01 adopted $((h + 1)) || { echo fail; return; }
	t1=$(now)
	echo "$t1 - $t0" | bc
}

# heavy: seconds of a heavy sweep asked with ibsmctl sweep; its SMPs in
# HEAVY_SMPS (all the engine sent meanwhile, so with perfmgr on its few
# MADs in flight too).
heavy() {
	local h t0 t1 s0
	h=$(st heavy_sweeps) s0=$(st smps_sent)
	t0=$(now); "$O/ibsmctl" -s "$W/sock" sweep >/dev/null
	until_true 600 0.05 adopted $((h + 1)) || { echo fail; return; }
	t1=$(now)
	echo "$(echo "$t1 - $t0" | bc) $(( $(st smps_sent) - s0 ))"
}

one_run() {
	local t0 t1 rounds h r
	start_sim "$NET"
	rm -rf "$W/st" "$W/lids"; mkdir -p "$W/st"
	DPID=
	conf false 60000 report
	t0=$(now)
	SIM_HOST=H1 LD_PRELOAD=$UMAD2SIM "$O/ibsmd" -c "$W/ibsmd.yaml" \
		--state-dir "$W/st" -o control_socket="$W/sock" 2>"$W/ibsmd.log" &
	DPID=$!; PIDS="$PIDS $DPID"
	until_true 900 0.2 adopted 1 || { echo "FAIL: no bring-up" >&2; return 1; }
	t1=$(now)
	BRING=$(echo "$t1 - $t0" | bc) SWEEP_SMPS=$(st smps_discovery)
	set -- $(heavy); HEAVY_OFF=$1 HEAVY_SMPS=$2
	P99_OFF=$(sa_p99)
	REP_OFF=$(repair "$P1" S1)
	# on: the SA load and a failure while a round's MADs flow
	conf true 60000 report
	until_true 120 0.1 ge perfmgr_mads 1 || { echo "FAIL: no round" >&2; return 1; }
	set -- $(heavy); HEAVY_ON=$1
	P99_ON=$(sa_p99)
	m0=$(st perfmgr_mads)
	REP_ON=$(repair "$P2" S2)
	MID=$(( $(st perfmgr_mads) - m0 ))
	until_true 120 0.5 ge perfmgr_rounds 1
	PACED_MADS=$(st perfmgr_last_mads) PACED_MS=$(st perfmgr_last_ms) PORTS=$(st perfmgr_ports)
	# raw: back to back
	conf true 1000 report
	rounds=$(st perfmgr_rounds)
	until_true 300 0.5 ge perfmgr_rounds $((rounds + 2))
	# one status: the figures of one round (they run back to back)
	read -r RAW_MADS RAW_MS SUMS < <("$O/ibsmctl" -s "$W/sock" status 2>/dev/null | awk '
		{ v[$1] = $2 } END { print v["perfmgr_last_mads"], v["perfmgr_last_ms"], v["perfmgr_last_sums"] "/" v["perfmgr_last_sums_moved"] }')
	# health: out of routing within how many intervals
	conf true 60000 isolate
	h=$(st heavy_sweeps)
	t0=$(now); echo "PerformanceSet \"S3\"[$P3] PortCounters.SymbolErrorCounter=1000" >&$SIMIN
	until_true 200 0.1 eval '[ "$(st health_unhealthy)" = 1 ] && adopted $((h + 1))' ||
		{ echo "FAIL: not isolated" >&2; return 1; }
	t1=$(now)
	OUT_S=$(echo "$t1 - $t0" | bc)
	grep -q "subnet up (incremental)" "$W/ibsmd.log" || echo "  (the hold was not incremental)" >&2
	# off again: the SA load once more without perfmgr, so the peer is
	# not only the first measurement of the run
	conf false 60000 report
	P99_OFF2=$(sa_p99)
	stop_sms; stop_sim
}

median() { tr ' ' '\n' | grep -v '^$' | grep -v fail | sort -g | awk '{ v[NR] = $1 } END { print (NR ? v[int((NR + 1) / 2)] : "n/a") }'; }
hosts=$(grep -c '^Hca' "$NET"); sw=$(grep -c '^Switch' "$NET")
echo "fabric: $hosts hosts, $sw switches; $RUNS runs; SA load $D s of 8 clients"
KEYS="BRING SWEEP_SMPS HEAVY_SMPS HEAVY_OFF HEAVY_ON P99_OFF P99_OFF2 P99_ON REP_OFF REP_ON MID PACED_MADS PACED_MS PORTS RAW_MADS RAW_MS OUT_S"
for k in $KEYS P99_PEER; do eval "all_$k="; done
for i in $(seq "$RUNS"); do
	one_run || continue
	P99_PEER=$(( (P99_OFF + P99_OFF2) / 2 ))
	for k in $KEYS P99_PEER; do
		eval "all_$k=\"\$all_$k \${$k}\""
	done
	echo "run $i (load $(cut -d' ' -f1-3 /proc/loadavg)): bring-up ${BRING}s, discovery Gets $SWEEP_SMPS, heavy sweep SMPs $HEAVY_SMPS," \
		"heavy sweep off/on ${HEAVY_OFF}/${HEAVY_ON}s, p99 off/on/off $P99_OFF/$P99_ON/$P99_OFF2 us, repair off/on ${REP_OFF}/${REP_ON}s ($MID perf MADs meanwhile)," \
		"round paced $PACED_MADS MADs ${PACED_MS}ms, raw $RAW_MADS MADs ${RAW_MS}ms for $PORTS ports" \
		"(switch sums/read port by port $SUMS)," \
		"out of routing ${OUT_S}s" >&2
done
m() { eval "echo \$all_$1" | median; }
python3 - "$(m P99_PEER)" "$(m P99_ON)" "$(m REP_OFF)" "$(m REP_ON)" "$(m RAW_MADS)" \
	"$(m SWEEP_SMPS)" "$(m RAW_MS)" "$(m PACED_MS)" "$(m PORTS)" "$(m OUT_S)" "$(m BRING)" \
	"$(m HEAVY_OFF)" "$(m HEAVY_ON)" "$(m HEAVY_SMPS)" <<'PY'
import sys
p99o, p99n, ro, rn, mads, smps, raw_ms, paced_ms, ports, out_s, bring, ho, hn, hsmps = sys.argv[1:]
f = lambda x: float(x) if x not in ("n/a", "") else float("nan")
print("| figure | median | peer (same run) | ratio |")
print("|---|---:|---:|---:|")
print("| SA PathRecord p99, perfmgr on | %s us | %s us off (mean of before and after) | %.2f |" % (p99n, p99o, f(p99n) / f(p99o)))
print("| leaf uplink repair, perfmgr on (mid-round) | %s s | %s s off | %.2f |" % (rn, ro, f(rn) / f(ro)))
print("| heavy sweep, perfmgr on (a round started) | %s s | %s s off | %.2f |" % (hn, ho, f(hn) / f(ho)))
print("| one round, unpaced: MADs | %s (%s ports) | %s discovery Gets of a heavy sweep | %.2f |" % (mads, ports, smps, f(mads) / f(smps)))
print("| one round, unpaced: MADs | %s | %s SMPs of a heavy sweep (ibsmctl sweep) | %.2f |" % (mads, hsmps, f(mads) / f(hsmps)))
print("| one round, unpaced: time | %s ms | | |" % raw_ms)
print("| one round, paced (60 s interval) | %s ms | | |" % paced_ms)
print("| erring link out of routing | %s s | 60 s interval | %.2f intervals |" % (out_s, f(out_s) / 60))
print("| bring-up, perfmgr off | %s s | | |" % bring)
print("targets: p99 <= +10%%: %s; repair <= 1 s: %s; round <= one sweep's SMPs: %s; out within 2 intervals: %s" % (
    "met" if f(p99n) <= 1.1 * f(p99o) else "MISSED",
    "met" if f(rn) <= 1 else "MISSED",
    "met" if f(mads) <= f(hsmps) else "MISSED",
    "met" if f(out_s) <= 120 else "MISSED"))
PY
