#!/bin/bash
# Metrics endpoint benchmark (not a test), on one ibsim fabric with ibsmd
# running as a daemon with metrics.listen and the performance manager on
# (perfmgr.interval_ms 60000), so the page has every port's counters:
#   1. /metrics answer time, each scrape making a fresh page (1.2 s apart,
#      the page is shared within a second) and back to back (shared page),
#      curl's time_total, the page's own render time
#      (ibsmd_metrics_last_render_seconds) and the port families' block
#      (ibsmd_perfmgr_page_build_seconds, made in slices once per
#      round); target
#      < 50 ms at 16,000 hosts.
#   2. SA PathRecord p99 (tests/sim/sa_load: 8 clients, window 8, LIDs
#      from guid2lid) with perfmgr off and on (a round's MADs flowing:
#      SIGHUP with perfmgr.enable, the off run waits until no PerfMgt MAD
#      has been sent for 2 s), RUNS pairs, the order alternated (the answer
#      cache favours the second of a pair); target p99 on/off <= 1.10.
#   3. the same without and with SCRAPERS concurrent scrapers (scrapers.py,
#      each scraping every SECONDS), perfmgr on, RUNS pairs alternated;
#      target: the scrapers do not slow the SA (p99 ratio ~1).
# OpenSM has no metrics endpoint and no perfmgr on by default; the SA
# figures are ibsmd's own with and without, in the same run.
#   usage: O=build tests/bench/metrics.sh [-n RUNS] [-s SCRAPERS] [-i SECONDS] [FABRIC]
#     SCRAPERS (default 100) scraping every SECONDS (default 1) in part 3
#     FABRIC: ft3:K (ibsmgen fattree3 --k K; default ft3:40, 16,000 hosts)
#             or a .net file
set -u
O=$(cd "${O:-build}" && pwd)
RUNS=3 NSCR=100 ISCR=1
while [ $# -gt 0 ]; do
	case $1 in
	-n) RUNS=$2; shift 2 ;;
	-s) NSCR=$2; shift 2 ;;
	-i) ISCR=$2; shift 2 ;;
	*) break ;;
	esac
done
SPEC=${1:-ft3:40}
UMAD2SIM=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
W=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-mbench.XXXXXX")
export IBSIM_SOCKNAME="ibsmdmbench$$"
HERE=$(cd "$(dirname "$0")" && pwd)
cleanup() { stop_sms; stop_sim; rm -rf "$W"; }
. "$HERE/../procs.bash"
procs_guard cleanup
. "$HERE/sim.bash"
cd "$W" # umad2sim leaves sys-PID directories in the working directory
for c in ibsim curl python3; do
	command -v $c >/dev/null || { echo "SKIP: $c not installed"; exit 77; }
done

case $SPEC in
ft3:*) "$O/ibsmgen" fattree3 --k "${SPEC#ft3:}" -o "$W/fabric.net" 2>/dev/null ;;
*) cp "$SPEC" "$W/fabric.net" ;;
esac || { echo "cannot make $SPEC"; exit 1; }
hosts=$(grep -c '^Hca' "$W/fabric.net"); sw=$(grep -c '^Switch' "$W/fabric.net")
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
load0=$(cut -d' ' -f1-3 /proc/loadavg)
echo "fabric $SPEC: $hosts hosts, $sw switches; load $load0 ($(nproc) CPUs)"

conf() { # conf true|false: perfmgr on or off (SIGHUP applies it, no sweep)
	printf 'metrics:\n  listen: 127.0.0.1:%s\nperfmgr:\n  enable: %s\n  interval_ms: 60000\n' \
		"$port" "$1" >"$W/ibsmd.yaml"
}
conf true
start_sim "$W/fabric.net"
LD_PRELOAD=$UMAD2SIM "$O/ibsmd" -c "$W/ibsmd.yaml" --state-dir "$W/st" -o control_socket="$W/s.sock" \
	>"$W/ibsmd.log" 2>&1 &
PIDS=$!
up() { "$O/ibsmctl" -s "$W/s.sock" status 2>/dev/null | grep -qx 'sm_state MASTER' &&
	"$O/ibsmctl" -s "$W/s.sock" status | awk '$1 == "heavy_sweeps" && $2 > 0 { ok = 1 } END { exit !ok }'; }
t0=$(now)
until_true 600 1 up || { tail "$W/ibsmd.log"; echo "FAIL: no subnet up"; exit 1; }
echo "subnet up after $(echo "$(now) - $t0" | bc) s"
st() { "$O/ibsmctl" -s "$W/s.sock" status 2>/dev/null | awk -v k="$1" '$1 == k { print $2; exit }'; }
rounds_ge() { [ "$(st perfmgr_rounds)" -ge "$1" ] 2>/dev/null; }
until_true 300 1 rounds_ge 1 || { echo "FAIL: no perfmgr round"; exit 1; }
echo "first perfmgr round: $(st perfmgr_ports) ports, $(st perfmgr_last_mads) MADs, $(st perfmgr_last_ms) ms"

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR ? v[int((NR + 1) / 2)] : "n/a") }'; }
scrape_ms() { curl -s -o "$W/page" -w '%{time_total}\n' "http://127.0.0.1:$port/metrics" | awk '{ print $1 * 1000 }'; }
render_ms() { awk '$1 == "ibsmd_metrics_last_render_seconds" { print $2 * 1000 }' "$W/page"; }
block_ms() { awk '$1 == "ibsmd_perfmgr_page_build_seconds" { print $2 * 1000 }' "$W/page"; }

fresh=(); renders=(); shared=()
# the port families' block of the first round, made in slices after it
# (a block made before it, from the empty table, has no port in it)
built() { scrape_ms >/dev/null; grep -q '^ibsmd_port_' "$W/page"; }
until_true 120 1 built || echo "  (no port families' block yet)"
echo "port families' block made in $(block_ms) ms of loop time (once per round, in slices)"
for _ in $(seq 15); do
	sleep 1.2
	fresh+=("$(scrape_ms)")
	scrape_ms >/dev/null # the page this scrape made reports its own render time
	renders+=("$(render_ms)")
done
for _ in $(seq 15); do shared+=("$(scrape_ms)"); done
mf=$(printf '%s\n' "${fresh[@]}" | median); mr=$(printf '%s\n' "${renders[@]}" | median)
ms=$(printf '%s\n' "${shared[@]}" | median)
maxf=$(printf '%s\n' "${fresh[@]}" | sort -g | tail -1)
echo "/metrics at $hosts hosts: fresh page median $mf ms (max $maxf ms, render $mr ms, port block $(block_ms) ms), shared page median $ms ms; page $(wc -c <"$W/page") bytes, $(grep -vc '^#' "$W/page") samples, $(grep -c '^ibsmd_port_' "$W/page") of them port counters"
echo "  target < 50 ms: $(echo "$maxf < 50" | bc | sed 's/1/met/; s/0/MISSED/') (max/target $(echo "scale=2; $maxf / 50" | bc))"

# LIDs of the end ports for the SA clients: 2,000 of guid2lid's
python3 -c 'import sys
for l in open(sys.argv[1]):
    w = l.split()
    if len(w) > 1: print(int(w[1], 0))' "$W/st/guid2lid" |
	shuf -n 2000 --random-source=<(yes) >"$W/lids"
sa_run() { # sa_run TAG: 8 clients x 3,000 PathRecord Gets; pooled p99 (us)
	local cl=() i
	rm -f "$W/lat".*
	for i in $(seq 2 9); do
		SIM_HOST=H$i LD_PRELOAD=$UMAD2SIM "$O/tests/sim/sa_load" -t path -n 3000 -w 8 \
			-l "$(shuf --random-source=<(yes $i) "$W/lids" | head -1500 | paste -sd,)" \
			-o "$W/lat.$i" >"$W/out.$i" 2>&1 &
		cl+=($!)
	done
	wait "${cl[@]}"
	cat "$W"/lat.* | sort -n | awk '{ v[NR] = $1 } END { print v[int(NR * 0.99)], NR }'
}
# SA p99 with perfmgr off and on, alternated; the round's MADs flow for
# 45 s of each 60 s interval, so the on run starts as soon as they do.
pm_busy() { local a; a=$(st perfmgr_mads); sleep 1; [ "$(st perfmgr_mads)" -gt "$a" ]; }
pm_quiet() { local a; a=$(st perfmgr_mads); sleep 2; [ "$(st perfmgr_mads)" = "$a" ]; }
pm_set() { conf "$1"; kill -HUP "$PIDS"; sleep 1; }
pm_on_run() {
	pm_set true
	until_true 60 0.5 pm_busy || echo "  (no PerfMgt MADs flowing)" >&2
	m0=$(st perfmgr_mads)
	read -r q1 k1 < <(sa_run on)
	pmads=$(( $(st perfmgr_mads) - m0 ))
}
pm_off_run() {
	pm_set false
	until_true 120 1 pm_quiet || echo "  (PerfMgt MADs still flowing)" >&2
	read -r q0 k0 < <(sa_run off)
}
off=(); on=()
for r in $(seq "$RUNS"); do
	if [ $((r % 2)) = 1 ]; then pm_off_run; pm_on_run; else pm_on_run; pm_off_run; fi
	off+=("$q0"); on+=("$q1")
	echo "pair $r (load $(cut -d' ' -f1 /proc/loadavg)): PathRecord p99 perfmgr off $q0 us ($k0 answers), on $q1 us ($k1 answers, $pmads PerfMgt MADs meanwhile), ratio $(echo "scale=2; $q1 / $q0" | bc)"
done
m0=$(printf '%s\n' "${off[@]}" | median); m1=$(printf '%s\n' "${on[@]}" | median)
echo "PathRecord p99 median: perfmgr off $m0 us, on $m1 us: ratio $(echo "scale=2; $m1 / $m0" | bc); per pair: $(for i in "${!on[@]}"; do echo -n "$(echo "scale=2; ${on[$i]} / ${off[$i]}" | bc) "; done)"
pm_set true
until_true 60 0.5 pm_busy

without=(); with=()
with_scrapers() { # the SA run with the scrapers going
	python3 "$HERE/scrapers.py" "$port" "$NSCR" "$ISCR" 600 >"$W/scr.$r" 2>&1 &
	SCR=$!
	sleep 2
	read -r p1 n1 < <(sa_run with)
	kill $SCR 2>/dev/null; wait $SCR 2>/dev/null
}
# The SA's answer cache makes a run of the same queries faster after
# another: odd runs go without scrapers first, even runs with them first.
for r in $(seq "$RUNS"); do
	if [ $((r % 2)) = 1 ]; then
		read -r p0 n0 < <(sa_run without)
		with_scrapers
	else
		with_scrapers
		read -r p0 n0 < <(sa_run without)
	fi
	without+=("$p0"); with+=("$p1")
	echo "run $r (load $(cut -d' ' -f1 /proc/loadavg)): PathRecord p99 without scrapers $p0 us ($n0 answers), with $NSCR scrapers $p1 us ($n1 answers), ratio $(echo "scale=2; $p1 / $p0" | bc); $(cat "$W/scr.$r" 2>/dev/null)"
done
m0=$(printf '%s\n' "${without[@]}" | median); m1=$(printf '%s\n' "${with[@]}" | median)
echo "PathRecord p99 median: without $m0 us, with $NSCR scrapers $m1 us: ratio $(echo "scale=2; $m1 / $m0" | bc); per pair: $(for i in "${!with[@]}"; do echo -n "$(echo "scale=2; ${with[$i]} / ${without[$i]}" | bc) "; done)"
echo "load $load0 -> $(cut -d' ' -f1-3 /proc/loadavg)"
