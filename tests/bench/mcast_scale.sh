#!/bin/bash
# MR4LMS at the paper's scale in the daemon (not a test): the MR4LMS
# paper's machine, a 3-level pruned fat tree of 40,960 hosts (ibsmgen
# pruned3, 1,632 switches, 42,592 LIDs, ibsim -L 49152) with a 128-entry
# MFT (ibsim -M 128), and its 10,496 collective groups (the 128x32x40 grid
# at 4 processes per host, MemberCount set: 368,640 joins, one per group
# and member port).  Several client nodes (tests/sim/mcast_joins) send the
# joins, each for thousands of ports (proxy joins, sa.proxy_join
# partition), each with many outstanding at once, as a job's processes do.
#
# Per run of ibsmd (state directory on disk and on tmpfs):
#   - bring-up (ibsmd start to MASTER with the subnet up);
#   - joins per second (all clients, first join sent to last answer) and
#     the join answer p99 (each client's p99; the largest);
#   - last join -> last group Ready (MCGStateRecord, asked by the clients);
#   - MFT blocks sent (ibsmctl mcg stats), journal writes and syncs;
#   - every MLID <= 0xC000 + MFT size - 1;
#   - with --walk (first run): the MFTs of every switch read back with
#     ibroute -M deliver every group (tests/integration/mcast_walk.py);
#   - with --kill (first run): ibsmd SIGKILLed mid-burst, restarted: every
#     acknowledged join is still there;
#   - with --failover (first run): a standby ibsmd copies the master's
#     state; the master is SIGKILLed after every group is Ready; the time to
#     the standby master with every group Ready, and every MGID and MLID
#     kept;
#   - the leaves at job end (every client leaves every join): every group
#     destroyed, no MFT entry left (mcg stats; mfts.dump).
# OpenSM 3.3.23 on the same fabric (--maxsmps 64): bring-up, and standard
# joins of the same grid's groups in the same order until its MLIDs or MFT
# run out (OpenSM gives each group its own MLID); ibsmd runs the same
# standard joins in the same run, so the ratio compares like with like.
#
# usage: O=build tests/bench/mcast_scale.sh [-n RUNS] [--net FILE]
#        [--grid XxYxZ] [--ppn N] [--mft N] [--clients N] [--window N]
#        [--cap N] [--walk] [--kill] [--failover] [--no-opensm]
#        [--state disk|tmpfs|both]
# Defaults: the paper's fabric and pattern, 3 runs, 7 clients, 64 joins
# outstanding each, both state directories.  The machine is shared: the
# load average is printed with every run.
set -u
O=${O:-build}
O=$(cd "$O" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
RUNS=3 NETARG= GRID=128x32x40 PPN=4 MFT=128 CL=7 WIN=64 CAP=49152
WALK= KILL= FAILOVER= OPENSM=1 STATES="disk tmpfs"
while [ $# -gt 0 ]; do
	case $1 in
	-n) RUNS=$2; shift ;;
	--net) NETARG=$2; shift ;;
	--grid) GRID=$2; shift ;;
	--ppn) PPN=$2; shift ;;
	--mft) MFT=$2; shift ;;
	--clients) CL=$2; shift ;;
	--window) WIN=$2; shift ;;
	--cap) CAP=$2; shift ;;
	--walk) WALK=1 ;;
	--kill) KILL=1 ;;
	--failover) FAILOVER=1 ;;
	--no-opensm) OPENSM= ;;
	--state) case $2 in both) STATES="disk tmpfs" ;; *) STATES=$2 ;; esac; shift ;;
	*) echo "usage: see the top of $0" >&2; exit 2 ;;
	esac
	shift
done
UMAD2SIM=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
# the scratch directory is on disk (the build tree's file system): the
# "disk" state directory lives in it; "tmpfs" uses /dev/shm
W=$(mktemp -d "$O/bench-mcast-scale.XXXXXX")
SHM=
export IBSIM_SOCKNAME="ibsmdms$$"
. "$(dirname "$0")/sim.bash"
SIM_EXTRA="-L $CAP -M $MFT"
cleanup() { stop_sms; stop_sim; rm -rf "$W" ${SHM:+"$SHM"}; }
. "$(dirname "$0")/../procs.bash"
procs_guard cleanup
trap 'exit 143' TERM INT
cd "$W" || exit 1 # libumad2sim makes sys-PID directories here

NET=$W/fabric.net
if [ -n "$NETARG" ]; then cp "$NETARG" "$NET"; else
	"$O/ibsmgen" pruned3 --pods 40 --leaves 32 --hosts-per-leaf 32 \
		--middles 8 --tops 32 --uplinks 16 -o "$NET" 2>/dev/null || exit 1
fi
"$O/ibsmpattern" "$NET" grid "$GRID" --ppn "$PPN" --members desc \
	-o "$W/pattern" 2>/dev/null || exit 1
NG=$(grep -c '^+' "$W/pattern")

bg() { local h=$1; shift; SIM_HOST=$h LD_PRELOAD=$UMAD2SIM "$@" & BG=$!; PIDS="$PIDS $BG"; }
st() { "$O/ibsmctl" -s "$W/$1.sock" status 2>/dev/null | awk -v k="$2" '$1 == k { print $2; exit }'; }
mst() { "$O/ibsmctl" -s "$W/$1.sock" mcg stats 2>/dev/null | awk -v k="$2" '$1 == k { print $2; exit }'; }
field() { awk -v k="$1" '$1 == k { print $2; exit }'; }
up() { [ "$(st "$1" sm_role)" = MASTER ] && [ "$(st "$1" heavy_sweeps)" -ge 1 ] &&
	[ "$(st "$1" sweep_state)" = IDLE ]; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

# Host name -> port GUID as ibsim numbers them: CA node GUIDs from
# 0x100000 in file order, each CA taking its port count + 1, port n at
# node GUID + n (ibsim/sim_net.c); ibnetdiscover at this size takes
# minutes.  A wrong GUID would show as refused joins (joins_ok).
net_guids() {
	awk -v ca=$((0x100000)) '/^(Hca|Ca)[ \t]/ { n = $2; name = $3
		gsub(/"/, "", name); printf "%s 0x%016x\n", name, ca + 1
		ca += n + 1 }' "$1"
}

# The join files: one per client, whole groups each, dealt round robin
# (MC 1: MemberCount set, collective; 0: standard), the first MAX groups.
guids() { # MC OUT MAX
	net_guids "$NET" >"$W/guids"
	awk -v mc="$1" -v out="$2" -v n="$CL" -v max="$3" '
		NR == FNR { g[$1] = $2; next }
		$1 == "+" && k < max { c = k++ % n
			for (i = 3; i <= NF; i++)
				print $2, g[$i], (mc ? NF - 2 : 0) > (out "." c) }' \
		"$W/guids" "$W/pattern"
}

start_ibsmd() { # NAME HOST STATEDIR [ibsmd args...]
	local n=$1 h=$2 d=$3
	shift 3
	bg "$h" "$O/ibsmd" --state-dir "$d" -o control_socket="$W/$n.sock" \
		-o log.level=notice -o multicast.join_rate=1000000 \
		-o multicast.join_burst=1000000 -o control.max_output=1073741824 \
		-o multicast.join_timeout_ms=600000 "$@" 2>>"$W/ibsmd-$n.log"
}

# joins FILES [mcast_joins args]: every client at once, waited for; the
# figures of the run in $W/agg
joins() {
	local files=$1 pids= i
	shift
	for i in $(seq 0 $((CL - 1))); do
		SIM_HOST=H$((i + 3)) LD_PRELOAD=$UMAD2SIM \
			"$O/tests/sim/mcast_joins" -w "$WIN" --retry-busy "$@" \
			"$files.$i" >"$files.out.$i" 2>&1 &
		pids="$pids $!"
	done
	for p in $pids; do wait "$p"; done
	cat "$files".out.* | awk '
		$1 == "joins" { j += $2 } $1 == "ok" { ok += $2 }
		$1 == "seconds" { s[++n] = $2 } $1 == "last_join_epoch" { e[n] = $2 }
		$1 == "p99_ms" && $2 > p99 { p99 = $2 }
		$1 == "ready_ms" { r[n] = $2 }
		END {
			for (i = 1; i <= n; i++) {
				st = e[i] - s[i]; if (!t0 || st < t0) t0 = st
				if (e[i] > t1) t1 = e[i]
				if (r[i] < 0) bad = 1
				re = e[i] + r[i] / 1000; if (re > rdy) rdy = re
			}
			printf "joins %d\nok %d\njps %.0f\np99 %.1f\nready_s %s\n",
				j, ok, j / (t1 - t0), p99,
				bad ? "never" : sprintf("%.2f", rdy - t1)
		}' >"$W/agg"
}

# mcg list: "MGID MLID STATE" per group but the partitions' IPoIB group
groups_of() {
	"$O/ibsmctl" -s "$W/$1.sock" mcg list 2>/dev/null | awk '
		$1 !~ /^ff12:401b/ { m = $2; sub(/mlid=/, "", m)
			s = $3; sub(/state=/, "", s); print $1, m, s }' | sort
}

# walk NAME: every switch's MFT read back with ibroute -M, walked for
# every group with mcast_walk.py (which trusts only the tools' output)
walk() {
	local lids
	SIM_HOST=H2 LD_PRELOAD=$UMAD2SIM ibnetdiscover >"$W/topo.txt" 2>/dev/null
	lids=$(awk '/^Switch/ { for (i = 1; i < NF; i++) if ($i == "lid") print $(i + 1) }' "$W/topo.txt")
	: >"$W/mfts.txt"
	for l in $lids; do
		SIM_HOST=H2 LD_PRELOAD=$UMAD2SIM ibroute -M "$l" >>"$W/mfts.txt" 2>/dev/null
	done
	groups_of "$1" | awk 'NR == FNR { m[$1] = $2; next }
		$1 == "+" { printf "%s %s", $2, m[$2]
			for (i = 3; i <= NF; i++) printf " %s", $i; print "" }' \
		- "$W/pattern" >"$W/walk.groups"
	python3 "$TOP/tests/integration/mcast_walk.py" "$W/topo.txt" \
		"$W/mfts.txt" "$W/walk.groups" | tail -1
}

# The figures of one ibsmd run go to $W/res as "key value" lines.
res() { echo "$1 $2" >>"$W/res"; }
M=a # the master's name (b after a failover)

# mft_entries: MFT entries of every switch read back (ibroute -M), with
# the walk's files
mft_entries() { grep -c '^0xc' "$W/mfts.txt"; }

# failover: standby b (started before the joins) takes over from a
failover() {
	local t0 t1
	until_true 900 0.5 eval '[ "$(st b mcast_copy)" = current ]' ||
		{ res failover_s nocopy; return; }
	groups_of a >"$W/groups.a"
	sleep 1
	t0=$(now); { kill -9 "$A"; wait "$A"; } 2>/dev/null
	allready() { up b && [ "$(groups_of b | grep -c ' Ready$')" -ge "$NG" ]; }
	until_true 900 0.1 allready || { res failover_s fail; return; }
	t1=$(now)
	M=b
	groups_of b >"$W/groups.b"
	res failover_s "$(echo "$t1 - $t0" | bc)"
	res failover_kept "$(comm -12 "$W/groups.a" "$W/groups.b" | wc -l)/$(wc -l <"$W/groups.a")"
	res failover_mft_blocks "$(mst b mft_blocks_sent)"
}

# kill_run DIR: a burst with every answer logged, the master SIGKILLed in
# its middle and restarted: how many acknowledged joins are lost
kill_run() {
	local d=$1 n lost pids=
	: >"$W/acked"
	for i in $(seq 0 $((CL - 1))); do
		SIM_HOST=H$((i + 3)) LD_PRELOAD=$UMAD2SIM "$O/tests/sim/mcast_joins" \
			-w "$WIN" --retry-busy --acked "$W/acked" "$W/coll.$i" \
			>/dev/null 2>&1 &
		pids="$pids $!"
	done
	until_true 600 0.1 eval '[ "$(wc -l <"$W/acked")" -ge $((NG * 4)) ]'
	{ kill -9 "$A"; wait "$A"; } 2>/dev/null; sleep 2
	{ kill -9 $pids; wait $pids; } 2>/dev/null
	n=$(wc -l <"$W/acked")
	start_ibsmd a H1 "$d" -o sm.priority=10; A=$BG; M=a
	until_true 900 0.2 up a || { res kill_lost noup; return; }
	"$O/ibsmctl" -s "$W/a.sock" mcg list >"$W/list.k"
	lost=$(awk 'NR == FNR { m = $0; sub(/.*members=/, "", m); g[$1] = "," m ","; next }
		{ if (index(g[$1], "," $2 ",") == 0) bad++ } END { print bad + 0 }' \
		"$W/list.k" "$W/acked")
	res kill_acked "$n"
	res kill_lost "$lost"
}

run_ibsmd() { # KIND(disk|tmpfs) FIRST(1|"")
	local kind=$1 first=$2 d t0 t1 js mb
	: >"$W/res"
	M=a
	if [ "$kind" = tmpfs ]; then
		SHM=$(mktemp -d /dev/shm/ibsmd-ms.XXXXXX); d=$SHM
	else
		d=$W/st-a; rm -rf "$d"; mkdir -p "$d"
	fi
	res load "$(load | tr ' ' /)"
	start_sim "$NET"
	t0=$(now)
	start_ibsmd a H1 "$d" -o sm.priority=10; A=$BG
	until_true 900 0.2 up a || { res bringup_s fail; stop_sms; stop_sim; return; }
	t1=$(now)
	res bringup_s "$(echo "$t1 - $t0" | bc)"
	res bringup_rss_mb "$(($(awk '/VmHWM/ { print $2 }' "/proc/$A/status") / 1024))"
	if [ -n "$first" ] && [ -n "$FAILOVER" ]; then
		rm -rf "$W/st-b"; mkdir -p "$W/st-b"
		start_ibsmd b H2 "$W/st-b" -o sm.priority=1
		until_true 600 0.5 eval '[ "$(st b sm_role)" = STANDBY ]'
	fi
	js=$(mst a journal_syncs)
	joins "$W/coll" --wait-ready --ready-timeout 900
	sed 's/^/joins_/' "$W/agg" >>"$W/res"
	res mft_blocks "$(mst a mft_blocks_sent)"
	res journal_syncs "$(($(mst a journal_syncs) - js))"
	res colors_used "$(mst a colors_used)"
	res ready_groups "$(groups_of a | grep -c ' Ready$')/$NG"
	res max_mlid "$(groups_of a | awk '{ if ($2 > m) m = $2 } END { print m }')"
	res rss_mb "$(($(awk '/VmHWM/ { print $2 }' "/proc/$A/status") / 1024))"
	if [ -n "$first" ] && [ -n "$WALK" ]; then
		res walk "$(walk a | tr ' ' _)"
		res mft_entries "$(mft_entries)"
	fi
	[ -n "$first" ] && [ -n "$FAILOVER" ] && failover
	# the job ends: every member leaves; groups and MFT entries go
	mb=$(mst $M mft_blocks_sent)
	joins "$W/coll" --leave-only
	cat "$W"/coll.out.* | awk '$1 == "leaves" { n += $2 }
		$1 == "leave_seconds" { s = $2 }
		$1 == "last_leave_epoch" { st = $2 - s; if (!t0 || st < t0) t0 = st
			if ($2 > t1) t1 = $2 }
		$1 == "leave_p99_ms" && $2 > p { p = $2 }
		END { printf "leaves_per_s %.0f\nleave_p99_ms %.1f\n", n / (t1 - t0), p }' >>"$W/res"
	until_true 300 0.5 eval '[ "$(groups_of $M | wc -l)" = 0 ]'
	res groups_after_leaves "$(groups_of $M | wc -l)"
	until_true 60 0.5 eval '[ "$(mst $M colors_used)" = 0 ]'
	sleep 1 # the last MFT pass
	res colors_after_leaves "$(mst $M colors_used)"
	res mft_blocks_leaves "$(($(mst $M mft_blocks_sent) - mb))"
	if [ -n "$first" ] && [ -n "$WALK" ]; then
		walk $M >/dev/null
		res mft_entries_after_leaves "$(mft_entries)"
	fi
	stop_sms; stop_sim
	[ -n "$SHM" ] && rm -rf "$SHM" && SHM=
}

# --kill: a burst on disk with the master SIGKILLed in its middle
run_kill() {
	: >"$W/res"
	res load "$(load | tr ' ' /)"
	rm -rf "$W/st-k"; mkdir -p "$W/st-k"
	start_sim "$NET"
	start_ibsmd a H1 "$W/st-k" -o sm.priority=10; A=$BG; M=a
	until_true 900 0.2 up a || { res bringup_s fail; stop_sms; stop_sim; return; }
	kill_run "$W/st-k"
	stop_sms; stop_sim
}

# OpenSM: bring-up, then the standard joins (until its MLIDs run out)
run_opensm() {
	local t0 t1
	: >"$W/res"
	res load "$(load | tr ' ' /)"
	start_sim "$NET"
	rm -rf "$W/osm"; mkdir -p "$W/osm"
	t0=$(now)
	OSM_CACHE_DIR=$W/osm bg H1 opensm -k 0 --maxsmps 64 -d2 -f "$W/osm/log" >/dev/null 2>&1
	A=$BG
	until_true 1800 0.2 grep -q "SUBNET UP" "$W/osm/log" || { res bringup_s fail; stop_sms; stop_sim; return; }
	t1=$(now)
	res bringup_s "$(echo "$t1 - $t0" | bc)"
	res bringup_rss_mb "$(($(awk '/VmHWM/ { print $2 }' "/proc/$A/status") / 1024))"
	joins "$W/std"
	sed 's/^/std_/' "$W/agg" >>"$W/res"
	res std_groups "$(cat "$W"/std.out.* | awk '$1 == "groups_created" { s += $2 } END { print s }')"
	stop_sms; stop_sim
}

# ibsmd with the same standard joins (no MemberCount), for the ratio
run_ibsmd_std() {
	: >"$W/res"
	res load "$(load | tr ' ' /)"
	rm -rf "$W/st-s"; mkdir -p "$W/st-s"
	start_sim "$NET"
	start_ibsmd a H1 "$W/st-s"; A=$BG; M=a
	until_true 900 0.2 up a || { res bringup_s fail; stop_sms; stop_sim; return; }
	joins "$W/std"
	sed 's/^/std_/' "$W/agg" >>"$W/res"
	res std_groups "$(cat "$W"/std.out.* | awk '$1 == "groups_created" { s += $2 } END { print s }')"
	stop_sms; stop_sim
}

# median KEY FILE...: the median of KEY's numeric values in the files
median() {
	local k=$1; shift
	cat "$@" | awk -v k="$k" '$1 == k && $2 ~ /^[0-9.]+$/ { print $2 }' | sort -g |
		awk '{ v[NR] = $1 } END { if (!NR) print "n/a"; else if (NR % 2) print v[(NR + 1) / 2];
			else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

guids 1 "$W/coll" "$NG"
# standard joins: as many groups as OpenSM has MLIDs for (one each; the
# partitions' IPoIB group holds 0xC000)
guids 0 "$W/std" $((MFT - 1))
printf "fabric: %s (%s), ibsim %s; pattern grid %s --ppn %s: %s groups, %s joins;\n" \
	"$(head -1 "$NET" | sed 's/# generated by: //')" "$("$O/ibsmgen" ibsim-args "$NET")" \
	"$SIM_EXTRA" "$GRID" "$PPN" "$NG" "$(cat "$W"/coll.[0-9]* | wc -l)"
printf "%s clients x %s joins outstanding, proxy joins; %s runs; %s\n\n" "$CL" "$WIN" "$RUNS" "$(nproc) CPUs"
for r in $(seq "$RUNS"); do
	first=; [ "$r" = 1 ] && first=1
	for kind in $STATES; do
		run_ibsmd "$kind" "$first"
		cp "$W/res" "$W/res.ibsmd.$kind.$r"
		echo "ibsmd $kind run $r: $(tr '\n' ' ' <"$W/res")"
		first=
	done
	if [ -n "$OPENSM" ] && command -v opensm >/dev/null; then
		run_ibsmd_std; cp "$W/res" "$W/res.ibsmdstd.$r"
		echo "ibsmd standard run $r: $(tr '\n' ' ' <"$W/res")"
		run_opensm; cp "$W/res" "$W/res.opensm.$r"
		echo "opensm run $r: $(tr '\n' ' ' <"$W/res")"
	fi
done
if [ -n "$KILL" ]; then
	run_kill
	echo "ibsmd SIGKILL mid-burst (state on disk): $(tr '\n' ' ' <"$W/res")"
fi
echo
echo "medians of $RUNS runs:"
for kind in $STATES; do
	f=("$W"/res.ibsmd.$kind.*)
	printf "ibsmd %-5s bring-up %s s; joins/s %s, p99 %s ms; last join -> all Ready %s s; MFT blocks %s; syncs %s; leaves/s %s\n" \
		"$kind" "$(median bringup_s "${f[@]}")" "$(median joins_jps "${f[@]}")" \
		"$(median joins_p99 "${f[@]}")" "$(median joins_ready_s "${f[@]}")" \
		"$(median mft_blocks "${f[@]}")" "$(median journal_syncs "${f[@]}")" \
		"$(median leaves_per_s "${f[@]}")"
done
if ls "$W"/res.opensm.* >/dev/null 2>&1; then
	ob=$(median bringup_s "$W"/res.opensm.*) oj=$(median std_jps "$W"/res.opensm.*)
	ij=$(median std_jps "$W"/res.ibsmdstd.*)
	printf "opensm bring-up %s s; standard joins/s %s, p99 %s ms, groups %s\n" "$ob" "$oj" \
		"$(median std_p99 "$W"/res.opensm.*)" "$(median std_groups "$W"/res.opensm.*)"
	printf "ibsmd  standard joins/s %s, p99 %s ms, groups %s; ratio ibsmd/opensm joins/s %s\n" "$ij" \
		"$(median std_p99 "$W"/res.ibsmdstd.*)" "$(median std_groups "$W"/res.ibsmdstd.*)" \
		"$(echo "scale=2; $ij / $oj" | bc 2>/dev/null)"
fi
