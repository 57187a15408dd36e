#!/usr/bin/env python3
"""Deadlock freedom over virtual lanes, from what the fabric says.

usage: vl_check.py live DIR [options]    tables read back under ibsim
       vl_check.py dump DIR [options]    ibsmroute's dump files
options: --expect-acyclic | --expect-cycle, --json FILE, --lmc N

live DIR: netdisc (ibnetdiscover -p), lft/<LID> (ibroute of each switch),
paths (tests/sim/sa_paths: "SLID DLID SL" per CA pair, the SL each
PathRecord answered), sl2vl/<LID>-<OUT> (smpquery sl2vl LID OUT: the
switch's SL2VL table of every input port to output port OUT).
dump DIR: subnet.lst, lfts.dump and path-sl.dump (the SL from each source
switch to each LID) as ibsmroute writes them; the SL2VL tables are then
VL = SL, which is what the layered engine's SLs are to be programmed as.
Without path-sl.dump (an engine that gives no SLs) every pair is on SL0.

Nothing of ibsmd's code is used.  For every ordered pair of CA ports the
packet is walked through the LFTs: it must arrive without loop or drop
and carry an SL.  On each switch-to-switch link it crosses it holds a
buffer of (link, VL), VL from that switch's SL2VL table for the port it
came in by and the port it leaves by; it waits for the next (link, VL)
on its way.  A deadlock needs a cycle of such waits, so the check is
that this graph has none (Kahn); a cycle is named by its links and VLs.
Also counted: the CA-to-CA routes over the busiest directed switch link,
hops from CA to CA (max, average), the SLs and VLs used, and for the
shift permutations (CA ports in LID order, port i sending to port i + k
for every k) the busiest link of each: the worst and the mean over k.
With --lmc N every LID of a destination's range (base + 0 .. 2^N - 1) is
walked from every source with the SL answered for it (live: paths must
hold those pairs).
Exit 0 when every pair is delivered with an SL and the expectation on
cycles holds, 1 otherwise."""
import collections
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bringup_walk import read_lfts, read_topology  # noqa: E402


class Fabric:
    """Links, node types, LIDs, LFTs, SLs and SL2VL tables, GUIDs as
    '0x' + 16 hex digits."""

    def __init__(self):
        self.link = {}   # (guid, port) -> (guid, port)
        self.ntype = {}  # guid -> "SW" | "CA"
        self.lid = {}    # (guid, port; 0 for a switch) -> LID
        self.lft = {}    # switch guid -> {lid: port}
        self.sl = None   # (src guid, src port, dlid) -> SL or None
        self.sl2vl = None  # (switch, in, out) -> [16 VLs] or None

    def vl(self, sw, inp, out, sl):
        if self.sl2vl is None:
            return sl
        t = self.sl2vl.get((sw, inp, out))
        return None if t is None else t[sl]


def gid(x):
    return "0x%016x" % int(x, 16)


# ---- live: the tools' outputs ----

def read_paths(path):
    sl = {}
    for line in open(path):
        f = line.split()
        if len(f) >= 3:
            sl[(int(f[0]), int(f[1]))] = None if f[2] == "-" else int(f[2])
    return sl


SL2VL_ROW = re.compile(r"ports: in\s+(\d+), out\s+(\d+):\s*\|(.*)\|")


def read_sl2vl(dirname, guid_of_lid):
    t = {}
    for name in os.listdir(dirname):
        sw = guid_of_lid[int(name.split("-")[0])]
        for line in open(os.path.join(dirname, name)):
            m = SL2VL_ROW.search(line)
            if m:
                vls = [int(v) for v in m.group(3).split("|")]
                t[(sw, int(m.group(1)), int(m.group(2)))] = vls
    return t


def load_live(d):
    fab = Fabric()
    link, ntype, lid = read_topology(d + "/netdisc")
    fab.link = {(gid(g), p): (gid(pg), pp) for (g, p), (pg, pp) in link.items()}
    fab.ntype = {gid(g): t for g, t in ntype.items()}
    fab.lid = {(gid(g), p): l for (g, p), l in lid.items()}
    sws = [g for g, t in ntype.items() if t == "SW"]
    lft = read_lfts(d + "/lft", {g: lid[(g, 0)] for g in sws})
    fab.lft = {gid(g): t for g, t in lft.items()}
    paths = read_paths(d + "/paths")
    fab.sl = lambda g, p, dl: paths.get((fab.lid[(g, p)], dl))
    guid_of_lid = {l: g for (g, p), l in fab.lid.items() if p == 0}
    fab.sl2vl = read_sl2vl(d + "/sl2vl", guid_of_lid)
    return fab


# ---- dump: ibsmroute's files ----

END = re.compile(r"\{ (CA|SW)\S* Ports:\w+ SystemGUID:\w+ NodeGUID:(\w+) "
                 r"PortGUID:\w+ .*?LID:(\w+) PN:(\w+) \}")


def load_dump(d):
    fab = Fabric()
    for line in open(d + "/subnet.lst"):
        ends = END.findall(line)
        if len(ends) != 2:
            continue
        (ta, na, la, pa), (tb, nb, lb, pb) = ends
        a, b = (gid(na), int(pa, 16)), (gid(nb), int(pb, 16))
        fab.link[a] = b
        fab.link[b] = a
        for t, n, l, p in ends:
            fab.ntype[gid(n)] = t
            fab.lid[(gid(n), 0 if t == "SW" else int(p, 16))] = int(l, 16)
    cur = None
    for line in open(d + "/lfts.dump"):
        m = re.match(r"Unicast lids .* guid (0x[0-9a-fA-F]+)", line)
        if m:
            cur = fab.lft.setdefault(gid(m.group(1)), {})
            continue
        m = re.match(r"0x([0-9a-fA-F]+) (\d+)", line)
        if m and cur is not None:
            cur[int(m.group(1), 16)] = int(m.group(2))
    cols, sls = None, {}
    if not os.path.exists(d + "/path-sl.dump"):
        fab.sl = lambda g, p, dl: 0
        return fab
    for line in open(d + "/path-sl.dump"):
        f = line.split()
        if not f or f[0].startswith("#"):
            continue
        if f[0] == "switches":
            cols = [gid(g) for g in f[1:]]
            continue
        dl = int(f[0], 16)
        for g, v in zip(cols, f[1:]):
            sls[(g, dl)] = None if v == "-" else int(v)
    # a CA port's paths carry its switch's SL
    fab.sl = lambda g, p, dl: sls.get((fab.link[(g, p)][0], dl))
    return fab


# ---- the walk and the graph ----

def walk(fab, src, dst, dlid):
    """Hops (switch, in port, out port) from CA port src to CA port dst,
    or None when the packet is dropped or loops."""
    sw, inp = fab.link[src]
    hops = []
    for _ in range(64):
        out = fab.lft.get(sw, {}).get(dlid)
        if out is None or out == 255:
            return None
        hops.append((sw, inp, out))
        nxt = fab.link.get((sw, out))
        if nxt is None:
            return None
        if nxt == dst:
            return hops
        if fab.ntype.get(nxt[0]) != "SW":
            return None
        sw, inp = nxt
    return None


def find_cycle(deps):
    """One cycle of the dependency graph (list of vertices), or None."""
    color, stack = {}, []
    for root in list(deps):
        if root in color:
            continue
        todo = [(root, iter(deps.get(root, ())))]
        color[root] = 1
        stack = [root]
        while todo:
            v, it = todo[-1]
            w = next(it, None)
            if w is None:
                color[v] = 2
                todo.pop()
                stack.pop()
            elif color.get(w) == 1:
                return stack[stack.index(w):] + [w]
            elif w not in color:
                color[w] = 1
                stack.append(w)
                todo.append((w, iter(deps.get(w, ()))))
    return None


def check(fab, lmc=0):
    cas = sorted((k for k in fab.lid if fab.ntype.get(k[0]) == "CA"),
                 key=lambda k: fab.lid[k])
    pos = {k: i for i, k in enumerate(cas)}
    deps = collections.defaultdict(set)
    load = collections.Counter()
    shift = collections.defaultdict(collections.Counter)
    r = {"pairs": 0, "undelivered": 0, "no_sl": 0, "no_vl": 0,
         "max_hops": 0, "sum_hops": 0, "sls": set(), "vls": set(),
         "first_error": ""}
    for src in cas:
        for dst, off in ((d, o) for d in cas for o in range(1 << lmc)):
            if src == dst:
                continue
            r["pairs"] += 1
            dlid = fab.lid[dst] + off
            hops = walk(fab, src, dst, dlid)
            sl = fab.sl(src[0], src[1], dlid)
            err = ("dropped or looping" if hops is None else
                   "no SL" if sl is None else "")
            if err:
                r["undelivered" if hops is None else "no_sl"] += 1
                r["first_error"] = r["first_error"] or \
                    "%s port %d -> LID %d: %s" % (src[0], src[1], dlid, err)
                continue
            r["sls"].add(sl)
            n = len(hops) + 1  # links CA to CA
            r["sum_hops"] += n
            r["max_hops"] = max(r["max_hops"], n)
            prev = None
            for sw, inp, out in hops:
                if fab.ntype.get(fab.link[(sw, out)][0]) != "SW":
                    break
                v = fab.vl(sw, inp, out, sl)
                if v is None:
                    r["no_vl"] += 1
                    break
                cur = (sw, out, v)
                r["vls"].add(v)
                load[(sw, out)] += 1
                shift[(pos[dst] - pos[src]) % len(cas)][(sw, out)] += 1
                if prev:
                    deps[prev].add(cur)
                prev = cur
    cyc = find_cycle(deps)
    smax = [max(c.values()) for c in shift.values()] or [0]
    delivered = r["pairs"] - r["undelivered"] - r["no_sl"]
    return {
        "pairs": r["pairs"], "undelivered": r["undelivered"],
        "no_sl": r["no_sl"], "no_vl": r["no_vl"],
        "acyclic": cyc is None,
        "cycle": [] if cyc is None else
        ["%s port %d VL %d" % c for c in cyc],
        "max_link_routes": max(load.values()) if load else 0,
        "shift_max_worst": max(smax),
        "shift_max_mean": sum(smax) / len(smax),
        "max_hops": r["max_hops"],
        "avg_hops": r["sum_hops"] / delivered if delivered else 0.0,
        "sls_used": sorted(r["sls"]), "vls_used": sorted(r["vls"]),
        "first_error": r["first_error"]}


def main():
    a = sys.argv[1:]
    if len(a) < 2 or a[0] not in ("live", "dump"):
        print(__doc__)
        return 2
    fab = load_live(a[1]) if a[0] == "live" else load_dump(a[1])
    lmc = int(a[a.index("--lmc") + 1]) if "--lmc" in a else 0
    res = check(fab, lmc)
    if "--json" in a:
        with open(a[a.index("--json") + 1], "w") as f:
            json.dump(res, f)
    print("pairs=%d undelivered=%d no_sl=%d no_vl=%d acyclic=%s "
          "max_link_routes=%d shift_worst=%d shift_mean=%.1f max_hops=%d "
          "avg_hops=%.3f sls=%s vls=%s" %
          (res["pairs"], res["undelivered"], res["no_sl"], res["no_vl"],
           "yes" if res["acyclic"] else "no", res["max_link_routes"],
           res["shift_max_worst"], res["shift_max_mean"],
           res["max_hops"], res["avg_hops"],
           ",".join(map(str, res["sls_used"])),
           ",".join(map(str, res["vls_used"]))))
    if res["cycle"]:
        print("cycle: " + " -> ".join(res["cycle"][:12]))
    if res["first_error"]:
        print("first error: " + res["first_error"])
    ok = not (res["undelivered"] or res["no_sl"] or res["no_vl"])
    if "--expect-acyclic" in a:
        ok = ok and res["acyclic"]
    if "--expect-cycle" in a:
        ok = ok and not res["acyclic"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
