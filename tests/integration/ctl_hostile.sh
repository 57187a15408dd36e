#!/bin/bash
# The control socket against clumsy and hostile clients:
# a client that sends many commands and closes without reading, one that
# closes mid-line or right after connecting, a line over the length limit,
# binary bytes, and a half-close (shutdown(SHUT_WR)) that must still get its
# whole answer.  After each case ibsmd must still run and answer
# `ibsmctl status`, and the case may cost at most one log line about the
# control socket.
. "$(dirname "$0")/mcast_common.bash"

mc_start "$TOP/tests/data/ft2-small.net"
sock=$T/sock

ctl_lines() { grep -c "control socket" "$T/ibsmd.log"; }

# hostile CASE: one misbehaving client (python, AF_UNIX), then checks.
hostile() {
	local case=$1 before after out
	before=$(ctl_lines)
	out=$(python3 - "$sock" "$case" <<'PY'
import random, socket, sys, time
path, case = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX)
s.connect(path)
def drain():
    data = b""
    s.settimeout(10)
    while True:
        try:
            b = s.recv(65536)
        except (ConnectionResetError, socket.timeout):
            break
        if not b:
            break
        data += b
    return data
if case == "early_close":
    # the issue's reproducer: answers are never read
    s.sendall(b"status\n" * 200)
elif case == "early_close_big":
    s.sendall(b"help\nstatus\nmcg list\n" * 300)
elif case == "connect_close":
    pass
elif case == "mid_line":
    s.sendall(b"stat")
elif case == "reset":
    s.sendall(b"status\n" * 50)
    # SO_LINGER 0: the close is a reset, not a FIN
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\1\0\0\0\0\0\0\0")
elif case == "long_line":
    try:
        s.sendall(b"status " + b"x" * 100000 + b"\n")
    except (BrokenPipeError, ConnectionResetError):
        pass
    print("answer:", drain()[:200])
elif case == "binary":
    rnd = random.Random(11)
    try:
        for _ in range(16):
            s.sendall(bytes(rnd.randrange(256) for _ in range(512)))
    except (BrokenPipeError, ConnectionResetError):
        pass
    s.shutdown(socket.SHUT_WR)
    print("answer bytes:", len(drain()))
elif case == "half_close":
    s.sendall(b"status")          # no newline: EOF ends the line
    s.shutdown(socket.SHUT_WR)
    a = drain().decode()
    print(a)
    if "sm_state MASTER" not in a or not a.endswith("OK\n"):
        print("BAD half-close answer"); sys.exit(1)
elif case == "half_close_many":
    s.sendall(b"status\n" * 100)
    s.shutdown(socket.SHUT_WR)
    a = drain().decode()
    n = a.count("sm_state MASTER")
    print("answers", n)
    if n != 100 or a.count("\nOK\n") != 100:
        print("BAD: want 100 whole answers"); sys.exit(1)
s.close()
PY
	) || fail "$case: client check failed: $out"
	echo "$case: $out" | head -3
	sleep 0.5
	kill -0 "$IBSMD_PID" 2>/dev/null || {
		wait "$IBSMD_PID"; local rc=$?
		tail -5 "$T/ibsmd.log"
		IBSMD_PID=
		fail "$case: ibsmd exited with status $rc"
	}
	ctl status | grep -q "sm_state MASTER" || fail "$case: ibsmctl status does not answer"
	after=$(ctl_lines)
	[ $((after - before)) -le 1 ] ||
		fail "$case: $((after - before)) log lines: $(grep "control socket" "$T/ibsmd.log" | tail -3)"
}

for c in early_close early_close_big connect_close mid_line reset \
	long_line binary half_close half_close_many; do
	hostile "$c"
done
# The reproducer again, repeated: every round must leave the daemon up.
for _ in $(seq 20); do hostile early_close; done
echo "PASS: ibsmd survived every control-socket client"
