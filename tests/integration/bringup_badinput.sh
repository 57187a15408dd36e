#!/bin/bash
# Bad input: an invalid configuration exits 2 naming file:line; a missing
# file or unknown -o key exits 2; no umad device exits non-zero naming what
# is missing; umad2sim without a running ibsim gives up with a clear
# message instead of hanging.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bringup_common.bash"

expect() { # expect RC PATTERN CMD...
	local want=$1 pat=$2; shift 2
	"$@" >"$T/out" 2>&1
	local rc=$?
	[ "$rc" -eq "$want" ] || { cat "$T/out"; fail "$*: exit $rc, want $want"; }
	grep -q -- "$pat" "$T/out" || { cat "$T/out"; fail "$*: no '$pat' in output"; }
	echo "ok (exit $rc): $(head -1 "$T/out")"
}

printf 'sm:\n  priority: 3\n  sweep_interval_ms: banana\n' >"$T/bad.yaml"
expect 2 "$T/bad.yaml:3:" "$IBSMD" -c "$T/bad.yaml" --once
printf 'sm:\n  priority: 99\n' >"$T/range.yaml"
expect 2 "$T/range.yaml:2:" "$IBSMD" -c "$T/range.yaml" --check-config
printf 'sm: [unclosed\n' >"$T/syntax.yaml"
expect 2 "$T/syntax.yaml:" "$IBSMD" -c "$T/syntax.yaml"
expect 2 "nonexistent.yaml" "$IBSMD" -c "$T/nonexistent.yaml"
expect 2 'unknown key "no.such"' "$IBSMD" -o no.such=1 --once
expect 2 "usage" "$IBSMD" --no-such-option

# No umad device at all (no LD_PRELOAD): a clear error, not a crash.
if [ ! -e /dev/infiniband/umad0 ]; then
	expect 1 "no InfiniBand device" "$IBSMD" --once --state-dir "$T/st"
	expect 1 "port.ca" "$IBSMD" --once --state-dir "$T/st" -o port.ca=mlx5_9
fi
# umad2sim with no ibsim listening.
[ -f "$UMAD2SIM" ] || skip "libumad2sim.so not found"
IBSIM_SOCKNAME=ibsmd-no-such-sim-$$ expect 1 "is ibsim running" \
	timeout 60 env LD_PRELOAD="$UMAD2SIM" "$IBSMD" --once --state-dir "$T/st"
echo "ok: bad input handled"
