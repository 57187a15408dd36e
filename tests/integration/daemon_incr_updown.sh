#!/bin/bash
# Incremental repair with up*/down* routing (docs/design.md §3.4): ibsmd
# runs as a daemon with routing.unicast=updown on a 3-D torus and on a
# random irregular fabric under ibsim; a switch-to-switch link goes down
# with ibsim's Unlink.  The sweep after the trap must be incremental (no
# DISCOVER), and its tables pass the same checks as a full computation:
#   - read back with ibroute and walked by updown_walk.py (no code of
#     ours): every host pair delivered, no down->up turn against the roots
#     the daemon dumped, channel-dependency graph acyclic;
#   - the roots are those a fresh `ibsmd --once` picks on a second ibsim
#     running the failed fabric (same LIDs from guid2lid), whose tables
#     pass the same walk; the two sets of tables may differ only where
#     balance ties allow (the daemon keeps its node order), and both
#     walks say so.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bringup_common.bash"
need ibsim ibnetdiscover ibroute python3

walk() { # walk DIR ROOTS: updown_walk.py over DIR's read-back
	python3 "$TOP/tests/integration/updown_walk.py" "$1/netdisc" "$1/lft" \
		--roots "$2" --expect-acyclic >"$1/walk" 2>&1 ||
		{ cat "$1/walk"; fail "$(basename "$1"): updown walk failed"; }
}

lft_entries() {
	awk '/^Unicast lids/ { for (i = 1; i <= NF; i++) if ($i == "guid") g = $(i + 1) }
	     /^0x/ { print g, $1, $2 }' "$1" | sort
}

one() { # one NAME NETFILE
	local name=$1 net=$2 d=$T/$1 sock=$T/$1/sock args inc h n0
	mkdir -p "$d"
	args=$("$O/ibsmgen" ibsim-args "$net")
	start_ibsim "$net" $args
	LD_PRELOAD="$UMAD2SIM${LD_PRELOAD:+:$LD_PRELOAD}" "$IBSMD" \
		--state-dir "$d/state" -o control_socket="$sock" \
		-o log.level=info -o sm.sweep_interval_ms=0 \
		-o routing.unicast=updown >"$d/ibsmd.log" 2>&1 &
	DPID=$!
	field() { "$IBSMCTL" -s "$sock" status 2>/dev/null | awk -v k="$1" '$1 == k { print $2 }'; }
	for _ in $(seq 150); do
		[ "$(field heavy_sweeps)" -ge 1 ] 2>/dev/null &&
			[ "$(field sweep_state)" = IDLE ] && break
		kill -0 $DPID 2>/dev/null || { tail -5 "$d/ibsmd.log"; fail "$name: ibsmd died"; }
		sleep 0.2
	done
	[ "$(field heavy_sweeps)" -ge 1 ] 2>/dev/null || fail "$name: no subnet up"

	# The last switch's first link to another switch (not the SM's S1).
	read -r sw port peer pport < <(python3 - "$net" "$d/failed.net" <<'PY'
import sys
src, dst = sys.argv[1:]
lines = open(src).read().split("\n")
cur, links = None, []
for s in lines:
    if s.startswith(("Switch", "Hca")):
        cur = s.split('"')[1] if s.startswith("Switch") else None
    elif s.startswith("[") and cur and '"S' in s:
        port = s[1:s.index("]")]
        peer = s.split('"')[1]
        pport = s.split('"')[2].split("]")[0].lstrip("[")
        links.append((cur, port, peer, pport))
a, ap, b, bp = [l for l in links if "S1" not in (l[0], l[2])][-1]
out, cur = [], None
for s in lines:
    if s.startswith(("Switch", "Hca")):
        cur = s.split('"')[1]
    elif s.startswith("[") and (cur, s[1:s.index("]")]) in ((a, ap), (b, bp)):
        continue
    out.append(s)
open(dst, "w").write("\n".join(out))
print(a, ap, b, bp)
PY
)
	[ -n "${pport:-}" ] || fail "$name: no switch link found to take down"
	inc=$(field incremental_sweeps) h=$(field heavy_sweeps)
	n0=$(wc -l <"$d/ibsmd.log")
	ibsim_cmd "Unlink \"$sw\"[$port]"
	for _ in $(seq 100); do
		[ "$(field incremental_sweeps)" -gt "$inc" ] 2>/dev/null &&
			[ "$(field sweep_state)" = IDLE ] && break
		[ "$(field heavy_sweeps)" -gt "$h" ] 2>/dev/null && break
		sleep 0.1
	done
	sleep 0.2 # the log line follows the counter
	tail -n +$((n0 + 1)) "$d/ibsmd.log" >"$d/repair.log"
	[ "$(field incremental_sweeps)" -gt "$inc" ] ||
		{ grep sweep "$d/repair.log" | tail -5; fail "$name: the link $sw[$port]-$peer[$pport] going down was not repaired incrementally"; }
	! grep -q -- "-> DISCOVER" "$d/repair.log" || fail "$name: the sweep rediscovered"
	grep -q "subnet up (incremental)" "$d/repair.log" || fail "$name: no incremental subnet up"

	read_back "$d/incr"
	walk "$d/incr" "$d/state/updn-roots.dump"
	"$IBSMCTL" -s "$sock" dump "$d/daemon" >/dev/null || fail "$name: ibsmctl dump"
	kill $DPID; wait $DPID 2>/dev/null
	stop_ibsim

	# The failed fabric computed afresh, with the daemon's LIDs.
	mkdir -p "$d/fresh"
	cp "$d/state/guid2lid" "$d/fresh/"
	start_ibsim "$d/failed.net" $args
	sim "$IBSMD" --once --state-dir "$d/fresh" -o routing.unicast=updown \
		-o dumps=lfts >"$d/once.log" 2>&1 ||
		{ tail -5 "$d/once.log"; fail "$name: fresh --once failed"; }
	read_back "$d/full"
	walk "$d/full" "$d/fresh/updn-roots.dump"
	stop_ibsim
	cmp -s <(sort "$d/state/updn-roots.dump") <(sort "$d/fresh/updn-roots.dump") ||
		fail "$name: incremental roots $(paste -sd, "$d/state/updn-roots.dump"), a full computation's $(paste -sd, "$d/fresh/updn-roots.dump")"
	lft_entries "$d/daemon/lfts.dump" >"$d/lft.incr"
	lft_entries "$d/fresh/lfts.dump" >"$d/lft.full"
	echo "$name: $sw[$port]-$peer[$pport] down: incremental $(tail -1 "$d/incr/walk");" \
		"full $(tail -1 "$d/full/walk"); LFT entries differing: $(diff "$d/lft.incr" "$d/lft.full" | grep -c '^<')"
}

stop_ibsim() {
	kill "$IBSIM_PID" 2>/dev/null; wait "$IBSIM_PID" 2>/dev/null
	exec {IBSIM_FIFO_FD}>&-
	rm -f "$T/ibsim.in"
	IBSIM_PID=
}

"$O/ibsmgen" torus 4 4 3 --hosts-per-switch 2 -o "$T/torus.net" || fail "ibsmgen"
one torus "$T/torus.net"
one random "$TOP/tests/data/random-small.net"
echo PASS
