#!/bin/bash
# Link and switch failures repaired without rediscovery.  ibsmd runs as a
# daemon on a 3-level fat tree under ibsim; a leaf uplink goes down with
# ibsim's Unlink, then a whole middle switch.  Each time:
#   - the sweep after the trap is incremental (PROBE, no DISCOVER);
#   - the LFTs read back deliver every host pair on a shortest path;
#   - the LFT blocks sent are exactly those that changed, and no more than
#     a fresh `ibsmd --once` on a second ibsim running the failed fabric
#     (same LIDs from guid2lid) would change: routes still on a min-hop
#     port are kept.
# Then a link comes back: a port coming up is more than the model can
# take, so that sweep falls back to a heavy one and the link is used again.
# Last, a failure during an incremental sweep: the sweep is held at PROBE
# (IBSMD_TEST_HOLD_AT) after a leaf's uplink went down, and meanwhile the
# leaf loses every link, so the probe's Gets to it go unanswered: the sweep
# falls back to a heavy one, and the tables read back deliver every pair
# of the hosts left.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bringup_common.bash"
need ibsim ibnetdiscover iblinkinfo ibroute python3
"$O/ibsmgen" fattree3 --k 8 -o "$T/ft.net" || fail "ibsmgen"
ARGS=$("$O/ibsmgen" ibsim-args "$T/ft.net")
start_ibsim "$T/ft.net" $ARGS
sock=$T/sock
IBSMD_TEST_HOLD_AT=sweep:PROBE IBSMD_TEST_HOLD_FILE="$T/hold" \
	LD_PRELOAD="$UMAD2SIM${LD_PRELOAD:+:$LD_PRELOAD}" "$IBSMD" \
	--state-dir "$T/state" -o control_socket="$sock" -o log.level=info \
	-o sm.sweep_interval_ms=0 >"$T/ibsmd.log" 2>&1 &
DPID=$!
trap 'kill $DPID 2>/dev/null; cleanup' EXIT
field() { "$IBSMCTL" -s "$sock" status 2>/dev/null | awk -v k="$1" '$1 == k { print $2 }'; }
wait_count() { # wait_count FIELD MIN: until FIELD >= MIN and the sweep is idle
	for _ in $(seq 100); do
		[ "$(field "$1")" -ge "$2" ] 2>/dev/null &&
			[ "$(field sweep_state)" = IDLE ] && return 0
		kill -0 $DPID 2>/dev/null || fail "ibsmd died"
		sleep 0.1
	done
	tail -20 "$T/ibsmd.log"
	fail "$1 did not reach $2"
}
wait_count heavy_sweeps 1

lft_entries() {
	awk '/^Unicast lids/ { for (i = 1; i <= NF; i++) if ($i == "guid") g = $(i + 1) }
	     /^0x/ { print g, $1, $2 }' "$1" | sort
}

# blocks A B: the (switch, 64-LID block) units whose entries differ, on
# the switches of B
blocks() {
	python3 - "$1" "$2" <<'PY'
import sys
def load(p):
    return {(g, int(l, 16)): port for g, l, port in (x.split() for x in open(p))}
a, b = load(sys.argv[1]), load(sys.argv[2])
live = {k[0] for k in b}  # a switch gone with the failure is sent nothing
print(len({(k[0], k[1] // 64) for k in set(a) | set(b)
           if k[0] in live and a.get(k) != b.get(k)}))
PY
}

# fresh NAME NETFILE: ibsmd --once on a second ibsim running NETFILE, with
# the daemon's guid2lid: what a full recomputation of the failed fabric
# gives.  Minhop keeps every entry still on a min-hop port, so the daemon
# may differ from it where ties allow (the walk checked every pair), but
# must have sent no more LFT blocks than the fresh tables would have
# needed, and exactly the blocks that changed.
fresh() {
	local name=$1 net=$2 d=$T/$1 need sent changed
	mkdir -p "$d/state"
	cp "$T/state/guid2lid" "$d/state/"
	"$IBSMCTL" -s "$sock" dump "$d/daemon" >/dev/null || fail "$name: ibsmctl dump"
	NET=$net SIMARGS=$ARGS start_named_sim "$name"
	at "$name" "$IBSMD" --once --state-dir "$d/state" -o dumps=lfts \
		>"$d/once.log" 2>&1 || { tail -5 "$d/once.log"; fail "$name: fresh --once failed"; }
	eval "kill \$PID_SIM_$name; wait \$PID_SIM_$name 2>/dev/null"
	lft_entries "$d/daemon/lfts.dump" >"$d/lft.daemon"
	lft_entries "$d/state/lfts.dump" >"$d/lft.fresh"
	[ -s "$d/lft.fresh" ] || fail "$name: no LFTs from the fresh computation"
	need=$(blocks "$T/lft.before" "$d/lft.fresh")
	changed=$(blocks "$T/lft.before" "$d/lft.daemon")
	sent=$(( $(field smps_lft_blocks) - LFT0 ))
	echo "$name: LFT blocks sent $sent, changed $changed; a fresh computation would change $need;" \
		"entries differing from it: $(diff "$d/lft.daemon" "$d/lft.fresh" | grep -c '^<')"
	[ "$need" -gt 0 ] || fail "$name: the failure changed no route: the check could not fail"
	[ "$sent" -eq "$changed" ] || fail "$name: sent $sent LFT blocks for $changed that changed"
	[ "$sent" -le "$need" ] || fail "$name: sent $sent LFT blocks, a full recomputation needs $need"
}

# failure NAME IBSIM-COMMAND NETFILE-AFTER
failure() {
	local name=$1 cmd=$2 after=$3 inc n0
	"$IBSMCTL" -s "$sock" dump "$T/before" >/dev/null || fail "$name: ibsmctl dump"
	lft_entries "$T/before/lfts.dump" >"$T/lft.before"
	LFT0=$(field smps_lft_blocks)
	inc=$(field incremental_sweeps)
	n0=$(wc -l <"$T/ibsmd.log")
	ibsim_cmd "$cmd"
	wait_count incremental_sweeps $((inc + 1))
	sleep 0.2 # the log line follows the counter
	tail -n +$((n0 + 1)) "$T/ibsmd.log" >"$T/$name.log"
	grep -q "subnet up (incremental)" "$T/$name.log" || fail "$name: no incremental sweep"
	! grep -q -- "-> DISCOVER" "$T/$name.log" || fail "$name: the sweep rediscovered"
	check_fabric "$T/$name.walk"
	fresh "$name" "$after"
}

# Leaf S1's first uplink (port 5 on a k=8 tree).
peer=$(sed -n '/^Switch.*"S1"$/,/^$/p' "$T/ft.net" | sed -n 's/^\[5\]\t"\([^"]*\)"\[\([0-9]*\)\].*/\1 \2/p')
set -- $peer
[ -n "${1:-}" ] || fail "cannot find S1 port 5 in the net file"
mid=$1 midport=$2
python3 - "$T/ft.net" "$T/link.net" "S1" 5 "$mid" "$midport" <<'PY'
import sys
src, dst, a, ap, b, bp = sys.argv[1:]
out, cur = [], None
for line in open(src):
    s = line.rstrip("\n")
    if s.startswith(("Switch", "Hca")):
        cur = s.split('"')[1]
    elif s.startswith("[") and cur in (a, b):
        port = s[1:s.index("]")]
        if (cur, port) in ((a, ap), (b, bp)):
            continue
    out.append(line)
open(dst, "w").writelines(out)
PY
failure link "Unlink \"S1\"[5]" "$T/link.net"

# A whole middle switch (one that S1 still uses).
peer=$(sed -n '/^Switch.*"S1"$/,/^$/p' "$T/ft.net" | sed -n 's/^\[6\]\t"\([^"]*\)".*/\1/p')
python3 - "$T/link.net" "$T/switch.net" "$peer" <<'PY'
import sys
src, dst, gone = sys.argv[1:]
# The switch stays, with no link: ibsim numbers GUIDs in file order.
out, cur = [], None
for line in open(src):
    s = line.rstrip("\n")
    if s.startswith(("Switch", "Hca")):
        cur = s.split('"')[1]
    elif s.startswith("[") and (cur == gone or '"%s"' % gone in s):
        continue
    out.append(line)
open(dst, "w").writelines(out)
PY
failure switch "Unlink \"$peer\"" "$T/switch.net"

# A link coming up is a heavy sweep.
h=$(field heavy_sweeps) inc=$(field incremental_sweeps) links=$(field links)
ibsim_cmd "Link \"S1\"[5] \"$mid\"[$midport]"
wait_count heavy_sweeps $((h + 1))
grep -q "incremental sweep not possible (a port came up)" "$T/ibsmd.log" ||
	fail "a port coming up did not fall back to a heavy sweep"
[ "$(field incremental_sweeps)" = "$inc" ] || fail "the link coming up was taken incrementally"
[ "$(field links)" = $((links + 1)) ] || fail "links: $(field links), want $((links + 1))"
check_fabric "$T/up.walk"

# A failure during the incremental sweep (leaf S3: not the SM's leaf).
# An uplink of S3 goes down that its route to the SM's LID does not take
# (which one it takes is the routing's choice), so S3's own trap names it
# and the probe asks it.  Its port 6 went with the middle switch above.
g2l() { printf '%d' "$(awk -v g="$1" '$1 == g { print $2 }' "$T/state/guid2lid")"; }
s3lid=$(g2l 0x0000000000200002) smlid=$(g2l 0x0000000000100001)
toward_sm=$(sim ibroute "$s3lid" "$smlid" "$smlid" | awk '/^0x/ { print $2 + 0 }')
[ -n "$toward_sm" ] || fail "no route from S3 (LID $s3lid) to the SM (LID $smlid) read back"
up=5; [ "$toward_sm" = 5 ] && up=7
h=$(field heavy_sweeps) inc=$(field incremental_sweeps)
n0=$(wc -l <"$T/ibsmd.log")
touch "$T/hold"
ibsim_cmd "Unlink \"S3\"[$up]"
for _ in $(seq 100); do [ -e "$T/hold.held" ] && break; sleep 0.1; done
[ -e "$T/hold.held" ] || { rm -f "$T/hold"; fail "the sweep after S3's uplink went down never reached PROBE"; }
ibsim_cmd "Unlink \"S3\""
rm -f "$T/hold"
wait_count heavy_sweeps $((h + 1))
sleep 0.2 # the log line follows the counter
tail -n +$((n0 + 1)) "$T/ibsmd.log" >"$T/fail.log"
grep -q -- "-> PROBE" "$T/fail.log" || fail "mid-sweep failure: the sweep did not start incremental"
grep -q -- "PROBE -> DISCOVER" "$T/fail.log" ||
	{ grep "sweep" "$T/fail.log" | tail -5; fail "mid-sweep failure: no fallback from PROBE to DISCOVER"; }
[ "$(field incremental_sweeps)" = "$inc" ] || fail "mid-sweep failure: counted as incremental"
grep "PROBE -> DISCOVER" "$T/fail.log" | head -1 | sed 's/^/  /'
check_fabric "$T/fail.walk"
echo PASS
