#!/bin/bash
# The control socket under load: one client opens and
# holds 1,000 connections (some mid-line, some with unread answers) while
# ibsmd keeps sweeping and answering the SA (saquery) and an operator's
# ibsmctl still gets in; the daemon holds no more than
# control.max_connections of them.  Then the idle timeout closes a silent
# connection, a client that sends 5,000 requests before reading anything
# still gets every answer (reading stops at control.max_output, nothing is
# lost or blocks the loop), and the access rules: socket 0660 in a 0750
# directory, `sweep` refused to a non-root member of the group.
. "$(dirname "$0")/mcast_common.bash"
need saquery setpriv

rundir=$T/run/ibsmd
sock=$rundir/sock
mkdir -p "$T/state" "$T/run"
# the non-root client below must be able to reach $rundir
chmod 711 "$T" "$T/run"
start_ibsim "$TOP/tests/data/ft2-small.net" $("$O/ibsmgen" ibsim-args "$TOP/tests/data/ft2-small.net")
LD_PRELOAD="$UMAD2SIM${LD_PRELOAD:+:$LD_PRELOAD}" "$O/ibsmd" \
	--state-dir "$T/state" -o control_socket="$sock" -o log.level=info \
	-o sm.sweep_interval_ms=200 -o control.max_connections=64 \
	-o control.idle_timeout_ms=2000 -o control.max_output=8192 \
	>>"$T/ibsmd.log" 2>&1 &
IBSMD_PID=$!
ctl() { "$O/ibsmctl" -s "$sock" "$@"; }
for _ in $(seq 150); do
	ctl status 2>/dev/null | grep -q "sm_state MASTER" && break
	kill -0 "$IBSMD_PID" 2>/dev/null || fail "ibsmd exited: $(tail -5 "$T/ibsmd.log")"
	sleep 0.2
done
ctl status | grep -q "sm_state MASTER" || fail "ibsmd did not come up"

alive() {
	kill -0 "$IBSMD_PID" 2>/dev/null && return 0
	wait "$IBSMD_PID"; local rc=$?; IBSMD_PID=
	fail "$1: ibsmd exited with status $rc: $(tail -3 "$T/ibsmd.log")"
}

# Access as configured.
[ "$(stat -c %a "$sock")" = 660 ] || fail "socket mode $(stat -c %a "$sock"), want 660"
[ "$(stat -c %a "$rundir")" = 750 ] || fail "socket directory mode $(stat -c %a "$rundir"), want 750"
# A member of the socket's group (gid 0 here) who is not root: status yes,
# sweep and dump no.
as_user() { setpriv --reuid=65534 --regid=0 --clear-groups "$@"; }
as_user "$O/ibsmctl" -s "$sock" status | grep -q "sm_state MASTER" ||
	fail "a group member cannot run status"
out=$(as_user "$O/ibsmctl" -s "$sock" sweep 2>&1) &&
	fail "a non-root group member may start a sweep: $out"
echo "non-root sweep: $out"
echo "$out" | grep -q "root only" || fail "no reason given: $out"
out=$(as_user "$O/ibsmctl" -s "$sock" dump "$T/x" 2>&1) &&
	fail "a non-root group member may dump: $out"
[ -e "$T/x" ] && fail "the refused dump wrote $T/x"
ctl sweep >/dev/null || fail "root cannot start a sweep"

sweeps() { ctl status | awk '$1 == "sweeps" { print $2 }'; }

# 1,000 connections held by one client.
python3 - "$sock" >"$T/holder.log" 2>&1 <<'PY' &
import resource, socket, sys, time
resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))
conns = []
for i in range(1000):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    if i % 3 == 1:
        s.send(b"stat")           # an unfinished line
    elif i % 3 == 2:
        s.send(b"status\n")       # an answer never read
    conns.append(s)
print("holding", len(conns), flush=True)
# keep every connection busy enough not to be idle (one byte a second)
for _ in range(15):
    for s in conns:
        try:
            s.send(b" ")
        except OSError:
            pass
    time.sleep(1)
PY
HOLDER=$!
for _ in $(seq 300); do grep -q holding "$T/holder.log" && break; sleep 0.1; done
grep -q holding "$T/holder.log" || fail "the client could not open 1000 connections: $(cat "$T/holder.log")"
alive "1000 connections"
s0=$(sweeps)
ok=0
for i in $(seq 10); do
	sim saquery -N >/dev/null 2>&1 && ok=$((ok + 1))
	ctl status >/dev/null 2>&1 || fail "ibsmctl status refused while 1000 connections are held"
	sleep 0.3
done
s1=$(sweeps)
nfd=$(ls /proc/$IBSMD_PID/fd | wc -l)
echo "saquery answered $ok/10, sweeps $s0 -> $s1, daemon fds $nfd"
[ "$ok" -ge 9 ] || fail "the SA answered $ok of 10 saquery while 1000 connections are held"
[ "$s1" -gt "$s0" ] || fail "no sweep while 1000 connections are held ($s0 -> $s1)"
[ "$nfd" -le 128 ] || fail "ibsmd holds $nfd descriptors (control.max_connections is 64)"
alive "1000 connections"
kill "$HOLDER" 2>/dev/null; wait "$HOLDER" 2>/dev/null
out=$(sim saquery -N 2>&1) || fail "saquery after the crowd: $out"
echo "$out" | grep -q NodeRecord || fail "saquery gives no NodeRecord after the crowd"

# The idle timeout: a silent client is closed, an active one is not.
python3 - "$sock" <<'PY' || fail "idle timeout"
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
t = time.monotonic(); s.settimeout(30)
if s.recv(10) != b"":
    sys.exit("expected EOF from the daemon")
print("idle connection closed after %.1f s" % (time.monotonic() - t))
PY
alive "idle"

# 5,000 requests sent before reading: every answer arrives, whole.
python3 - "$sock" <<'PY' || fail "pipelined requests"
import socket, sys, threading
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
def send():
    s.sendall(b"help\n" * 5000)
    s.shutdown(socket.SHUT_WR)
t = threading.Thread(target=send); t.start()
import time; time.sleep(1)        # the daemon must stop reading, not block
data = b""
while True:
    b = s.recv(65536)
    if not b:
        break
    data += b
t.join()
n = data.count(b"\nOK\n")
print("answers", n, "bytes", len(data))
if n != 5000:
    sys.exit("want 5000 answers, got %d" % n)
PY
alive "pipelined"
ctl status | grep -q "sm_state MASTER" || fail "status after the load"
grep "control socket" "$T/ibsmd.log" | head
n=$(grep -c "control socket" "$T/ibsmd.log")
echo "control socket log lines: $n"
echo "PASS: control socket under load"
