# Shared harness for integration tests: each test gets its own ibsim (its
# own abstract socket name, so tests and developers never collide), a
# scratch directory, and cleanup on exit.  Source it, then:
#   start_ibsim NETFILE [ibsim args...]   # e.g. -M 32
#   sim CMD...                             # run CMD attached to ibsim (SM node)
#   sim_at NODE CMD...                     # run CMD attached at node NODE
#   ibsim_cmd "Unlink \"S1\" 3"            # type a command on ibsim's console
#   fail "message"                         # print and exit 1
#   skip "reason"                          # print and exit 77
set -u
: "${O:?O (build dir) must be set; run through make check}"
: "${TOP:=$(pwd)}"
. "$TOP/tests/procs.bash"
# Run alone (not from tests/run-integration), a test marks its own processes.
[ -n "${IBSM_RUN_MARK:-}" ] || procs_mark it
UMAD2SIM=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
T=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-it.XXXXXX")
export IBSIM_SOCKNAME="ibsmdit$$"
# ASan must come first in the preload list; umad2sim is preloaded after it.
# libumad2sim.so over-reads its own buffer in read(): not our code, so that
# one interceptor report is suppressed.
echo "interceptor_via_lib:libumad2sim.so" >"$T/asan.supp"
export ASAN_OPTIONS=${ASAN_OPTIONS:-verify_asan_link_order=0:detect_leaks=0:suppressions=$T/asan.supp}
IBSIM_PID=

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

# Every descendant of process $1 except ibsim, from one `ps` snapshot
# (daemons started through `sim` run in subshells, so killing the job alone
# would orphan them).  The subshell running this, and its ps and awk, are
# left out.
descendants() {
	ps -eo pid=,ppid= | awk -v root="$1" -v self="$BASHPID" \
		-v sim="${IBSIM_PID:-0}" '
		{ parent[$1] = $2; pid[NR] = $1 }
		END {
			for (i in pid) {
				p = pid[i]
				if (p == self || p == sim) continue
				for (q = parent[p]; q > 1; q = parent[q]) {
					if (q == self || q == sim) break
					if (q == root) { print p; break }
				}
			}
		}'
}
killtree() { kill $(descendants "$1") "$1" 2>/dev/null; }

# Daemons stop before ibsim does: a client whose simulator vanished can
# block forever inside libumad2sim's control socket and miss its SIGTERM.
cleanup() {
	local pids
	pids=$(descendants $$)
	[ -n "$pids" ] && kill $pids 2>/dev/null
	for _ in $(seq 30); do
		pids=$(for p in $pids; do kill -0 "$p" 2>/dev/null && echo "$p"; done)
		[ -z "$pids" ] && break
		sleep 0.1
	done
	[ -n "$pids" ] && kill -9 $pids 2>/dev/null
	# what escaped the process tree (setsid, a daemon whose parent died)
	# still carries the run's mark
	procs_stop "$IBSM_RUN_MARK"
	[ -n "$IBSIM_PID" ] && kill "$IBSIM_PID" 2>/dev/null
	[ -n "${IBSIM_FIFO_FD:-}" ] && exec {IBSIM_FIFO_FD}>&-
	wait 2>/dev/null
	[ -n "${KEEP_T:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
# A test killed by the runner's timeout still cleans up after itself.
trap 'exit 143' TERM
trap 'exit 130' INT

need() {
	for c in "$@"; do command -v "$c" >/dev/null || skip "$c not installed"; done
}

start_ibsim() {
	local net=$1; shift
	need ibsim
	[ -f "$UMAD2SIM" ] || skip "libumad2sim.so not found (package libumad2sim0)"
	mkfifo "$T/ibsim.in"
	ibsim -s "$@" "$net" <"$T/ibsim.in" >"$T/ibsim.log" 2>&1 &
	IBSIM_PID=$!
	exec {IBSIM_FIFO_FD}>"$T/ibsim.in"
	for _ in $(seq 100); do
		grep -q "sim_init\|Net\|MaxNet" "$T/ibsim.log" 2>/dev/null && \
			ss -xl 2>/dev/null | grep -q "@$IBSIM_SOCKNAME:ctl@" && return 0
		kill -0 "$IBSIM_PID" 2>/dev/null || { cat "$T/ibsim.log"; fail "ibsim exited"; }
		sleep 0.1
	done
	fail "ibsim did not start: $(tail -3 "$T/ibsim.log")"
}

ibsim_cmd() { echo "$*" >&"$IBSIM_FIFO_FD"; sleep 0.2; }

sim() { LD_PRELOAD="$UMAD2SIM${LD_PRELOAD:+:$LD_PRELOAD}" "$@"; }
sim_at() { local node=$1; shift; SIM_HOST="$node" sim "$@"; }

# Side-by-side tests run one ibsim per SM on the same $NET ($SIMARGS):
#   start_named_sim NAME   ibsim on socket ${IBSIM_SOCKNAME}NAME (PID_SIM_NAME)
#   at NAME CMD...         run CMD attached to that ibsim
start_named_sim() {
	local name=$1 sock="${IBSIM_SOCKNAME}$1"
	mkfifo "$T/$name.in"
	IBSIM_SOCKNAME=$sock ibsim -s $SIMARGS "$NET" <"$T/$name.in" >"$T/$name.ibsim.log" 2>&1 &
	eval "PID_SIM_$name=$!"
	eval "exec {FD_$name}>\"$T/$name.in\""
	for _ in $(seq 100); do
		ss -xl 2>/dev/null | grep -q "@$sock:ctl@" && return 0
		sleep 0.1
	done
	fail "ibsim $name did not start"
}
at() { local name=$1; shift; IBSIM_SOCKNAME="${IBSIM_SOCKNAME}$name" LD_PRELOAD="$UMAD2SIM" "$@"; }
