#!/usr/bin/env python3
"""Checks for the expected-cabling tests (topology_expected.sh), written
apart from ibsmd's lib/topo_diff.c and trusting only the real tools.

  topology_check.py mutate IN OUT OP...
      writes OUT, the ibsim net file IN with cables changed; OP is
      swap:A:PA:B:PB (ports A[PA] and B[PB] exchange their peers),
      cut:A:PA (the cable at A[PA] is pulled) or
      link:A:PA:B:PB (a new cable between two free ports).
  topology_check.py diff EXPECTED IBNETDISCOVER IBSMCTL_DIFF
      EXPECTED an ibsim net file, IBNETDISCOVER the plain output of
      `ibnetdiscover` on the fabric: the differences by node name
      (missing, extra, miswired, as man/ibsmctl.8 defines them) must be
      exactly the lines `ibsmctl topology diff` printed.
  topology_check.py walk NETDISC_P LFT_DIR ACTIVE
      ACTIVE lists "GUID PORT" of the ports smpquery read Active: every
      host pair whose hosts are on Active links is delivered over Active
      links only, on a shortest path of the Active topology (walk of the
      LFTs read back with ibroute, bringup_walk.py's readers).
"""
import collections
import re
import sys

NODE = re.compile(r'^(Switch|Hca|Ca|Rt)\s+(\d+)\s+"([^"]+)"(?:.*#\s*"([^"]*)")?')
PORT = re.compile(r'^\[(\d+)\][^"]*"([^"]+)"\[(\d+)\]')


def read_net(path):
    """Nodes in file order {id: (type, nports, desc)} and links
    {(id, port): (id, port)} of an ibsim net or ibnetdiscover file."""
    nodes, links, cur = {}, {}, None
    for line in open(path):
        line = line.rstrip("\n")
        m = NODE.match(line)
        if m:
            cur = m.group(3)
            nodes[cur] = (m.group(1), int(m.group(2)), m.group(4) or cur)
            continue
        m = PORT.match(line.strip())
        if m and cur:
            a, b = (cur, int(m.group(1))), (m.group(2), int(m.group(3)))
            links[a], links[b] = b, a
    return nodes, links


def write_net(path, nodes, links):
    with open(path, "w") as f:
        for nid, (typ, nports, _desc) in nodes.items():
            f.write('%s\t%d "%s"\n' % (typ, nports, nid))
            for p in range(1, nports + 1):
                if (nid, p) in links:
                    b = links[(nid, p)]
                    f.write('[%d]\t"%s"[%d]\n' % (p, b[0], b[1]))
            f.write("\n")


def mutate(src, dst, ops):
    nodes, links = read_net(src)
    for op in ops:
        w = op.split(":")
        if w[0] == "swap":
            a, b = (w[1], int(w[2])), (w[3], int(w[4]))
            pa, pb = links.pop(a), links.pop(b)
            links[a], links[pb] = pb, a
            links[b], links[pa] = pa, b
        elif w[0] == "cut":
            a = (w[1], int(w[2]))
            links.pop(links.pop(a))
        elif w[0] == "link":
            a, b = (w[1], int(w[2])), (w[3], int(w[4]))
            assert a not in links and b not in links, op
            links[a], links[b] = b, a
        else:
            raise SystemExit("unknown op " + op)
    write_net(dst, nodes, links)


def by_name(nodes, links):
    """Links keyed by (desc, port)."""
    d = {nid: v[2] for nid, v in nodes.items()}
    return {(d[a[0]], a[1]): (d[b[0]], b[1]) for a, b in links.items()}


def expected_diff(exp, found):
    """The differences as sets of (kind, frozenset of the two ends)."""
    out = set()
    seen = set()
    for a, b in found.items():
        key = frozenset((a, b))
        if key in seen:
            continue
        seen.add(key)
        if exp.get(a) == b:
            continue
        kind = "miswired" if a in exp or b in exp else "extra"
        out.add((kind, key))
    seen = set()
    for a, b in exp.items():
        key = frozenset((a, b))
        if key in seen:
            continue
        seen.add(key)
        if found.get(a) != b and a not in found and b not in found:
            out.add(("missing", key))
    return out


END = re.compile(r'"([^"]*)"\[(\d+)\]\(0x[0-9a-f]+\)')


def reported(path):
    out = set()
    for line in open(path):
        w = line.split(" ", 1)
        if w[0] not in ("missing", "extra", "miswired"):
            continue
        ends = END.findall(line)
        if len(ends) != 2:
            raise SystemExit("cannot read: " + line)
        out.add((w[0], frozenset((e[0], int(e[1])) for e in ends)))
    return out


def diff(expected, netdisc, ctl):
    exp = by_name(*read_net(expected))
    found = by_name(*read_net(netdisc))
    want, got = expected_diff(exp, found), reported(ctl)
    for k, ends in sorted(want - got, key=str):
        print("ERROR: not reported: %s %s" % (k, sorted(ends)))
    for k, ends in sorted(got - want, key=str):
        print("ERROR: reported but not so: %s %s" % (k, sorted(ends)))
    kinds = collections.Counter(k for k, _ in want)
    print("differences: %d missing, %d extra, %d miswired; ibsmctl %s" %
          (kinds["missing"], kinds["extra"], kinds["miswired"],
           "agrees" if want == got else "differs"))
    return 0 if want == got else 1


def walk(netdisc, lftdir, active_file):
    sys.path.insert(0, __file__.rsplit("/", 1)[0])
    import bringup_walk as bw
    link, ntype, lid = bw.read_topology(netdisc)
    active = set()
    for line in open(active_file):
        g, p = line.split()
        active.add((g, int(p)))
    up = {a: b for a, b in link.items() if a in active and b in active}
    switches = {g for g, t in ntype.items() if t == "SW"}
    lft = bw.read_lfts(lftdir, {g: lid[(g, 0)] for g in switches})
    adj = collections.defaultdict(set)
    for (g, p), (pg, pp) in up.items():
        if g in switches and pg in switches:
            adj[g].add(pg)
    dist = {s: bw.bfs(adj, s) for s in switches}
    hosts = sorted(k for k in lid if ntype[k[0]] != "SW" and k in up)
    errors, pairs = [], 0
    for src in hosts:
        for dst in hosts:
            if dst == src:
                continue
            cur, hops, dlid = up[src][0], 0, lid[dst]
            while hops <= len(switches):
                out = lft.get(cur, {}).get(dlid)
                if (cur, out) not in up:
                    errors.append("%s -> LID %d leaves %s by port %s, not "
                                  "an Active link" % (src, dlid, cur, out))
                    break
                nxt = up[(cur, out)]
                if nxt == dst:
                    if hops != dist[up[src][0]].get(up[dst][0]):
                        errors.append("%s -> LID %d not shortest" %
                                      (src, dlid))
                    pairs += 1
                    break
                cur, hops = nxt[0], hops + 1
            else:
                errors.append("loop from %s to LID %d" % (src, dlid))
    for e in errors[:20]:
        print("ERROR:", e)
    print("walked %d host pairs over Active links only, %d hosts; %d "
          "errors" % (pairs, len(hosts), len(errors)))
    return 1 if errors or pairs != len(hosts) * (len(hosts) - 1) else 0


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "mutate":
        mutate(sys.argv[2], sys.argv[3], sys.argv[4:])
        return 0
    if len(sys.argv) == 5 and sys.argv[1] == "diff":
        return diff(*sys.argv[2:])
    if len(sys.argv) == 5 and sys.argv[1] == "walk":
        return walk(*sys.argv[2:])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
