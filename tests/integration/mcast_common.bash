# Shared by the mcast_*.sh integration tests: ibsim with a small MFT, ibsmd
# in the background, SA clients at hosts' nodes, MFT read-back with
# ibroute -M and the delivery walk (mcast_walk.py).
. "${TOP:-.}/tests/integration/lib.sh"
need ibsim ibroute ibnetdiscover ibswitches python3
[ -x "$O/ibsmd" ] && [ -x "$O/ibsmctl" ] || skip "ibsmd/ibsmctl not built"
IBSMD_PID=
# libumad2sim makes sys-PID directories in the working directory
O=$(cd "$O" && pwd)
cd "$T" || fail "cannot enter $T"
# libumad2sim over-reads in read() (outside our code; see ibsmroute_agrees.sh)
export ASAN_OPTIONS=$ASAN_OPTIONS:replace_intrin=0

# The state directory lives on tmpfs when there is one: ibsmd syncs
# mcgroups.state before it answers a join (acknowledged means durable), and
# these tests are about the SA and the tables, not about the disk's fsync
# latency (a killed process loses nothing on tmpfs either).
SHM_STATE=
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	SHM_STATE=$(mktemp -d /dev/shm/ibsmd-it.XXXXXX) && ln -s "$SHM_STATE" "$T/state"
fi

mc_stop() {
	[ -n "$IBSMD_PID" ] && kill "$IBSMD_PID" 2>/dev/null
	cleanup
	[ -n "$SHM_STATE" ] && rm -rf "$SHM_STATE"
}
trap mc_stop EXIT

# mc_start NETFILE [ibsmd args...]: ibsim -M 32 and ibsmd, until MASTER
mc_start() {
	local net=$1; shift
	start_ibsim "$net" $("$O/ibsmgen" ibsim-args "$net") -M 32
	mkdir -p "$T/state"
	mc_ibsmd "$@"
}

mc_ibsmd() {
	# Started directly, not through sim(): $! must be ibsmd itself, so that
	# kill (and mcast_restart's kill -9) reaches the daemon, not a subshell.
	# The tests proxy-join thousands of members from one node: the
	# per-port join limit is lifted (tests may set it again with -o).
	LD_PRELOAD="$UMAD2SIM${LD_PRELOAD:+:$LD_PRELOAD}" "$O/ibsmd" \
		--state-dir "$T/state" -o control_socket="$T/sock" \
		-o log.level=info -o multicast.join_rate=1000000 \
		-o multicast.join_burst=1000000 "$@" >>"$T/ibsmd.log" 2>&1 &
	IBSMD_PID=$!
	for _ in $(seq 150); do
		ctl status 2>/dev/null | grep -q "sm_state MASTER" && return 0
		kill -0 "$IBSMD_PID" 2>/dev/null || break
		sleep 0.2
	done
	tail -20 "$T/ibsmd.log"
	fail "ibsmd did not bring the subnet up"
}

ctl() { "$O/ibsmctl" -s "$T/sock" "$@"; }
# host_lids: the LIDs of the hosts' first ports, comma separated
host_lids() {
	sim ibnetdiscover 2>/dev/null |
		awk '/^Ca/ { ca = 1; next } ca && /^\[1\]/ {
			for (i = 1; i < NF; i++) if ($i == "lid") { print $(i + 1); break }
			ca = 0 }' | sort -un | paste -sd,
}
# sa_at HOST ARGS...: ibsmctl sa from HOST's simulated node
sa_at() { local h=$1; shift; sim_at "$h" "$O/ibsmctl" sa "$@" 2>&1 | grep -v '^ibwarn'; }
field() { awk -v k="$1" '$1 == k { print $2; exit }'; }

# heavy_sweep: ibsmctl sweep, then wait until the heavy sweep is over
heavy_sweep() {
	local h
	h=$(field heavy_sweeps < <(ctl status))
	ctl sweep >/dev/null
	for _ in $(seq 100); do
		[ "$(field heavy_sweeps < <(ctl status))" -gt "$h" ] &&
			[ "$(field sweep_state < <(ctl status))" = IDLE ] && return 0
		sleep 0.1
	done
	fail "no heavy sweep"
}

# mft_port_users MFTS SWITCH MINPORT: from ibroute -M output, the ports
# (>= MINPORT) of switch SWITCH that MFT entries use, one line each,
# "PORT MLID,MLID,...", the most used port first
mft_port_users() {
	python3 - "$@" <<'PY'
import sys
path, name, minport = sys.argv[1], sys.argv[2], int(sys.argv[3])
sec = base = None
use = {}
for line in open(path):
    if line.startswith('Multicast mlids'):
        sec = line.rstrip().endswith('(%s):' % name)
    elif 'Ports:' in line:
        base = line.index('Ports:') + 7
    elif sec and line.startswith('0x'):
        mlid = int(line.split()[0], 16)
        for i, ch in enumerate(line.rstrip()):
            if ch == 'x' and i >= base and (i - base) % 2 == 0 and (i - base) // 2 >= minport:
                use.setdefault((i - base) // 2, set()).add(mlid)
for p in sorted(use, key=lambda k: (-len(use[k]), k)):
    print(p, ','.join('0x%04x' % m for m in sorted(use[p])))
PY
}

# mc_walk GROUPS: reads every switch's MFT with ibroute -M and walks it
mc_walk() {
	sim ibnetdiscover >"$T/topo.txt" 2>/dev/null || fail "ibnetdiscover failed"
	: >"$T/mfts.txt"
	for l in $(sim ibswitches 2>/dev/null | sed 's/.* lid \([0-9]*\) .*/\1/'); do
		sim ibroute -M "$l" >>"$T/mfts.txt" 2>/dev/null ||
			fail "ibroute -M $l failed"
	done
	python3 "$TOP/tests/integration/mcast_walk.py" "$T/topo.txt" \
		"$T/mfts.txt" "$1"
}
