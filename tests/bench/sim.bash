# Shared by the benchmarks that run SMs under a fresh ibsim per run
# (bringup.sh, failover.sh, linkfail.sh, partitions.sh).  The caller sets
# O (build dir), W (scratch dir) and IBSIM_SOCKNAME.
#   start_sim NETFILE   ibsim on NETFILE (and $SIM_EXTRA, e.g. -L 49152),
#                       its console on fd $SIMIN, pid SIMPID
#   stop_sim            stops it (no-op when none runs)
#   stop_sms            SIGTERM to the pids in PIDS, waits for them
#   bench_net [NETFILE] NET=$W/fabric.net: a copy of NETFILE, else the
#                       968-host 2-level fat tree
#   now                 wall clock, seconds with nanoseconds
#   until_true SECONDS STEP CMD...   polls CMD every STEP s; 1 on timeout
SIMPID=
start_sim() {
	local net=$1
	exec {SIMIN}<> <(:)
	ibsim -s $("$O/ibsmgen" ibsim-args "$net" 2>/dev/null) ${SIM_EXTRA:-} "$net" \
		<&$SIMIN >"$W/ibsim.log" 2>&1 &
	SIMPID=$!
	for _ in $(seq 600); do
		ss -xl 2>/dev/null | grep -q "@$IBSIM_SOCKNAME:ctl@" && return 0
		sleep 0.1
	done
	echo "ibsim did not start" >&2; exit 1
}
stop_sim() {
	[ -n "$SIMPID" ] || return 0
	kill "$SIMPID" 2>/dev/null; wait "$SIMPID" 2>/dev/null; SIMPID=
	exec {SIMIN}<&-
}
PIDS=
stop_sms() {
	local p
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	PIDS=
}
bench_net() {
	NET=$W/fabric.net
	if [ -n "${1:-}" ]; then cp "$1" "$NET"; else
		"$O/ibsmgen" fattree2 --hosts 968 -o "$NET" 2>/dev/null || exit 1
	fi
}
now() { date +%s.%N; }
until_true() {
	local end; end=$(echo "$(now) + $1" | bc); local step=$2; shift 2
	while ! "$@" >/dev/null 2>&1; do
		[ "$(echo "$(now) > $end" | bc)" = 1 ] && return 1
		sleep "$step"
	done
}
