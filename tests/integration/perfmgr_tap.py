#!/usr/bin/env python3
"""Reads a libmadtap.so capture taken with MADTAP_LID set (one MAD a
line: the destination LID, a space, the MAD in hex) and splits the
performance manager's Gets into rounds, for perfmgr_allport.sh.

A round is the switches' AllPortSelect sums (PortCounters Get with
PortSelect 0xFF) followed by the ports' reads: its first sum after a
port read starts the next round.  Layouts: IBA 13.4.3 (MAD header: class
at byte 1, method at 3, attribute ID at 16) and 16.1.3.5 / 16.1.4.1
(PortCounters, PortCountersExtended: PortSelect at byte 1 of the data,
which starts at byte 64 of a PerfMgt MAD).  Decoded here on their own,
not with ibsmd's codecs.

  perfmgr_tap.py CAPTURE [FROM_LINE]
prints one JSON object per round: {"start": line, "sums": [LID...],
"port_counters": [[LID, port]...], "extended": [[LID, port]...]}; FROM_LINE (1-based,
default 1) skips the lines before it, so a round printed starts at or
after it (the lines before are read only to find the rounds' limits)."""
import json
import sys

PERFMGT = 0x04
GET = 0x01
PORT_COUNTERS = 0x0012
PORT_COUNTERS_EXT = 0x001D


def reads(path):
    """(line number, LID, attribute, PortSelect) of each PerfMgt Get."""
    for no, line in enumerate(open(path), 1):
        lid, _, hexmad = line.strip().partition(" ")
        if not hexmad:
            continue
        b = bytes.fromhex(hexmad)
        if len(b) < 66 or b[1] != PERFMGT or b[3] != GET:
            continue
        attr = int.from_bytes(b[16:18], "big")
        if attr in (PORT_COUNTERS, PORT_COUNTERS_EXT):
            yield no, int(lid), attr, b[65]


def rounds(path):
    cur, last_sum = None, False
    for no, lid, attr, sel in reads(path):
        is_sum = attr == PORT_COUNTERS and sel == 0xFF
        if is_sum and not last_sum:
            if cur:
                yield cur
            cur = {"start": no, "sums": [], "port_counters": [], "extended": []}
        last_sum = is_sum
        if cur is None:
            continue  # reads before the first round with sums
        if is_sum:
            cur["sums"].append(lid)
        elif attr == PORT_COUNTERS:
            cur["port_counters"].append([lid, sel])
        else:
            cur["extended"].append([lid, sel])
    if cur:
        yield cur


def main(path, first=1):
    for r in rounds(path):
        if r["start"] >= first:
            print(json.dumps(r))


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) == 3 else 1)
