#!/usr/bin/env python3
"""Walks the LFTs read back from the switches and checks unicast delivery.

Independent of ibsmd's code: the topology comes from `ibnetdiscover -p`, the
tables from `ibroute <switch lid>`, port states from `iblinkinfo`, all run by
the test against ibsim.  Checks:
  * every linked port ACTIVE (iblinkinfo), every LID unique and non-zero;
  * from every host port to every other host port, following the LFT entry
    for the destination LID switch by switch, the walk arrives, without
    loops or drops, in exactly the shortest number of switch hops (BFS over
    the same topology) -- what min-hop routing promises.

usage: bringup_walk.py NETDISCOVER_P IBROUTE_DIR [IBLINKINFO] [--cap N]
  IBROUTE_DIR holds one file per switch named <lid> with `ibroute <lid>` output.
  --cap N: the switches' LinearFDBCap is N, too small for the fabric: every
  LID must be below N; a host port may have LID 0 (left out by the SM), is
  then not walked, and its link may be up but not Active.  Prints
  "unrouted K" for them.
"""
import collections
import os
import re
import sys

LINE = re.compile(
    r"^(SW|CA|RT)\s+(\d+)\s+(\d+)\s+(0x[0-9a-f]+)\s+\S+\s+\S+\s+-\s+"
    r"(SW|CA|RT)\s+(\d+)\s+(\d+)\s+(0x[0-9a-f]+)")


def read_topology(path):
    """(guid,port) -> (peer guid, peer port); guid -> type; port lids."""
    link, ntype, lid = {}, {}, {}
    for line in open(path):
        m = LINE.match(line.strip())
        if not m:
            continue
        t1, l1, p1, g1, t2, l2, p2, g2 = m.groups()
        p1, p2, l1, l2 = int(p1), int(p2), int(l1), int(l2)
        link[(g1, p1)] = (g2, p2)
        link[(g2, p2)] = (g1, p1)
        ntype[g1], ntype[g2] = t1, t2
        # a switch has one LID (port 0); a CA one per port
        lid[(g1, 0 if t1 == "SW" else p1)] = l1
        lid[(g2, 0 if t2 == "SW" else p2)] = l2
    return link, ntype, lid


def read_lfts(dirname, lid_of_switch):
    lft = {}
    for guid, slid in lid_of_switch.items():
        table = {}
        path = os.path.join(dirname, str(slid))
        if not os.path.exists(path):
            continue
        for line in open(path):
            m = re.match(r"^0x([0-9a-f]+)\s+(\d+)\s", line.strip())
            if m:
                table[int(m.group(1), 16)] = int(m.group(2))
        lft[guid] = table
    return lft


ENDS = re.compile(r"(\d+)\s+\d+\[[^\]]*\]\s*==\(.*\)==>\s+(\d+)\s+\d+\[")


def check_states(path, lid0_ok=False):
    """Lines of links that are up but not Active; with lid0_ok, not those
    with LID 0 at one end (a host port the SM left without a LID)."""
    bad = []
    for line in open(path):
        # unlinked ports show Down/Polling with no peer; only ports whose
        # link is up must be Active
        if "==(" in line and "LinkUp" in line and "Active" not in line:
            m = ENDS.search(line)
            if lid0_ok and m and "0" in m.groups():
                continue
            bad.append(line.strip())
    return bad


def bfs(adj, src):
    dist = {src: 0}
    q = collections.deque([src])
    while q:
        u = q.popleft()
        for v in adj[u]:
            if v not in dist:
                dist[v] = dist[u] + 1
                q.append(v)
    return dist


def walk(link, lft, lid, switches, src, dst):
    """Follows the LFT entries for dst's LID from host port src: (switch
    hops, the links crossed as ((guid, port), (peer guid, peer port)),
    None), or (None, links so far, what went wrong)."""
    dlid, cur, hops, seen, crossed = lid[dst], link[src][0], 0, set(), []
    while True:
        if cur in seen:
            return None, crossed, "loop from %s to LID %d" % (src, dlid)
        seen.add(cur)
        out = lft.get(cur, {}).get(dlid)
        if out is None or out == 255 or (cur, out) not in link:
            return None, crossed, ("%s -> LID %d dropped at switch %s "
                                   "(port %s)" % (src, dlid, cur, out))
        nxt = link[(cur, out)]
        crossed.append(((cur, out), nxt))
        if nxt == dst:
            return hops, crossed, None
        if nxt[0] not in switches:
            return None, crossed, ("%s -> LID %d delivered to wrong port %s"
                                   % (src, dlid, nxt))
        cur, hops = nxt[0], hops + 1


def main():
    cap = None
    if "--cap" in sys.argv:
        i = sys.argv.index("--cap")
        cap = int(sys.argv[i + 1])
        del sys.argv[i:i + 2]
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    link, ntype, lid = read_topology(sys.argv[1])
    errors = []
    unrouted = [k for k, l in lid.items()
                if cap and l == 0 and ntype[k[0]] != "SW"]
    if len(sys.argv) > 3:
        errors += ["port not Active: " + b
                   for b in check_states(sys.argv[3], cap is not None)]
    owners = collections.defaultdict(list)
    for key, l in lid.items():
        if l == 0 and key not in unrouted:
            errors.append("LID 0 on %s port %d" % key)
        if cap and l >= cap:
            errors.append("LID %d of %s port %d past LinearFDBCap %d"
                          % (l, key[0], key[1], cap))
        owners[l].append(key)
    for l, keys in owners.items():
        if l and len(keys) > 1:
            errors.append("LID %d used by %s" % (l, keys))
    switches = {g for g, t in ntype.items() if t == "SW"}
    sw_lid = {g: lid[(g, 0)] for g in switches}
    lft = read_lfts(sys.argv[2], sw_lid)
    for g in switches:
        if g not in lft or not lft[g]:
            errors.append("no LFT read back from switch %s (LID %d)" %
                          (g, sw_lid[g]))
    adj = collections.defaultdict(set)
    for (g, p), (pg, pp) in link.items():
        if g in switches and pg in switches:
            adj[g].add(pg)
    hosts = sorted(k for k in lid if ntype[k[0]] != "SW" and k in link
                   and k not in unrouted)
    dist = {s: bfs(adj, s) for s in switches}
    pairs = 0
    for src in hosts:
        for dst in hosts:
            if dst == src:
                continue
            hops, _, err = walk(link, lft, lid, switches, src, dst)
            if err:
                errors.append(err)
                continue
            want = dist[link[src][0]].get(link[dst][0])
            if want is None or hops != want:
                errors.append("%s -> LID %d took %d switch hops, "
                              "shortest is %s" % (src, lid[dst], hops, want))
            pairs += 1
    for e in errors[:20]:
        print("ERROR:", e)
    if cap:
        print("unrouted %d" % len(unrouted))
    print("walked %d host pairs over %d switches, %d hosts; %d errors" %
          (pairs, len(switches), len(hosts), len(errors)))
    return 1 if errors or pairs != len(hosts) * (len(hosts) - 1) else 0


if __name__ == "__main__":
    sys.exit(main())
