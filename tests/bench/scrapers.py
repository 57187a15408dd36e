#!/usr/bin/env python3
"""N concurrent Prometheus-like scrapers of one endpoint on the loopback
(tests/bench/metrics.sh): each opens a connection, GETs /metrics, reads
the whole page (discarding it), and does it again every INTERVAL
seconds, for SECONDS.
One thread (asyncio), so the load generator itself costs little CPU.
Prints: scrapes, failures, p50/p99/max latency in ms.

  scrapers.py PORT N INTERVAL SECONDS
"""
import asyncio
import os
import signal
import sys
import time

lat, fails = [], [0]
TIMEOUT = 60  # a page with every port's counters is hundreds of MB


async def read_page(r):
    """Reads the answer to its end, keeping none of it (100 pages of
    300 MB would not fit in memory)."""
    head = await r.read(64)
    if not head.startswith(b"HTTP/1.1 200"):
        raise ValueError(head[:40])
    while await r.read(1 << 20):
        pass


async def scraper(port, interval, end, delay):
    await asyncio.sleep(delay)
    while time.time() < end:
        t0 = time.time()
        try:
            r, w = await asyncio.wait_for(
                asyncio.open_connection("127.0.0.1", port), 5)
            w.write(b"GET /metrics HTTP/1.1\r\nHost: bench\r\n"
                    b"Connection: close\r\n\r\n")
            await asyncio.wait_for(read_page(r), TIMEOUT)
            w.close()
            lat.append((time.time() - t0) * 1000)
        except Exception:
            fails[0] += 1
        await asyncio.sleep(max(0, interval - (time.time() - t0)))


async def main(port, n, interval, seconds):
    end = time.time() + seconds
    await asyncio.gather(*(scraper(port, interval, end, i * interval / n)
                           for i in range(n)))


def report():
    lat.sort()
    q = lambda p: lat[min(len(lat) - 1, int(len(lat) * p))] if lat else 0
    print("scrapes %d failures %d p50_ms %.2f p99_ms %.2f max_ms %.2f" %
          (len(lat), fails[0], q(0.5), q(0.99), lat[-1] if lat else 0),
          flush=True)


if __name__ == "__main__":
    if len(sys.argv) != 5:
        print(__doc__)
        sys.exit(2)
    port, n = int(sys.argv[1]), int(sys.argv[2])

    def stop(*_):  # SIGTERM (the benchmark's kill) ends the run early
        report()
        os._exit(0)
    signal.signal(signal.SIGTERM, stop)
    asyncio.run(main(port, n, float(sys.argv[3]), float(sys.argv[4])))
    report()
