#!/usr/bin/env python3
"""A hostile HTTP client for ibsmd's metrics endpoint (metrics_fuzz.sh).
Only ever connects to the loopback address it is given; every loop is
bounded in count and time.

  http_fuzz.py malformed PORT N SEED
      N connections, each sending one malformed or unusual request
      (random bytes, broken request lines, huge or endless headers, bad
      Content-Length and chunking, NULs, pipelining, early close), reading
      what comes back for at most 2 s.  Prints how many got an HTTP
      answer and how many were closed without one.
  http_fuzz.py slow PORT N SECONDS
      N connections that send a request one byte per second (never
      finishing its headers) and N/4 that ask for /metrics and read the
      answer one byte per second, for SECONDS.  Prints how many the
      server closed and how many were still open at the end.
"""
import random
import socket
import sys
import time

HOST = "127.0.0.1"


def cases(rnd):
    ok = b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
    fixed = [
        b"\r\n\r\n",
        b"GET\r\n\r\n",
        b"GET /metrics\r\n\r\n",
        b"GET /metrics HTTP/9.9\r\n\r\n",
        b"GET /metrics HTTP/1.1\r\n\r\n",  # no Host on 1.1
        b"BREW /metrics HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET " + b"/" * 100000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /metrics HTTP/1.1\r\nHost: x\r\nX: " + b"a" * 70000 +
        b"\r\n\r\n",
        b"GET /metrics HTTP/1.1\r\nHost: x\r\n" +
        b"".join(b"H%d: v\r\n" % i for i in range(3000)) + b"\r\n",
        b"GET /metrics HTTP/1.1\r\nHost: x\r\nnocolon\r\n\r\n",
        b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
        b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: "
        b"99999999999999999999\r\n\r\nabc",
        b"POST /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: "
        b"chunked\r\n\r\nzz\r\nabc\r\n",
        b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"ffffffffffffffffff\r\n",
        b"GET /met\x00rics HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /metrics HTTP/1.1\r\nHost: \xff\xfe\r\n\r\n",
        b"GET /metrics HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n\r\n",
        b"GET /metrics HTTP/1.1\r\nHost: x\r\nRange: bytes=5-1\r\n\r\n",
        b"GET /metrics HTTP/1.0\r\nConnection: keep-alive\r\n\r\n" * 50,
        b"HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n" + ok * 20,
        b"GET /metrics HTTP/1.1\nHost: x\n\n",
        b"GET\t/metrics\tHTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /metrics?x=%zz&&== HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET http://x/metrics HTTP/1.1\r\nHost: x\r\n\r\n",
        b"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n",
        b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(64),  # TLS
    ]
    while True:
        kind = rnd.randrange(4)
        if kind == 0:
            yield rnd.choice(fixed)
        elif kind == 1:  # random bytes
            yield bytes(rnd.randrange(256) for _ in range(rnd.randrange(1,
                                                                        2048)))
        elif kind == 2:  # a good request with bytes flipped
            b = bytearray(rnd.choice([ok] + fixed[:6]))
            for _ in range(rnd.randrange(1, 8)):
                b[rnd.randrange(len(b))] = rnd.randrange(256)
            yield bytes(b)
        else:  # a good request cut short
            yield ok[:rnd.randrange(len(ok))]


def one(port, data, rnd):
    """Sends data; True if an HTTP status line came back."""
    s = socket.create_connection((HOST, port), timeout=0.5)
    try:
        if rnd.random() < 0.1:  # reset instead of a clean close
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                         b"\x01\x00\x00\x00\x00\x00\x00\x00")
        try:
            s.sendall(data)
            if rnd.random() < 0.5:
                s.shutdown(socket.SHUT_WR)
            got = s.recv(64)
        except (socket.timeout, ConnectionError, OSError):
            got = b""
        return got.startswith(b"HTTP/")
    finally:
        s.close()


def malformed(port, n, seed):
    rnd = random.Random(seed)
    answered = closed = 0
    deadline = time.time() + 240
    gen = cases(rnd)
    for _ in range(n):
        if time.time() > deadline:
            break
        if one(port, next(gen), rnd):
            answered += 1
        else:
            closed += 1
    print("malformed: %d requests, %d answered, %d closed without an "
          "answer" % (answered + closed, answered, closed))
    return 0


def slow(port, n, seconds):
    drip = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 10000
    senders, readers, opened = [], [], 0
    for _ in range(n):
        try:
            s = socket.create_connection((HOST, port), timeout=1)
            s.setblocking(False)
            senders.append(s)
            opened += 1
        except OSError:
            break
    for _ in range(n // 4):
        try:
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
            s.settimeout(1)
            s.connect((HOST, port))
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            s.setblocking(False)
            readers.append(s)
            opened += 1
        except OSError:
            break
    closed = 0
    end = time.time() + seconds
    i = 0
    while time.time() < end and (senders or readers):
        for s in list(senders):
            try:
                s.send(drip[i % len(drip):i % len(drip) + 1])
            except BlockingIOError:
                pass
            except OSError:
                senders.remove(s)
                s.close()
                closed += 1
        for s in list(readers):
            try:
                if s.recv(1) == b"":
                    raise ConnectionError
            except BlockingIOError:
                pass
            except OSError:
                readers.remove(s)
                s.close()
                closed += 1
        i += 1
        time.sleep(1)
    left = len(senders) + len(readers)
    for s in senders + readers:
        s.close()
    print("slow: %d opened, %d closed by the server, %d still open after "
          "%d s" % (opened, closed, left, seconds))
    return 0


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "malformed":
        return malformed(int(sys.argv[2]), int(sys.argv[3]),
                         int(sys.argv[4]))
    if len(sys.argv) == 5 and sys.argv[1] == "slow":
        return slow(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
