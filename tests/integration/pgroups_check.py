#!/usr/bin/env python3
"""Checks port-groups.dump against the other dumps of the same directory,
with nothing of ibsmd's code: links from subnet.lst, static ports from
lfts.dump, hop distances by a BFS written here.

  pgroups_check.py DIR [--minhop] [--full-coverage] [--cap N]
                   [--dump FILE] [--switches GUID,...]

Every group has two ports or more, ports that lead to a switch; every
LID line names a group of its switch that holds the LID's LFT port;
with --minhop every port of a group is a min-hop port towards the LID;
ids run 1..k ordered by how many LIDs use them; with --full-coverage
every (switch, LID) pair with two or more min-hop ports has a group
(with --switches: on those switches only).  --dump checks FILE instead
of DIR/port-groups.dump.
Prints one summary line; exit 1 with the first problem."""
import collections
import re
import sys

NODE = re.compile(r"\{ (SW|CA|RT) Ports:\S+ SystemGUID:\S+ NodeGUID:(\S+) "
                  r"PortGUID:\S+ .*?LID:(\S+) PN:(\S+) \}")


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def read_links(d):
    """(node guid, port) -> (peer guid, peer port); types; LID owners."""
    link, kind, lid_node, lid_port = {}, {}, {}, {}
    for line in open(d + "/subnet.lst"):
        m = NODE.findall(line)
        if len(m) != 2:
            continue
        (ta, ga, la, pa), (tb, gb, lb, pb) = m
        ga, gb = int(ga, 16), int(gb, 16)
        link[(ga, int(pa, 16))] = (gb, int(pb, 16))
        kind[ga], kind[gb] = ta, tb
        for t, g, l, p in ((ta, ga, la, pa), (tb, gb, lb, pb)):
            lid = int(l, 16)
            lid_node[lid] = g
            lid_port[lid] = 0 if t == "SW" else int(p, 16)
    return link, kind, lid_node, lid_port


def read_lfts(d):
    lft, sw = {}, None
    for line in open(d + "/lfts.dump"):
        m = re.search(r"guid (0x[0-9a-f]+)", line)
        if line.startswith("Unicast lids") and m:
            sw = int(m.group(1), 16)
            continue
        f = line.split()
        if sw is not None and len(f) >= 2 and f[0].startswith("0x"):
            lft[(sw, int(f[0], 16))] = int(f[1])
    return lft


def read_groups(path):
    groups, ft = {}, {}
    for line in open(path):
        f = line.split()
        if len(f) == 5 and f[1] == "pg" and f[3] == "ports":
            groups[(int(f[0], 16), int(f[2]))] = {int(p) for p in f[4].split(",")}
        elif len(f) == 5 and f[1] == "lid" and f[3] == "pg":
            ft[(int(f[0], 16), int(f[2], 16))] = int(f[4])
        elif len(f) > 2 and f[1] == "info":
            continue
        elif f:
            fail("%s: bad line %r" % (path, line))
    return groups, ft


def switch_hops(link, kind):
    """hops[a][b] between switches, BFS over switch-to-switch links."""
    adj = collections.defaultdict(set)
    for (a, _), (b, _) in link.items():
        if kind[a] == "SW" and kind[b] == "SW" and a != b:
            adj[a].add(b)
    hops = {}
    for s in [g for g in kind if kind[g] == "SW"]:
        dist, q = {s: 0}, collections.deque([s])
        while q:
            x = q.popleft()
            for y in adj[x]:
                if y not in dist:
                    dist[y] = dist[x] + 1
                    q.append(y)
        hops[s] = dist
    return hops


def dest_switch(lid, link, kind, lid_node, lid_port):
    g = lid_node[lid]
    if kind[g] == "SW":
        return g
    peer = link.get((g, lid_port[lid]))
    return peer[0] if peer else None


def minhop_ports(sw, dsw, link, kind, hops):
    want = hops[sw].get(dsw)
    if want is None or want == 0:
        return set()
    out = set()
    for (g, p), (pg, _) in link.items():
        if g == sw and kind[pg] == "SW" and hops[pg].get(dsw) == want - 1:
            out.add(p)
    return out


def main():
    d = sys.argv[1]
    minhop = "--minhop" in sys.argv
    full = "--full-coverage" in sys.argv
    cap = int(sys.argv[sys.argv.index("--cap") + 1]) if "--cap" in sys.argv else 255
    link, kind, lid_node, lid_port = read_links(d)
    lft = read_lfts(d)
    dump = sys.argv[sys.argv.index("--dump") + 1] if "--dump" in sys.argv \
        else d + "/port-groups.dump"
    only = None
    if "--switches" in sys.argv:
        only = {int(g, 16) for g in sys.argv[sys.argv.index("--switches") + 1].split(",")}
    groups, ft = read_groups(dump)
    hops = switch_hops(link, kind)
    uses = collections.Counter((s, g) for (s, _), g in ft.items())
    for (s, gid), ports in groups.items():
        if len(ports) < 2:
            fail("switch 0x%016x group %d has %d port" % (s, gid, len(ports)))
        if not 1 <= gid <= cap:
            fail("switch 0x%016x group id %d outside 1..%d" % (s, gid, cap))
        for p in ports:
            if (s, p) not in link or kind[link[(s, p)][0]] != "SW":
                fail("switch 0x%016x group %d: port %d leads to no switch" % (s, gid, p))
        if gid > 1 and uses[(s, gid)] > uses[(s, gid - 1)]:
            fail("switch 0x%016x: group %d has more LIDs than group %d" % (s, gid, gid - 1))
        if uses[(s, gid)] == 0:
            fail("switch 0x%016x: group %d is used by no LID" % (s, gid))
    multi = covered = 0
    for (s, lid), q in lft.items():
        if kind.get(s) != "SW" or lid not in lid_node or q == 255:
            continue
        dsw = dest_switch(lid, link, kind, lid_node, lid_port)
        cand = minhop_ports(s, dsw, link, kind, hops) if dsw else set()
        gid = ft.get((s, lid), 0)
        if len(cand) >= 2:
            multi += 1
            covered += gid != 0
            if full and not gid and (only is None or s in only):
                fail("switch 0x%016x LID 0x%04x has %d min-hop ports and no group"
                     % (s, lid, len(cand)))
        if not gid:
            continue
        g = groups.get((s, gid))
        if g is None:
            fail("switch 0x%016x LID 0x%04x: group %d not defined" % (s, lid, gid))
        if q not in g:
            fail("switch 0x%016x LID 0x%04x: LFT port %d not in group %d %s"
                 % (s, lid, q, gid, sorted(g)))
        if minhop and not g <= cand:
            fail("switch 0x%016x LID 0x%04x: group %s is not inside the min-hop ports %s"
                 % (s, lid, sorted(g), sorted(cand)))
    for (s, lid) in ft:
        if (s, lid) not in lft:
            fail("switch 0x%016x LID 0x%04x has a group but no LFT entry" % (s, lid))
    print("pgroups_check: %d groups, %d LID entries, %d multi-path pairs, "
          "%d covered" % (len(groups), len(ft), multi, covered))


if __name__ == "__main__":
    main()
