#!/usr/bin/env python3
"""Walks LFTs read back from the switches and checks up/down routing.

Independent of ibsmd's code: topology from `ibnetdiscover -p`, tables from
`ibroute <lid>` (parsed by bringup_walk.py).  For every host pair the walk
must arrive without loop or drop.  From the walks:
  * the channel-dependency graph (a vertex per directed switch-to-switch
    link, an edge per consecutive pair of links on some path) must be
    acyclic (Kahn) with --expect-acyclic;
  * with --roots FILE (one GUID per line): ranks by BFS from the roots,
    a link is up towards the lower rank, on equal ranks towards the lower
    GUID; no path may go down and then up.
Prints one line of metrics: pairs, max/avg hops (links CA to CA), max
routes over one directed switch-to-switch link, credit loop yes/no.

usage: updown_walk.py NETDISCOVER_P IBROUTE_DIR [--roots F] [--expect-acyclic]
"""
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bringup_walk import read_topology, read_lfts  # noqa: E402


def ranks(roots, adj):
    rank = {r: 0 for r in roots}
    q = collections.deque(roots)
    while q:
        u = q.popleft()
        for v in sorted(adj[u]):
            if v not in rank:
                rank[v] = rank[u] + 1
                q.append(v)
    return rank


def is_up(rank, a, b):
    return (rank[b], int(b, 16)) < (rank[a], int(a, 16))


def acyclic(deps, vertices):
    indeg = collections.Counter()
    for v in deps:
        for w in deps[v]:
            indeg[w] += 1
    q = [v for v in vertices if indeg[v] == 0]
    seen = 0
    while q:
        v = q.pop()
        seen += 1
        for w in deps.get(v, ()):
            indeg[w] -= 1
            if indeg[w] == 0:
                q.append(w)
    return seen == len(vertices)


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        print(__doc__)
        return 2
    roots_file = args[args.index("--roots") + 1] if "--roots" in args else None
    expect_acyclic = "--expect-acyclic" in args
    link, ntype, lid = read_topology(args[0])
    switches = {g for g, t in ntype.items() if t == "SW"}
    lft = read_lfts(args[1], {g: lid[(g, 0)] for g in switches})
    adj = collections.defaultdict(set)
    for (g, p), (pg, pp) in link.items():
        if g in switches and pg in switches:
            adj[g].add(pg)
    rank = None
    if roots_file:
        roots = ["0x%016x" % int(l, 16) for l in open(roots_file) if l.strip()]
        missing = [r for r in roots if r not in switches]
        if missing:
            print("ERROR: roots not switches of the fabric:", missing)
            return 1
        rank = ranks(roots, adj)
    hosts = sorted(k for k in lid if ntype[k[0]] != "SW" and k in link)
    errors, load = [], collections.Counter()
    deps = collections.defaultdict(set)
    vertices = set()
    pairs = hop_sum = max_hops = turns = 0
    for src in hosts:
        for dst in hosts:
            if dst == src:
                continue
            dlid = lid[dst]
            cur, path, seen = link[src][0], [], set()
            while True:
                if cur in seen:
                    errors.append("loop from %s to LID %d" % (src, dlid))
                    break
                seen.add(cur)
                out = lft.get(cur, {}).get(dlid)
                if out is None or out == 255 or (cur, out) not in link:
                    errors.append("%s -> LID %d dropped at %s" % (src, dlid, cur))
                    break
                nxt = link[(cur, out)]
                if nxt == dst:
                    pairs += 1
                    hops = len(path) + 2
                    hop_sum += hops
                    max_hops = max(max_hops, hops)
                    break
                if nxt[0] not in switches:
                    errors.append("%s -> LID %d to wrong port" % (src, dlid))
                    break
                path.append((cur, out, nxt[0]))
                cur = nxt[0]
            for a, b in zip(path, path[1:]):
                deps[a[:2]].add(b[:2])
            went_down = False
            for (a, _, b) in path:
                vertices.add((a, _))
                load[(a, _)] += 1
                if rank is not None:
                    if is_up(rank, a, b):
                        if went_down:
                            turns += 1
                            if turns <= 3:
                                errors.append("down->up turn at %s on %s -> "
                                              "LID %d" % (a, src, dlid))
                    else:
                        went_down = True
    ok_cdg = acyclic(deps, vertices)
    if expect_acyclic and not ok_cdg:
        errors.append("channel-dependency graph has a cycle")
    for e in errors[:20]:
        print("ERROR:", e)
    want = len(hosts) * (len(hosts) - 1)
    print("pairs=%d/%d max_hops=%d avg_hops=%.4f max_link_routes=%d "
          "credit_loop=%s down_up_turns=%s errors=%d"
          % (pairs, want, max_hops, hop_sum / max(pairs, 1),
             max(load.values()) if load else 0, "no" if ok_cdg else "YES",
             turns if rank is not None else "-", len(errors)))
    return 1 if errors or pairs != want else 0


if __name__ == "__main__":
    sys.exit(main())
