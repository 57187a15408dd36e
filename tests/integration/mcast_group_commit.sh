#!/bin/bash
# Group commit: a join is answered only once its journal record is on
# disk, and joins that arrive together share one fdatasync.  The state
# directory is on disk here (not tmpfs), so each sync takes the disk's
# time.  Eight client nodes keep 32 collective joins outstanding each
# (tests/sim/mcast_joins -w 32).
#   1. Every join is answered, and strace, attached to ibsmd, counts fewer
#      fdatasync calls than joins answered (the daemon's own counters,
#      `ibsmctl mcg stats` journal_syncs and journal_records, are printed
#      beside it).
#   2. ibsmd is killed with SIGKILL in the middle of the same kind of
#      burst (every client logs each join as its answer arrives, --acked);
#      after a restart every acknowledged join is still there.
. "${TOP:-.}/tests/integration/mcast_common.bash"
need strace
[ -x "$O/tests/sim/mcast_joins" ] || skip "tests/sim/mcast_joins not built"
CL=8
# on disk: the build tree, not the tmpfs mcast_common.bash prefers
rm -f "$T/state"
DISK=$(mktemp -d "$O/tests/gc-state.XXXXXX") || fail "no state directory on disk"
ln -s "$DISK" "$T/state"
trap 'mc_stop; rm -rf "$DISK"' EXIT
[ "$(stat -f -c %T "$DISK")" != tmpfs ] || skip "the build tree is on tmpfs: no disk to sync"

"$O/ibsmgen" fattree2 --hosts 64 -o "$T/ft.net" || fail "ibsmgen"
# two bursts of groups: one counted, one killed in the middle
for b in 1 2; do
	"$O/ibsmpattern" "$T/ft.net" random --count 400 --size 4-8 --seed $b \
		--members guid -o "$T/pattern$b" 2>/dev/null || fail "ibsmpattern"
	# distinct MGIDs per burst
	awk -v b=$b '$1 == "+" { sub(/::/, "::" b ":", $2)
		for (i = 3; i <= NF; i++) print $2, $i, NF - 2 }' \
		"$T/pattern$b" >"$T/coll$b"
	awk -v n=$CL '$1 != last { g++; last = $1 } { print > (FILENAME ".part" (g % n)) }' "$T/coll$b"
done
mc_start "$T/ft.net" -o multicast.join_timeout_ms=3600000

# clients BURST WINDOW [extra mcast_joins args]: CL clients at H2..,
# each with WINDOW joins outstanding, waited for
clients() {
	local b=$1 w=$2 pids=() i
	shift 2
	for i in $(seq 0 $((CL - 1))); do
		sim_at "H$((i + 2))" timeout -k 5 120 "$O/tests/sim/mcast_joins" \
			-w "$w" "$@" "$T/coll$b.part$i" >"$T/j$b.$i" 2>&1 &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p"; done
}

strace -f -e trace=fdatasync,fsync -c -o "$T/strace" -p "$IBSMD_PID" 2>/dev/null &
SPID=$!
sleep 1 # strace attached to every thread
ctl mcg stats >"$T/stats0"
clients 1 32
ctl mcg stats >"$T/stats1"
kill -INT $SPID; wait $SPID
ok=0
for i in $(seq 0 $((CL - 1))); do ok=$((ok + $(field ok <"$T/j1.$i"))); done
total=$(wc -l <"$T/coll1")
[ "$ok" = "$total" ] || fail "$ok of $total joins answered"
syncs=$(awk '$NF == "fdatasync" { print $4 }' "$T/strace")
syncs=${syncs:-0}
d() { echo $(($(field "$1" <"$T/stats1") - $(field "$1" <"$T/stats0"))); }
echo "$ok joins answered; strace counted $syncs fdatasync calls; the daemon counted $(d journal_records) journal records, $(d journal_writes) writes, $(d journal_syncs) syncs"
[ "$syncs" -gt 0 ] || fail "no fdatasync at all: joins were answered without being on disk"
[ "$syncs" -lt "$ok" ] || fail "$syncs fdatasync calls for $ok joins: no group commit"

# 2: SIGKILL mid-burst loses no answered join.  One join outstanding per
# client, so that each waits for its sync and the burst lasts long
# enough for the kill to land in it (with 32 it can end within one
# 50 ms poll, and the test would show nothing).
: >"$T/acked"
clients 2 1 --acked "$T/acked" &
CPID=$!
for _ in $(seq 600); do
	[ "$(wc -l <"$T/acked")" -ge 600 ] && break
	kill -0 $CPID 2>/dev/null || break
	sleep 0.05
done
kill -9 "$IBSMD_PID"; wait "$IBSMD_PID" 2>/dev/null
sleep 2 # answers sent before the kill may still be on their way
killtree $CPID; wait $CPID 2>/dev/null
n=$(wc -l <"$T/acked")
echo "killed ibsmd after $n acknowledged joins of the second burst"
[ "$n" -ge 100 ] || fail "only $n joins acknowledged before the kill"
[ "$n" -lt "$(wc -l <"$T/coll2")" ] || fail "the burst ended before the kill: the test shows nothing"
mc_ibsmd -o multicast.join_timeout_ms=3600000
ctl mcg list >"$T/list" || fail "mcg list after the restart"
awk 'NR == FNR { m = $0; sub(/.*members=/, "", m); grp[$1] = "," m ","; next }
     { if (index(grp[$1], "," $2 ",") == 0) { print "lost:", $1, $2; bad++ } }
     END { exit bad > 0 }' "$T/list" "$T/acked" >"$T/lost" ||
	{ head "$T/lost"; fail "$(wc -l <"$T/lost") acknowledged joins lost across SIGKILL"; }
echo "PASS: $ok answers from $syncs syncs; all $n acknowledged joins survived SIGKILL"
