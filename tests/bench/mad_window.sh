#!/bin/bash
# Measures the transaction engine's window against ibsim: DR NodeInfo Get
# throughput vs the global window (per-destination window = global), the
# window at which ibsim stalls, LFT programming time vs the per-destination
# window, and losses vs the timeout.  Fabric: a generated 2-level fat tree
# (36-port leaves, 18 hosts each; one spine per leaf up-link).
#   O=build bash tests/bench/mad_window.sh [HOSTS] [GETS]
# Prints one line per run; not a pass/fail test.  REPEAT=N repeats each
# point; WINDOWS, NODE_WINDOWS, TIMEOUTS override the lists.
# Each measurement runs in its own invocation (mode "one") with a fresh
# ibsim, because a stalled ibsim stays stalled.
if [ "${1:-}" = one ]; then
	shift
	. "${TOP:-.}/tests/integration/lib.sh" || exit 1
	NET=$1 NODES=$2 SW=$3 LABEL=$4; shift 4
	start_ibsim "$NET" -N $((NODES + 64)) -S $((SW + 8)) -P $((NODES * 40))
	out=$(sim timeout 60 "$O/tests/sim/mad_probe" -e "$NODES" -q -T 30000 "$@" 2>"$T/err")
	rc=$?
	echo "$LABEL rc=$rc $(grep -h '^bench\|^lft \|^discovered' <<<"$out" | tr '\n' ' ')"
	[ $rc -eq 124 ] && echo "$LABEL STALLED: no progress for 60 s (ibsim deadlock)"
	exit 0
fi
: "${O:?O (build dir) must be set}"
export O
T=$(mktemp -d "${TMPDIR:-/tmp}/mad-window.XXXXXX")
. "$(dirname "$0")/../procs.bash"
procs_guard 'rm -rf "$T"'
HOSTS=${1:-1008}
GETS=${2:-20000}
LEAVES=$(( (HOSTS + 17) / 18 ))
SPINES=18
NET=$T/fat.net

gen_fat_tree() {
	local l s h p
	for ((l = 1; l <= LEAVES; l++)); do
		echo "Switch 36 \"L$l\""
		for ((p = 1; p <= 18; p++)); do
			h=$(( (l - 1) * 18 + p ))
			[ "$h" -le "$HOSTS" ] && echo "[$p] \"H$h\"[1]"
		done
		for ((s = 1; s <= SPINES; s++)); do echo "[$((18 + s))] \"S$s\"[$l]"; done
		echo
	done
	for ((s = 1; s <= SPINES; s++)); do
		echo "Switch $LEAVES \"S$s\""
		for ((l = 1; l <= LEAVES; l++)); do echo "[$l] \"L$l\"[$((18 + s))]"; done
		echo
	done
	for ((h = 1; h <= HOSTS; h++)); do
		l=$(( (h - 1) / 18 + 1 )); p=$(( (h - 1) % 18 + 1 ))
		printf 'Hca 1 "H%d"\n[1] "L%d"[%d]\n\n' "$h" "$l" "$p"
	done
}
gen_fat_tree >"$NET"
NODES=$((HOSTS + LEAVES + SPINES))
echo "fabric: $HOSTS hosts, $LEAVES leaves, $SPINES spines, $NODES nodes"

run() { bash "$0" one "$NET" "$NODES" $((LEAVES + SPINES)) "$@"; }

REPEAT=${REPEAT:-1}
echo "== DR NodeInfo Get throughput vs window ($GETS gets, round-robin over all nodes, $REPEAT runs each)"
for w in ${WINDOWS:-1 8 16 32 64 128 256 384 512 1024}; do
	for ((i = 0; i < REPEAT; i++)); do
		run "window=$w" -w "$w" -n "$w" -t 1000 -r 3 -b "$GETS"
	done
done
echo "== LFT programming (48 blocks per switch, all switches at once) vs per-node window (global 128)"
for nw in ${NODE_WINDOWS:-1 2 4 8 16 32 64}; do
	for ((i = 0; i < REPEAT; i++)); do
		run "node_window=$nw" -w 128 -n "$nw" -t 1000 -r 3 -l 48
	done
done
echo "== losses vs timeout at window 128, node window 16"
for t in ${TIMEOUTS:-2 5 10 20 50}; do
	run "timeout=$t" -w 128 -n 16 -t "$t" -r 3 -b "$GETS"
done
