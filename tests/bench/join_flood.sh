#!/bin/bash
# Join latency of a quiet port while another port floods the SM.
# On the ft2-small fabric under ibsim, host H3 joins
# N fresh standard groups one at a time (tests/sim/mcast_joins) and its
# p99 join latency is measured:
#   idle         nothing else running
#   joinflood    H2 sends joins as fast as they are answered (default
#                per-port limit: multicast.join_rate 1000/s, burst 2000)
#   joinflood-nolimit  the same with the limit lifted (SIGHUP reload)
#   trapflood    H4 sends traps 128 at TRAPRATE per second (default 2000;
#                faster saturates ibsim itself, which then delays every
#                MAD: that measures the simulator, not the SM)
# The victim leaves its groups after each run, so every run starts from
# the same groups, and the conditions alternate run by run (idle, join
# flood, trap flood; then, with the limit lifted, idle and the unlimited
# join flood), so a drift in the machine's load hits them alike.  Each
# condition runs RUNS times (default 3); the median p99 and its ratio to
# the idle runs beside it are printed (target: <= 2x).  Nothing is
# asserted.
# The state directory is on the disk under $T unless STATE_DIR names
# another (e.g. one on /dev/shm, to leave the disk's fsync out).
# usage: O=build [STATE_DIR=DIR] tests/bench/join_flood.sh [N] [RUNS]
: "${O:?O (build dir) must be set}"
TOP=${TOP:-$(pwd)}
. "$TOP/tests/integration/lib.sh"
. "$(dirname "$0")/../procs.bash"
procs_guard cleanup
O=$(cd "$O" && pwd)
N=${1:-300}
RUNS=${2:-3}
cd "$T" || exit 1
export ASAN_OPTIONS=$ASAN_OPTIONS:replace_intrin=0
net=$TOP/tests/data/ft2-small.net
start_ibsim "$net" $("$O/ibsmgen" ibsim-args "$net")
printf 'multicast:\n  join_rate: 1000\n' >"$T/ibsmd.yaml"
sim "$O/ibsmd" -c "$T/ibsmd.yaml" --state-dir "${STATE_DIR:-$T/state}" \
	-o control_socket="$T/sock" >"$T/ibsmd.log" 2>&1 &
for _ in $(seq 100); do
	"$O/ibsmctl" -s "$T/sock" status 2>/dev/null | grep -q "sm_state MASTER" && break
	sleep 0.2
done
dpid=$(pgrep -f "control_socket=$T/sock" | head -1)
field() { awk -v k="$1" '$1 == k { print $2; exit }'; }
guid() { # port GUID of host $1
	sed -n "s/.*\"H-[0-9a-f]*\"\\[1\\](\\([0-9a-f]*\\)).*# \"$1\".*/\\1/p" "$T/topo" | head -1
}
sim ibnetdiscover >"$T/topo" 2>/dev/null
g2=$(guid H2); g3=$(guid H3)
for i in $(seq 200000); do echo "ff12:601b:ffff::d:$((i % 64)) 0x$g2 0"; done >"$T/flood"
RUN=0
victim() { # one measured run: N fresh groups joined by H3; prints p99
	RUN=$((RUN + 1))
	for i in $(seq "$N"); do echo "ff12:601b:ffff:$RUN::$i 0x$g3 0"; done >"$T/v"
	sim_at H3 timeout 300 "$O/tests/sim/mcast_joins" --leave-after "$T/v" \
		>"$T/v.out" 2>/dev/null
	[ "$(field ok <"$T/v.out")" = "$N" ] || echo "warning: $(field refused <"$T/v.out") joins refused" >&2
	field p99_ms <"$T/v.out"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
once() { # once NAME [flood command...]: one run, its p99 appended to NAME.p99
	local name=$1 fp=
	shift
	if [ $# -gt 0 ]; then "$@" >/dev/null 2>&1 & fp=$!; sleep 0.5; fi
	victim >>"$T/$name.p99"
	[ -n "$fp" ] && { killtree "$fp"; wait "$fp" 2>/dev/null; }
	return 0
}
flood_joins() { sim_at H2 "$O/tests/sim/mcast_joins" "$T/flood"; }
flood_traps() { sim_at H4 "$O/tests/sim/trap_flood" 1000000 128 "${TRAPRATE:-2000}"; }
for _ in $(seq "$RUNS"); do
	once idle
	once joinflood flood_joins
	once trapflood flood_traps
done
printf 'multicast:\n  join_rate: 1000000\n  join_burst: 1000000\n' >"$T/ibsmd.yaml"
kill -HUP "$dpid"; sleep 1
for _ in $(seq "$RUNS"); do
	once idle-nolimit
	once joinflood-nolimit flood_joins
done
for name in idle joinflood trapflood idle-nolimit joinflood-nolimit; do
	echo "$name $(median <"$T/$name.p99")"
done >"$T/results"
echo "H3 join p99 (ms), median of $RUNS runs of $N joins; ratio to idle" \
	"(the unlimited flood to the idle runs beside it):"
while read -r name p; do
	case $name in
	idle | idle-nolimit) idle=$p ;;
	esac
	printf '  %-18s %8s ms  %5.2fx\n' "$name" "$p" "$(echo "$p / $idle" | bc -l)"
done <"$T/results"
kill "$dpid"; wait "$dpid" 2>/dev/null
