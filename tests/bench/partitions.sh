#!/bin/bash
# Partitions benchmark (not a test): on an ibsim fabric (default the
# 968-host 2-level fat tree, `ibsmgen fattree2 --hosts 968`; any net file
# of hosts H1..Hn as the argument), ibsmd and OpenSM 3.3.23 with the same
# three partitions (default: every port full, IPoIB; storage 0x0002:
# switches, H1 and H2 full, every other host limited; gpu 0x0003: H3, H4,
# H5 full), each run on a fresh ibsim, the SMs alternating:
#   bringup  start to exit of `ibsmd --once` and `opensm --once -P`, and
#            the P_KeyTable SMPs ibsmd sent (read, written);
#   sighup   the daemons up, H6..H13 added to gpu in the file, SIGHUP: to
#            ibsmd's next "P_KeyTable blocks written" log line (it sweeps
#            nothing), to OpenSM's next "SUBNET UP" (it sweeps); the blocks
#            ibsmd wrote;
# medians of N runs and their ratios.  Once, after ibsmd's first bring-up,
# every port's table is read back with smpquery and checked against the
# membership tests/integration/partitions_check.py derives by hand (4,000
# smpquery runs at 968 hosts, minutes; CHECK=0 skips it).
#
# usage: O=build [CHECK=0] tests/bench/partitions.sh [-n RUNS] [NETFILE]
set -u
O=${O:-build}
O=$(cd "$O" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
RUNS=3
if [ "${1:-}" = -n ]; then RUNS=$2; shift 2; fi
export UMAD2SIM=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
W=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-partitions.XXXXXX")
export IBSIM_SOCKNAME="ibsmdpk$$"
. "$(dirname "$0")/sim.bash"
cleanup() { stop_sms; stop_sim; [ -n "${KEEP_W:-}" ] || rm -rf "$W"; }
. "$(dirname "$0")/../procs.bash"
procs_guard cleanup
trap 'exit 143' TERM INT

bench_net "${1:-}"
HOSTS=$(grep -c '^Hca' "$NET")
# ibsim's GUIDs: hosts 0x100000 up by 2 in file order, port = node + 1
grep '^Hca' "$NET" | awk '{ gsub(/"/, "", $3); printf "%s 0x%016x\n", $3, 1048577 + 2 * (NR - 1) }' \
	>"$W/guids"
guid() { awk -v n="$1" '$1 == n { print $2; exit }' "$W/guids"; }

# ibsmd's file and OpenSM's: $1 = the last gpu host (5, then 13)
configs() {
	local last=$1 gpu="" i
	for i in $(seq 3 "$last"); do gpu="$gpu, H$i"; done
	cat >"$W/ibsmd.yaml" <<EOF
sm:
  sweep_interval_ms: 0
partitions:
  - {name: default, pkey: 0x7fff, ipoib: true, members: all}
  - {name: storage, pkey: 0x0002, members: [switches, H1, H2], limited: hosts}
  - {name: gpu, pkey: 0x0003, members: [${gpu#, }]}
EOF
	{
		echo "Default=0x7fff, ipoib : ALL=full ;"
		# one member a line: OpenSM reads 4 kB lines, a definition
		# may span lines
		printf 'storage=0x0002 : ALL_SWITCHES=full,\n%s=full,\n%s=full' \
			"$(guid H1)" "$(guid H2)"
		for i in $(seq 3 "$HOSTS"); do printf ',\n%s=limited' "$(guid "H$i")"; done
		echo " ;"
		printf 'gpu=0x0003 :'
		for i in $(seq 3 "$last"); do
			printf '%s\n%s=full' "$([ "$i" = 3 ] || echo ,)" "$(guid "H$i")"
		done
		echo " ;"
	} >"$W/partitions.conf"
}

# of the runs that did not fail (a failed run prints "fail")
median() { tr ' ' '\n' | grep -E '^[0-9]*\.?[0-9]+$' | sort -g | awk '{ v[NR] = $1 } END { print (NR ? v[int((NR + 1) / 2)] : "n/a") }'; }
ratio() { [ "$1" = n/a ] || [ "$2" = n/a ] && { echo n/a; return; }; echo "scale=3; $1 / $2" | bc; }
secs() { echo "$2 - $1" | bc; }

# ibsmd --once: "seconds gets sets"
bringup_ibsmd() {
	local t0 t1
	start_sim "$NET"
	rm -rf "$W/st"
	t0=$(now)
	SIM_HOST=H1 LD_PRELOAD=$UMAD2SIM "$O/ibsmd" --once -c "$W/ibsmd.yaml" \
		--state-dir "$W/st" >"$W/once.log" 2>&1 || { echo fail; stop_sim; return; }
	t1=$(now)
	if [ -n "${CHECK_TABLES:-}" ]; then
		CHECK_TABLES=
		SIM_HOST=H1 LD_PRELOAD=$UMAD2SIM ibnetdiscover -p >"$W/netp" 2>/dev/null
		python3 "$TOP/tests/integration/partitions_check.py" read "$W/netp" \
			"$W/t.json" >&2 &&
			python3 "$TOP/tests/integration/partitions_check.py" expect \
				"$W/t.json" rules >&2 || echo "TABLES WRONG" >&2
	fi
	stop_sim
	echo "$(secs "$t0" "$t1") $(sed -n 's/.*: \([0-9]*\) P_KeyTable blocks written to [0-9]* ports, \([0-9]*\) read.*/\2 \1/p' "$W/once.log")"
}

bringup_osm() {
	local t0 t1
	start_sim "$NET"
	rm -rf "$W/osm"; mkdir -p "$W/osm"
	t0=$(now)
	OSM_CACHE_DIR=$W/osm SIM_HOST=H1 LD_PRELOAD=$UMAD2SIM opensm --once -P \
		"$W/partitions.conf" -f "$W/osm.file" >/dev/null 2>&1 || { echo fail; stop_sim; return; }
	t1=$(now)
	stop_sim
	secs "$t0" "$t1"
}

st() { "$O/ibsmctl" -s "$W/sock" status 2>/dev/null | awk -v k="$1" '$1 == k { print $2; exit }'; }
count() { grep -c "$1" "$2" 2>/dev/null || echo 0; }
more_than() { [ "$(count "$1" "$2")" -gt "$3" ]; }
up_idle() { [ "$(st heavy_sweeps)" -ge 1 ] && [ "$(st sweep_state)" = IDLE ]; }

# the daemon, a SIGHUP: "seconds blocks pass_ms" (the pass: from the
# reload to the last block acknowledged, ibsmd's own log)
sighup_ibsmd() {
	local n0 s0 t0 t1 pid
	configs 5
	start_sim "$NET"
	rm -rf "$W/st"; mkdir -p "$W/st"
	SIM_HOST=H1 LD_PRELOAD=$UMAD2SIM "$O/ibsmd" -c "$W/ibsmd.yaml" \
		--state-dir "$W/st" -o control_socket="$W/sock" >"$W/d.log" 2>&1 &
	pid=$!; PIDS="$PIDS $pid"
	until_true 120 0.05 up_idle || { echo fail; stop_sms; stop_sim; return; }
	n0=$(count "P_KeyTable blocks written" "$W/d.log"); s0=$(st smps_pkey_sets)
	configs 13
	t0=$(now)
	kill -HUP "$pid"
	until_true 60 0.01 more_than "P_KeyTable blocks written" "$W/d.log" "$n0" ||
		{ echo fail; stop_sms; stop_sim; return; }
	t1=$(now)
	echo "$(secs "$t0" "$t1") $(( $(st smps_pkey_sets) - s0 )) $(grep "P_KeyTable blocks written" "$W/d.log" |
		tail -1 | sed -n 's/.*reload, \([0-9.]*\) ms.*/\1/p')"
	stop_sms; stop_sim
}

sighup_osm() {
	local n0 t0 t1 pid
	configs 5
	start_sim "$NET"
	rm -rf "$W/osm"; mkdir -p "$W/osm"
	OSM_CACHE_DIR=$W/osm SIM_HOST=H1 LD_PRELOAD=$UMAD2SIM opensm -P \
		"$W/partitions.conf" -d2 -f "$W/osmd.log" >/dev/null 2>&1 &
	pid=$!; PIDS="$PIDS $pid"
	until_true 120 0.05 more_than "SUBNET UP" "$W/osmd.log" 0 || { echo fail; stop_sms; stop_sim; return; }
	# OpenSM may sweep again after its first SUBNET UP: wait until no
	# new one came for 2 s
	n0=0
	while [ "$(count "SUBNET UP" "$W/osmd.log")" != "$n0" ]; do
		n0=$(count "SUBNET UP" "$W/osmd.log")
		sleep 2
	done
	configs 13
	t0=$(now)
	kill -HUP "$pid"
	until_true 60 0.02 more_than "SUBNET UP" "$W/osmd.log" "$n0" ||
		{ echo fail; stop_sms; stop_sim; return; }
	t1=$(now)
	secs "$t0" "$t1"
	stop_sms; stop_sim
}

bi=""; bo=""; gets=""; sets=""; hi=""; ho=""; blocks=""; hp=""
CHECK_TABLES=${CHECK:-1}
[ "$CHECK_TABLES" = 0 ] && CHECK_TABLES=
for r in $(seq "$RUNS"); do
	configs 5
	read -r t g s < <(bringup_ibsmd); bi="$bi $t"; gets=$g; sets=$s
	CHECK_TABLES=
	bo="$bo $(bringup_osm)"
	read -r t b p < <(sighup_ibsmd); hi="$hi $t"; blocks=$b; hp="$hp $p"
	ho="$ho $(sighup_osm)"
	echo "run $r: bringup ibsmd [$bi ] opensm [$bo ]; sighup ibsmd [$hi ] (pass ms [$hp ]) opensm [$ho ]" >&2
done
mbi=$(echo "$bi" | median); mbo=$(echo "$bo" | median)
mhi=$(echo "$hi" | median); mho=$(echo "$ho" | median); mhp=$(echo "$hp" | median)
printf "fabric: %s hosts, %s switches; %s runs\n" "$HOSTS" "$(grep -c '^Switch' "$NET")" "$RUNS"
echo "bring-up with partitions: ibsmd $mbi s, OpenSM $mbo s, ratio $(ratio "$mbi" "$mbo"); ibsmd P_KeyTable blocks read ${gets:-?}, written ${sets:-?}"
echo "SIGHUP adding 8 hosts to a partition: ibsmd $mhi s (0.3 s of it the SIGHUP coalescing wait; the pass $mhp ms, no sweep, ${blocks:-?} blocks written), OpenSM $mho s (heavy sweep), ratio $(ratio "$mhi" "$mho")"
