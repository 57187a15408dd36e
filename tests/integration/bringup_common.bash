# Shared by the bringup_*.sh / daemon_*.sh tests (sourced after lib.sh):
# several ibsim runs per test, and the checks with the real tools that do
# not trust ibsmd's own model.
IBSMD="$O/ibsmd"
# libumad2sim's read() copies the caller's whole buffer length out of its
# smaller packet buffer (a harmless over-read inside the shim, ibsim-utils
# 0.10) and ASan's memcpy interceptor aborts on it in SAN builds; stop
# intercepting mem* intrinsics (instrumented loads and stores of our code
# are still checked).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}replace_intrin=0"
IBSMCTL="$O/ibsmctl"
BASE_T=$T
# libumad2sim leaves ./sys-PID directories where its clients run.
cd "$BASE_T" || fail "cannot enter $BASE_T"

# ibsim options for a bundled fabric (its README row), else none.
ibsim_opts() {
	local name; name=$(basename "$1")
	sed -n "s/^| $name | .* | \`\(-N [^\`]*\)\` |\$/\1/p" \
		"$TOP/tests/data/README.md" 2>/dev/null
}

SIM_RUNS=0
# Starts ibsim on NET in a fresh subdirectory of the test's scratch dir.
start_sim() {
	local net=$1 sub; sub=$(basename "$net" .net)
	stop_sim
	SIM_RUNS=$((SIM_RUNS + 1))
	T=$BASE_T/$sub
	[ -e "$T" ] && T=$T.$SIM_RUNS
	mkdir -p "$T"
	# shellcheck disable=SC2046
	start_ibsim "$net" $(ibsim_opts "$net")
}

stop_sim() {
	if [ -n "$IBSIM_PID" ]; then
		kill "$IBSIM_PID" 2>/dev/null
		wait "$IBSIM_PID" 2>/dev/null
		IBSIM_PID=
	fi
	if [ -n "${IBSIM_FIFO_FD:-}" ]; then
		exec {IBSIM_FIFO_FD}>&-
		IBSIM_FIFO_FD=
	fi
	T=$BASE_T
}

# read_back DIR: ibnetdiscover -p into DIR/netdisc and every switch's LFT
# read with ibroute into DIR/lft/LID (for the walks).
read_back() {
	local d=$1 lid
	mkdir -p "$d/lft"
	sim ibnetdiscover -p >"$d/netdisc" 2>"$d/netdisc.err" ||
		fail "ibnetdiscover -p failed: $(tail -2 "$d/netdisc.err")"
	for lid in $(awk '$1 == "SW" { print $2 } $7 == "SW" { print $8 }' \
			"$d/netdisc" | sort -un); do
		sim ibroute "$lid" >"$d/lft/$lid" 2>>"$d/ibroute.err" ||
			fail "ibroute $lid failed: $(tail -2 "$d/ibroute.err")"
	done
}

# Reads the fabric back with ibnetdiscover -p, iblinkinfo and ibroute and
# walks every host pair (bringup_walk.py).  $1: directory for the outputs.
check_fabric() {
	local d=$1
	read_back "$d"
	sim iblinkinfo >"$d/linkinfo" 2>/dev/null ||
		fail "iblinkinfo failed"
	python3 "$TOP/tests/integration/bringup_walk.py" "$d/netdisc" \
		"$d/lft" "$d/linkinfo" >"$d/walk" 2>&1 ||
		{ cat "$d/walk"; fail "LFT walk failed"; }
	echo "$(basename "$(dirname "$d")"): $(tail -1 "$d/walk")"
}

# ibdmchk on the dumps in $1: no error, every node read, every CA-to-CA
# path scanned.  It crashes after its last check on some inputs (also on
# OpenSM's dumps), so its output is judged, not its exit status.
check_ibdmchk() {
	local d=$1 nodes=$2 nca=$3
	(cd "$d" && ibdmchk -s subnet.lst -f fdbs -m mfts.dump \
		>ibdmchk.out 2>&1) 2>/dev/null
	if grep -E -e '-E-|-W- Wrong syntax' "$d/ibdmchk.out" |
		grep -v 'credit loops in routing' >"$d/ibdmchk.errs"; then
		head -5 "$d/ibdmchk.errs"
		fail "ibdmchk reports errors on the dumps in $d"
	fi
	grep -q "Defined $nodes/$nodes systems/nodes" "$d/ibdmchk.out" ||
		fail "ibdmchk did not read all $nodes nodes"
	grep -q "Scanned:$((nca * (nca - 1))) CA to CA paths" "$d/ibdmchk.out" ||
		fail "ibdmchk did not scan every CA pair: $(grep Scanned "$d/ibdmchk.out")"
}

# Host and node counts of a net file (for ibdmchk).
net_counts() {
	awk '/^Hca|^Ca/ { h++ } /^Switch/ { s++ } END { print h + s, h }' "$1"
}
