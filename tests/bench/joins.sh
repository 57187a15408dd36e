#!/bin/bash
# Multicast join benchmark: ibsmd against OpenSM 3.3.23 on the same ibsim
# fabric (a 2-level fat tree of HOSTS hosts, default 128) with a 32-entry
# MFT (ibsim -M 32), the 3-D grid pattern of the collective-join tests (4x4x8: 80 groups,
# 384 joins).  One client (tests/sim/mcast_joins, proxy joins from H1)
# sends the joins one at a time; per SM it reports:
#   - standard joins: joins/s, median and p99 answer latency, how many
#     groups were created (OpenSM gives each group its own MLID and refuses
#     joins past the MFT size; expected 31 with -M 32), the status counts;
#   - last join -> tables in force: polling `ibroute -M` of the last
#     member's leaf switch until the last group's MLID holds its port
#     (resolution: one ibroute run, ~50 ms);
#   - ibsmd only, collective joins (MemberCount): last join -> every group
#     Ready by MCGStateRecord (polled by the client, no process start).
# usage: O=build tests/bench/joins.sh [HOSTS]
set -u
: "${O:?O (build dir) must be set}"
O=$(cd "$O" && pwd)
TOP=${TOP:-$(pwd)}
HOSTS=${1:-128}
GRID=${MC_GRID:-4x4x8}
UMAD2SIM=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
T=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-joins.XXXXXX")
export IBSIM_SOCKNAME="ibsmdjb$$"
PIDS=()
cleanup() { stop_sm 2>/dev/null; rm -rf "$T"; }
. "$(dirname "$0")/../procs.bash"
procs_guard cleanup
sim() { LD_PRELOAD="$UMAD2SIM" "$@"; }
field() { awk -v k="$1" '$1 == k { print $2; exit }'; }

"$O/ibsmgen" fattree2 --hosts "$HOSTS" -o "$T/ft.net"
"$O/ibsmpattern" "$T/ft.net" grid "$GRID" --members guid -o "$T/pattern" 2>/dev/null
awk '$1 == "+" { for (i = 3; i <= NF; i++) print $2, $i, 0 }' "$T/pattern" >"$T/std"
awk '$1 == "+" { for (i = 3; i <= NF; i++) print $2, $i, NF - 2 }' "$T/pattern" >"$T/coll"
NG=$(grep -c '^+' "$T/pattern")
cd "$T" # libumad2sim makes sys-PID directories in the working directory

RUN=0
run_sm() { # run_sm NAME: starts ibsim and the SM, waits until the SA answers
	RUN=$((RUN + 1))
	export IBSIM_SOCKNAME="ibsmdjb$$r$RUN"
	mkfifo "$T/$RUN.in"
	ibsim -s $("$O/ibsmgen" ibsim-args "$T/ft.net") -M 32 "$T/ft.net" \
		<"$T/$RUN.in" >"$T/$1.ibsim.log" 2>&1 &
	PIDS+=($!)
	exec 7>"$T/$RUN.in"
	for _ in $(seq 100); do
		ss -xl 2>/dev/null | grep -q "@$IBSIM_SOCKNAME:ctl@" && break
		sleep 0.1
	done
	if [ "$1" = opensm ]; then
		sim opensm -f "$T/opensm.log" >/dev/null 2>&1 &
	else
		mkdir -p "$T/state$RUN"
		sim "$O/ibsmd" --state-dir "$T/state$RUN" -o control_socket="$T/sock" \
			-o log.level=notice >"$T/ibsmd.log" 2>&1 &
	fi
	PIDS+=($!)
	for _ in $(seq 120); do
		sim saquery SMIR 2>/dev/null | grep -q "SMState.*3" && return 0
		sleep 0.5
	done
	echo "$1: the SA does not answer" >&2
	return 1
}
# The SMs run under the `sim` wrapper, so $! is the wrapper's subshell and
# killing it would orphan the SM: stop every process of this run instead
# (the SM first, ibsim last).
stop_sm() { procs_stop "$IBSM_RUN_MARK"; wait 2>/dev/null; PIDS=(); exec 7>&-; }

# ms from the last join until the last group's MLID is in its last
# member's leaf switch MFT (ibroute -M), as the SA answered it
leaf_lid() { # LID of the switch port GUID $1 hangs off
	sim ibnetdiscover 2>/dev/null | awk -v g="$(printf '%x' "$1")" '
		/^Switch/ { l = $0; sub(/.* lid /, "", l); sub(/ .*/, "", l) }
		index($0, "(" g ")") { print l; exit }'
}
tables_ms() {
	local mlid=$1 lid=$2 epoch=$3 t
	[ -n "$mlid" ] && [ -n "$lid" ] || { echo "n/a"; return; }
	for _ in $(seq 100); do
		sim ibroute -M "$lid" 2>/dev/null | grep -qi "^$mlid " && break
		sleep 0.02
	done
	t=$(date +%s.%N)
	awk -v a="$epoch" -v b="$t" 'BEGIN { printf "%.0f", (b - a) * 1000 }'
}

printf "fabric: fattree2 %s hosts, ibsim -M 32, pattern grid %s: %s groups, %s joins\n\n" \
	"$HOSTS" "$GRID" "$NG" "$(wc -l <"$T/std")"
printf "%-8s %-10s %8s %8s %8s %8s %8s %10s %s\n" SM joins ok groups \
	"joins/s" "med_ms" "p99_ms" "tables_ms" statuses
for sm in ibsmd opensm; do
	command -v opensm >/dev/null || [ $sm = ibsmd ] || continue
	run_sm $sm || continue
	leaf=$(leaf_lid "$(tail -1 "$T/std" | cut -d' ' -f2)")
	sim "$O/tests/sim/mcast_joins" "$T/std" >"$T/$sm.std" 2>/dev/null
	tm=$(tables_ms "$(field last_mlid <"$T/$sm.std")" "$leaf" \
		"$(field last_join_epoch <"$T/$sm.std")")
	printf "%-8s %-10s %8s %8s %8s %8s %8s %10s %s\n" $sm standard \
		"$(field ok <"$T/$sm.std")" "$(field groups_created <"$T/$sm.std")" \
		"$(field joins_per_s <"$T/$sm.std")" "$(field median_ms <"$T/$sm.std")" \
		"$(field p99_ms <"$T/$sm.std")" "$tm" \
		"$(grep '^status_' "$T/$sm.std" | tr '\n' ' ')"
	if [ $sm = ibsmd ]; then
		stop_sm; run_sm ibsmd || continue
		sim "$O/tests/sim/mcast_joins" --wait-ready "$T/coll" >"$T/coll.out" 2>/dev/null
		printf "%-8s %-10s %8s %8s %8s %8s %8s %10s %s\n" ibsmd collective \
			"$(field ok <"$T/coll.out")" "$(field groups_created <"$T/coll.out")" \
			"$(field joins_per_s <"$T/coll.out")" "$(field median_ms <"$T/coll.out")" \
			"$(field p99_ms <"$T/coll.out")" "$(field ready_ms <"$T/coll.out")" \
			"all Ready (MCGStateRecord)"
		# one group of 100 members (or every host when fewer)
		awk '{ print $2 }' "$T/std" | sort -u | head -100 >"$T/hosts100"
		awk -v n="$(wc -l <"$T/hosts100")" '{ print "ff12:601b:ffff::c100", $1, n }' \
			"$T/hosts100" >"$T/one"
		sim "$O/tests/sim/mcast_joins" --wait-ready "$T/one" >"$T/one.out" 2>/dev/null
		printf "%-8s %-10s %8s %8s %8s %8s %8s %10s %s\n" ibsmd "1x$(wc -l <"$T/hosts100")" \
			"$(field ok <"$T/one.out")" "$(field groups_created <"$T/one.out")" \
			"$(field joins_per_s <"$T/one.out")" "$(field median_ms <"$T/one.out")" \
			"$(field p99_ms <"$T/one.out")" "$(field ready_ms <"$T/one.out")" \
			"one collective group: last join -> Ready"
	fi
	stop_sm
done
# churn (linux-rdma/opensm pull 43: a SendOnlyFullMember partial leave
# leaks the MLID in OpenSM 3.3.23): join/leave cycles over 24 groups by
# proxy joins with FullMember, SendOnlyFullMember or both
CYC=${MC_CYCLES:-3000}
guids=$(awk '{ print $2 }' "$T/std" | sort -u | head -32)
echo
printf "%-8s %-24s %s\n" SM "churn ($CYC cycles)" result
for sm in ibsmd opensm; do
	command -v opensm >/dev/null || [ $sm = ibsmd ] || continue
	run_sm $sm || continue
	out=$(sim "$O/tests/sim/mcast_churn" "$CYC" 24 $guids 2>&1 | grep -v ibwarn)
	printf "%-8s %-24s %s\n" $sm "24 groups" "$(echo "$out" | grep -E '^(cycles|failed_at)' | head -1) $(echo "$out" | grep -o 'status 0x[0-9a-f]*' | head -1)"
	# a fresh group per cycle, SendOnlyFullMember partial leave, deleted
	out=$(sim "$O/tests/sim/mcast_churn" 300 0 $guids 2>&1 | grep -v ibwarn)
	printf "%-8s %-24s %s\n" $sm "fresh group per cycle" "$(echo "$out" | grep -E '^(cycles|failed_at)' | head -1) $(echo "$out" | grep -o 'status 0x[0-9a-f]*' | head -1)"
	stop_sm
done
echo
echo "tables_ms: last join answer -> its MLID read back by ibroute -M on the"
echo "last member's leaf (includes one ibroute run, ~200 ms under ibsim)."
echo "collective tables_ms: last join answer -> every group Ready, polled by"
echo "MCGStateRecord Gets one group after the other (an upper bound)."
echo "groups: ibsmd needs no MLID per group (trees share the 32 colors);"
echo "OpenSM allocates one MLID per group and refuses the rest with"
echo "ERR_NO_RESOURCES (status_1); the issue expects 31 with -M 32."
