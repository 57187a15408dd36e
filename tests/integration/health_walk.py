#!/usr/bin/env python3
"""Which host pairs the LFTs read back route over given links, and MFTs.

Independent of ibsmd: the topology comes from `ibnetdiscover -p`, the
unicast tables from `ibroute <lid>`, the multicast ones from
`ibroute -M <lid>` (optional), all read by the test from ibsim.  From
every host port to every other, following the LFT entry of the
destination LID switch by switch, the walk must arrive without loop or
drop, in the fewest switch hops the topology has WITHOUT the held links;
each use of a held link (either direction) is counted.  An MFT entry
whose port mask holds a held link's port on either end is counted too.

usage: health_walk.py NETDISCOVER_P IBROUTE_DIR GUID:PORT[,GUID:PORT...]
                      [MFT_DIR]
  GUID:PORT names one end of each held link (the other end comes from the
  topology; a link the topology does not show is down, and named so).  Prefixed with "in:", the links are counted only: they are in
  use, and the fewest hops are those of the whole topology.  Prints "pairs N delivered N held_uses U mft_uses M" and the
  use count of each held link; exits 1 when a pair is not delivered or
  not on a shortest path of the reduced topology.
"""
import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bringup_walk import bfs, read_lfts, read_topology, walk  # noqa: E402


def read_mfts(dirname, lid_of_switch):
    """guid -> {mlid: set(ports)} from `ibroute -M` output: an "x" in the
    column of a port number of the "Ports:" line marks that port."""
    mft = {}
    for guid, slid in lid_of_switch.items():
        path = os.path.join(dirname, str(slid))
        if not os.path.exists(path):
            continue
        cols, table = None, {}
        for line in open(path):
            line = line.rstrip("\n")
            if line.strip().startswith("Ports:"):
                cols = {m.start(): int(m.group())
                        for m in re.finditer(r"\d+", line)}
            m = re.match(r"^0x([0-9a-f]+)\s", line)
            if m and cols is not None:
                table[int(m.group(1), 16)] = {
                    p for c, p in cols.items()
                    if c < len(line) and line[c] == "x"}
        mft[guid] = table
    return mft


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    link, ntype, lid = read_topology(sys.argv[1])
    held, spec = set(), sys.argv[3]
    in_use = spec.startswith("in:")
    for item in spec[3 if in_use else 0:].split(","):
        g, p = item.split(":")
        g = "0x%016x" % int(g, 16)
        end = (g, int(p))
        if end not in link:  # down (a disabled port): nothing to use
            print("held %s:%d is down" % end)
            continue
        held.add(tuple(sorted([end, link[end]])))
    switches = {g for g, t in ntype.items() if t == "SW"}
    sw_lid = {g: lid[(g, 0)] for g in switches}
    lft = read_lfts(sys.argv[2], sw_lid)
    adj = collections.defaultdict(set)
    for (g, p), (pg, pp) in link.items():
        if (g in switches and pg in switches and
                (in_use or tuple(sorted([(g, p), (pg, pp)])) not in held)):
            adj[g].add(pg)
    dist = {s: bfs(adj, s) for s in switches}
    hosts = sorted(k for k in lid if ntype[k[0]] != "SW" and k in link)
    uses = collections.Counter()
    errors, pairs, delivered = [], 0, 0
    for src in hosts:
        for dst in hosts:
            if dst == src:
                continue
            pairs += 1
            hops, crossed, err = walk(link, lft, lid, switches, src, dst)
            for a, b in crossed:
                key = tuple(sorted([a, b]))
                if key in held:
                    uses[key] += 1
            if err:
                errors.append(err)
                continue
            want = dist[link[src][0]].get(link[dst][0])
            if want is None or hops != want:
                errors.append("%s -> LID %d took %d hops, fewest %s" %
                              (src, lid[dst], hops, want))
            delivered += 1
    mft_uses = 0
    if len(sys.argv) > 4:
        mft = read_mfts(sys.argv[4], sw_lid)
        ends = {e for k in held for e in k}
        for g, table in mft.items():
            for mlid, ports in table.items():
                for p in ports:
                    if (g, p) in ends:
                        mft_uses += 1
                        print("MFT of %s MLID 0x%04x uses held port %d" %
                              (g, mlid, p))
    for e in errors[:20]:
        print("ERROR:", e)
    for k in sorted(held):
        print("held %s:%d - %s:%d used by %d pairs" %
              (k[0][0], k[0][1], k[1][0], k[1][1], uses[k]))
    print("pairs %d delivered %d held_uses %d mft_uses %d" %
          (pairs, delivered, sum(uses.values()), mft_uses))
    return 1 if errors or delivered != pairs else 0


if __name__ == "__main__":
    sys.exit(main())
