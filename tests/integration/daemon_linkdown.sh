#!/bin/bash
# ibsmd as a daemon under ibsim: `sminfo` sees it MASTER with its priority,
# ibsmctl status/dump/sweep answer, a link taken down with ibsim's Unlink is
# routed around within one sweep (walk of the LFTs read back), the link
# brought back with Link is activated and used again, SIGHUP reloads the
# configuration (a bad one is refused and the running one kept), SIGTERM
# exits 0.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bringup_common.bash"
need ibsim ibnetdiscover iblinkinfo ibroute sminfo python3

net=$TOP/tests/data/default.net
[ -f "$net" ] || fail "missing $net"
start_sim "$net"
st=$T/state
sock=$T/ibsmd.sock
# Not through sim(): a backgrounded shell function's $! is the subshell.
printf 'sm:\n  priority: 7\n  sweep_interval_ms: 300\n' >"$T/ibsmd.yaml"
# A stand-in for systemd's notification socket: READY=1 must come after
# the first subnet-up, with STATUS= lines.
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a") as f:
    while True:
        f.write(s.recv(4096).decode() + "\n"); f.flush()
' "$T/notify.sock" "$T/notify.log" &
NPID=$!
for _ in $(seq 50); do [ -S "$T/notify.sock" ] && break; sleep 0.1; done
NOTIFY_SOCKET=$T/notify.sock \
LD_PRELOAD="$UMAD2SIM${LD_PRELOAD:+:$LD_PRELOAD}" "$IBSMD" -c "$T/ibsmd.yaml" \
	--state-dir "$st" -o control_socket="$sock" -o log.level=info \
	>"$T/ibsmd.log" 2>&1 &
DPID=$!
trap 'kill $DPID $NPID 2>/dev/null; cleanup' EXIT

status() { "$IBSMCTL" -s "$sock" status 2>/dev/null; }
field() { status | awk -v k="$1" '$1 == k { print $2 }'; }

# Waits until a heavy sweep after number $1 has finished.
wait_heavy() {
	local before=$1
	for _ in $(seq 100); do
		h=$(field heavy_sweeps)
		if [ "${h:-0}" -gt "$before" ] && [ "$(field sweep_state)" = IDLE ]; then
			return 0
		fi
		kill -0 $DPID 2>/dev/null || { tail "$T/ibsmd.log"; fail "ibsmd died"; }
		sleep 0.1
	done
	tail -20 "$T/ibsmd.log"
	fail "no heavy sweep after $before within 10 s"
}

wait_heavy 0
[ "$(field sm_state)" = MASTER ] || fail "ibsmctl status: not MASTER: $(status)"
out=$(sim sminfo 2>&1) || fail "sminfo failed: $out"
echo "$out"
echo "$out" | grep -q "priority 7 state 3 SMINFO_MASTER" ||
	fail "sminfo does not report ibsmd as MASTER with priority 7"
check_fabric "$T/up"
grep -q "^READY=1" "$T/notify.log" || fail "no READY=1 sent to NOTIFY_SOCKET"
grep -q "^STATUS=MASTER" "$T/notify.log" || fail "no STATUS= line: $(cat "$T/notify.log")"

"$IBSMCTL" -s "$sock" dump "$T/dump" >/dev/null || fail "ibsmctl dump failed"
for f in subnet.lst lfts.dump fdbs guid2lid; do
	[ -s "$T/dump/$f" ] || fail "ibsmctl dump did not write $f"
done

# A heavy sweep of an unchanged fabric programs nothing again.
lft=$(field smps_lft_blocks); pis=$(field smps_portinfo_sets)
h=$(field heavy_sweeps)
"$IBSMCTL" -s "$sock" sweep >/dev/null || fail "ibsmctl sweep failed"
wait_heavy "$h"
[ "$(field smps_lft_blocks)" = "$lft" ] && [ "$(field smps_portinfo_sets)" = "$pis" ] ||
	fail "unchanged resweep sent LFT blocks or PortInfo Sets: $(status | grep -E 'lft|portinfo')"

# Take an uplink of leaf S1 down: a trap or the next light sweep notices.
h=$(field heavy_sweeps)
ibsim_cmd 'Unlink "S1"[5]'
wait_heavy "$h"
check_fabric "$T/down"

# Bring it back: the port must come up ACTIVE and be used again.
h=$(field heavy_sweeps)
ibsim_cmd 'Link "S1"[5] "S9"[1]'
for _ in $(seq 30); do
	"$IBSMCTL" -s "$sock" sweep >/dev/null
	wait_heavy "$h"
	h=$(field heavy_sweeps)
	[ "$(field links)" = 64 ] && break
done
[ "$(field links)" = 64 ] || fail "link S1[5]-S9[1] not rediscovered"
check_fabric "$T/back"

"$IBSMCTL" -s "$sock" status | grep -E "^(sweeps|heavy_sweeps|traps|smps_sent|smps_retried) "
# SIGHUP: a new priority applies; a broken file is refused.
printf 'sm:\n  priority: 9\n  sweep_interval_ms: 300\n' >"$T/ibsmd.yaml"
kill -HUP $DPID
for _ in $(seq 50); do [ "$(field sm_priority)" = 9 ] && break; sleep 0.1; done
sim sminfo 2>&1 | grep -q "priority 9 state 3" || fail "SIGHUP: priority 9 not applied"
printf 'sm:\n  priority: 99\n' >"$T/ibsmd.yaml"
kill -HUP $DPID
sleep 0.5
kill -0 $DPID || fail "ibsmd died on a bad config at SIGHUP"
[ "$(field sm_priority)" = 9 ] || fail "bad config at SIGHUP changed the priority"
grep -q "reload: .*ibsmd.yaml:2:.*keeping the running configuration" "$T/ibsmd.log" ||
	fail "no reload error for the bad config"

kill -TERM $DPID
wait $DPID
rc=$?
[ $rc -eq 0 ] || fail "ibsmd exited $rc on SIGTERM"
[ ! -e "$sock" ] || fail "control socket left behind"
echo "ok: daemon mode, link down/up rerouted"
