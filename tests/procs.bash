# Process hygiene for tests and benchmarks: every process a run starts
# carries IBSM_RUN_MARK in its environment (children inherit it, through
# subshells, setsid, LD_PRELOAD wrappers and double forks alike), so what a
# run left behind can be found and stopped without knowing how it was
# started, and without touching anybody else's daemons on the machine.
#   procs_mark [NAME]   give this shell and its children a fresh mark
#   procs_marked MARK   pids still carrying MARK (not this shell or its ancestors)
#   procs_stop MARK     stop them: SMs and clients first, ibsim last (a
#                       client of a vanished ibsim can block inside
#                       libumad2sim and miss SIGTERM), SIGKILL what is left
#   procs_check MARK    prints what survived procs_stop; status 1 if any

procs_mark() {
	export IBSM_RUN_MARK="${1:-run}-$$-$RANDOM"
}

procs_marked() {
	local mark=$1 p q skip
	# this shell and its ancestors carry the mark too: they are the run
	skip=" $$ $BASHPID "
	for q in $$ $BASHPID; do
		while [ "$q" -gt 1 ] 2>/dev/null; do
			q=$(awk '{ print $4 }' "/proc/$q/stat" 2>/dev/null) || break
			skip="$skip$q "
		done
	done
	for p in $(grep -lzx -- "IBSM_RUN_MARK=$mark" /proc/[0-9]*/environ 2>/dev/null |
		cut -d/ -f3); do
		case "$skip" in *" $p "*) continue ;; esac
		if [ -d "/proc/$p" ]; then echo "$p"; fi
	done
	return 0 # callers may run under set -e
}

procs_wait_gone() { # SECONDS PID...: waits until none lives; prints the living
	local tenths=$(($1 * 10)) p living; shift
	for _ in $(seq "$tenths"); do
		living=; for p in "$@"; do [ -d "/proc/$p" ] && living="$living $p"; done
		[ -z "$living" ] && return 0
		sleep 0.1
	done
	echo "$living"
}

procs_stop() {
	local mark=$1 pids sims= others= p
	pids=$(procs_marked "$mark")
	[ -n "$pids" ] || return 0
	for p in $pids; do
		case "$(cat "/proc/$p/comm" 2>/dev/null)" in
		ibsim) sims="$sims $p" ;;
		*) others="$others $p" ;;
		esac
	done
	if [ -n "$others" ]; then
		kill $others 2>/dev/null
		others=$(procs_wait_gone 3 $others)
		[ -n "$others" ] && kill -9 $others 2>/dev/null
	fi
	if [ -n "$sims" ]; then
		kill $sims 2>/dev/null
		sims=$(procs_wait_gone 3 $sims)
		[ -n "$sims" ] && kill -9 $sims 2>/dev/null
	fi
	procs_wait_gone 2 $pids >/dev/null
	return 0
}

procs_check() {
	local mark=$1 pids p
	pids=$(procs_marked "$mark")
	[ -z "$pids" ] && return 0
	for p in $pids; do
		echo "left running: pid $p ($(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-120))"
	done
	return 1
}

# Benchmarks: `procs_guard 'CLEANUP'` marks the run and replaces the EXIT
# trap: at exit it runs CLEANUP, names what is still running, stops it
# (daemons before ibsim), and fails the run if anything survived.
procs_guard() {
	procs_mark "$(basename "$0" .sh)"
	PROCS_CLEANUP=${1:-:}
	trap procs_exit EXIT
}
procs_exit() {
	local rc=$? left
	eval "$PROCS_CLEANUP"
	left=$(procs_marked "$IBSM_RUN_MARK")
	if [ -n "$left" ]; then
		echo "$(basename "$0"): stopping $(echo $left | wc -w) process(es) still running at exit" >&2
		procs_stop "$IBSM_RUN_MARK"
	fi
	if ! procs_check "$IBSM_RUN_MARK" >&2; then
		echo "$(basename "$0"): processes survived the benchmark" >&2
		rc=1
	fi
	exit $rc
}
