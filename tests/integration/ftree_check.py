#!/usr/bin/env python3
"""Link loads of unicast tables read back from the switches.

Independent of ibsmd's code: the topology comes from `ibnetdiscover -p`,
the tables from `ibroute <lid>` (parsed by bringup_walk.py).  Hosts are
taken in cabling order: host ports sorted by the node GUID of the switch
they are cabled to, then by that switch's port.  A load is the number of
flows crossing one directed switch-to-switch link.

  * all pairs: every host sends to every other host (base LIDs);
  * shifts: for s = 1 .. N-1, host i sends to host i + s (mod N); per
    shift the busiest link; the mean and worst over all shifts, and how
    many shifts are congestion-free (no link carries two flows);
  * with --lmc L: the same for each LID offset 0 .. 2^L - 1 (the flows
    address base + offset), and at every switch, for every host not on
    it, how many different ports the 2^L LIDs leave by, against the
    min-hop ports that switch has towards the host: they must differ
    wherever there are that many (--lmc-distinct); every offset's
    all-pairs busiest link must be the base LIDs' (--lmc-balanced);
    --expect-congestion-free then holds for every offset.
Every flow must be delivered without loop; an error otherwise.

usage: ftree_check.py NETDISCOVER_P IBROUTE_DIR [--lmc L] [--json OUT]
         [--order FTREE_CA_ORDER_DUMP] [--expect-congestion-free]
         [--lmc-distinct] [--lmc-balanced] [--no-worse-than OTHER_JSON]
Prints one line of figures; exit 1 on an error or a failed expectation.
"""
import collections
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bringup_walk import bfs, read_lfts, read_topology  # noqa: E402


class Fabric:
    def __init__(self, netdisc, lftdir):
        self.link, self.ntype, self.lid = read_topology(netdisc)
        self.switches = {g for g, t in self.ntype.items() if t == "SW"}
        self.lft = read_lfts(lftdir, {g: self.lid[(g, 0)]
                                      for g in self.switches})
        self.adj = collections.defaultdict(set)
        for (g, p), (pg, pp) in self.link.items():
            if g in self.switches and pg in self.switches:
                self.adj[g].add(pg)
        # hosts in cabling order: (switch GUID, switch port) of the cable
        hosts = []
        for (g, p), (pg, pp) in self.link.items():
            if g in self.switches and pg not in self.switches:
                hosts.append((int(g, 16), p, g, (pg, pp)))
        hosts.sort()
        self.hosts = [(g, h) for _, _, g, h in hosts]  # (leaf, host port)
        self.memo = {}
        self.errors = []

    def path(self, sw, dlid, dst):
        """Directed switch links from switch sw to host port dst."""
        key = (sw, dlid)
        if key in self.memo:
            return self.memo[key]
        links, cur, seen = [], sw, set()
        while True:
            if cur in seen:
                self.errors.append("loop towards LID %d from %s" % (dlid, sw))
                links = None
                break
            seen.add(cur)
            out = self.lft.get(cur, {}).get(dlid)
            nxt = self.link.get((cur, out)) if out not in (None, 255) else None
            if nxt is None:
                self.errors.append("LID %d dropped at %s" % (dlid, cur))
                links = None
                break
            if nxt == dst:
                break
            if nxt[0] not in self.switches:
                self.errors.append("LID %d to wrong port at %s" % (dlid, cur))
                links = None
                break
            links.append((cur, out))
            cur = nxt[0]
        self.memo[key] = links
        return links

    def all_pairs(self, off):
        load = collections.Counter()
        nsrc = collections.Counter(leaf for leaf, _ in self.hosts)
        for _, dst in self.hosts:
            dlid = self.lid[dst] + off
            for sw, n in nsrc.items():
                for ln in self.path(sw, dlid, dst) or ():
                    load[ln] += n
        return max(load.values()) if load else 0

    def shifts(self, off):
        n, worst, total, free = len(self.hosts), 0, 0, 0
        for s in range(1, n):
            load = collections.Counter()
            for i, (leaf, _) in enumerate(self.hosts):
                dst = self.hosts[(i + s) % n][1]
                for ln in self.path(leaf, self.lid[dst] + off, dst) or ():
                    load[ln] += 1
            top = max(load.values()) if load else 0
            worst, total = max(worst, top), total + top
            free += top <= 1
        return {"mean": total / max(n - 1, 1), "worst": worst,
                "congestion_free": free, "shifts": n - 1}

    def lmc_distinct(self, lmc):
        """(cases, cases where the LIDs leave by too few ports)."""
        dist = {s: bfs(self.adj, s) for s in self.switches}
        ports_to = collections.defaultdict(list)
        for (g, p), (pg, _) in self.link.items():
            if g in self.switches and pg in self.switches:
                ports_to[g].append((p, pg))
        cases = short = 0
        for x in self.switches:
            for leaf, h in self.hosts:
                if leaf == x:
                    continue
                d = dist[x].get(leaf)
                mh = len([p for p, y in ports_to[x]
                          if dist[y].get(leaf) == d - 1])
                used = {self.lft.get(x, {}).get(self.lid[h] + o)
                        for o in range(1 << lmc)}
                cases += 1
                short += len(used) < min(1 << lmc, mh)
        return cases, short


def check_order(fab, path):
    want = [fab.lid[h] for _, h in fab.hosts]
    got = [int(line.split()[0], 16) for line in open(path) if line.strip()]
    if got != want:
        fab.errors.append("%s does not list the hosts in cabling order "
                          "(%d lines, %d hosts)" % (path, len(got), len(want)))


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        print(__doc__)
        return 2
    opt = lambda k: args[args.index(k) + 1] if k in args else None  # noqa
    lmc = int(opt("--lmc") or 0)
    fab = Fabric(args[0], args[1])
    res = {"hosts": len(fab.hosts), "offsets": []}
    for off in range(1 << lmc):
        r = fab.shifts(off)
        r["all_pairs"] = fab.all_pairs(off)
        res["offsets"].append(r)
    if lmc:
        res["lmc_cases"], res["lmc_short"] = fab.lmc_distinct(lmc)
    if opt("--order"):
        check_order(fab, opt("--order"))
    fails = []
    for o, r in enumerate(res["offsets"]):
        if "--expect-congestion-free" in args and \
                r["congestion_free"] != r["shifts"]:
            fails.append("LID offset %d: %d of %d shifts congested" %
                         (o, r["shifts"] - r["congestion_free"], r["shifts"]))
        if "--lmc-balanced" in args and \
                r["all_pairs"] > res["offsets"][0]["all_pairs"]:
            fails.append("LID offset %d: all pairs %d, base LIDs %d" %
                         (o, r["all_pairs"], res["offsets"][0]["all_pairs"]))
    if "--lmc-distinct" in args and res.get("lmc_short"):
        fails.append("%d of %d (switch, host) cases send the LIDs of one "
                     "port out of fewer ports than there are" %
                     (res["lmc_short"], res["lmc_cases"]))
    if opt("--no-worse-than"):
        other = json.load(open(opt("--no-worse-than")))
        for o, (a, b) in enumerate(zip(res["offsets"], other["offsets"])):
            if a["mean"] > b["mean"] + 1e-9 or a["all_pairs"] > b["all_pairs"]:
                fails.append("LID offset %d: shifts mean %.3f, all pairs "
                              "%d against %.3f, %d" % (o, a["mean"],
                                                       a["all_pairs"],
                                                       b["mean"],
                                                       b["all_pairs"]))
    if opt("--json"):
        json.dump(res, open(opt("--json"), "w"))
    line = " ".join("off%d: shifts mean %.2f worst %d free %d/%d, all pairs %d"
                    % (o, r["mean"], r["worst"], r["congestion_free"],
                       r["shifts"], r["all_pairs"])
                    for o, r in enumerate(res["offsets"]))
    if lmc:
        line += "; LMC ports short in %d of %d" % (res["lmc_short"],
                                                  res["lmc_cases"])
    for e in fab.errors[:10] + fails:
        print("ERROR:", e)
    print("%d hosts; %s; %d errors" % (len(fab.hosts), line,
                                       len(fab.errors) + len(fails)))
    return 1 if fab.errors or fails else 0


if __name__ == "__main__":
    sys.exit(main())
