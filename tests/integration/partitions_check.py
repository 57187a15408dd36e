#!/usr/bin/env python3
"""Reads P_Key tables and PathRecords back under ibsim with the real tools
and checks them against the membership written out here by hand, not
computed by ibsmd's code (tests/integration/partitions_ibsim.sh sets the
configuration this mirrors).

usage:
  partitions_check.py read NETDISCOVER_P OUT.json
      every end port's table (smpquery pkeys LID), switch port 0's, and
      those of switch ports facing a host (smpquery pkeys SWLID PORT)
  partitions_check.py expect TABLES.json STAGE
      the tables hold exactly the stage's entries (as sets), the default
      partition at index 0; switch-to-switch ports untouched (0xffff);
      STAGE 1 or 2 (partitions_ibsim.sh) or rules (any fabric of H1..Hn)
  partitions_check.py pairs NETDISCOVER_P STAGE
      every host asks saquery for a PathRecord from itself to every end
      port: a record iff they share a partition (one of them full), with
      the lowest shared P_Key and the source's membership bit
  partitions_check.py blocks A.json B.json
      prints how many 32-entry blocks differ between two reads
  partitions_check.py same A.json B.json
      the same entries per port (as sets), e.g. ibsmd's against OpenSM's

The commands run attached to ibsim: UMAD2SIM names libumad2sim.so, and
SIM_HOST picks the node a command runs at.
"""
import json
import os
import re
import subprocess
import sys

FULL = 0x8000
# The configuration of partitions_ibsim.sh, by hand.  Stage 1: default
# (H1, the SM's node, full; everyone else limited), green 0x10 (H2, H3 full,
# H4 limited), blue 0x11 (H5, H6 and every switch full, H7 limited).
# Stage 2, after the SIGHUP: H4 out of green, H8 a full member of blue.
STAGES = {
    "1": {
        "H1": {0xFFFF},
        "H2": {0x7FFF, 0x8010}, "H3": {0x7FFF, 0x8010},
        "H4": {0x7FFF, 0x0010},
        "H5": {0x7FFF, 0x8011}, "H6": {0x7FFF, 0x8011},
        "H7": {0x7FFF, 0x0011},
        "H8": {0x7FFF},
        "switch": {0x7FFF, 0x8011},
    },
}
STAGES["2"] = dict(STAGES["1"], H4={0x7FFF}, H8={0x7FFF, 0x8011})


def rules(name):
    """Stage "rules" (partitions_fabrics.sh, any fabric of H1..Hn): every
    port full in the default partition; storage 0x2: switches, H1 and H2
    full, every other host limited; gpu 0x3: H3, H4 and H5 full."""
    if name == "switch" or name in ("H1", "H2"):
        return {0xFFFF, 0x8002}
    if name in ("H3", "H4", "H5"):
        return {0xFFFF, 0x0002, 0x8003}
    return {0xFFFF, 0x0002}


def members(stage, name):
    return rules(name) if stage == "rules" else STAGES[stage][name]

LINE = re.compile(
    r"^(SW|CA|RT)\s+(\d+)\s+(\d+)\s+(0x[0-9a-f]+)\s+\S+\s+\S+\s+-\s+"
    r"(SW|CA|RT)\s+(\d+)\s+(\d+)\s+(0x[0-9a-f]+)\s+\(\s*'([^']*)'\s+-\s+"
    r"'([^']*)'\s*\)")


def topology(path):
    """ports: (guid, port) -> dict(type, lid, name, peer=(guid, port))"""
    ports = {}
    for line in open(path):
        m = LINE.match(line.strip())
        if not m:
            continue
        t1, l1, p1, g1, t2, l2, p2, g2, n1, n2 = m.groups()
        ports[(g1, int(p1))] = dict(type=t1, lid=int(l1), name=n1,
                                    peer=(g2, int(p2)))
        ports[(g2, int(p2))] = dict(type=t2, lid=int(l2), name=n2,
                                    peer=(g1, int(p1)))
    return ports


def run(args, host="H1"):
    env = dict(os.environ, SIM_HOST=host, LD_PRELOAD=os.environ["UMAD2SIM"])
    r = subprocess.run(args, env=env, capture_output=True, text=True,
                       timeout=60)
    return r.returncode, r.stdout


def pkeys(lid, port=None):
    args = ["smpquery", "pkeys", str(lid)] + ([str(port)] if port is not None
                                              else [])
    rc, out = run(args)
    if rc:
        sys.exit("FAIL: %s exited %d" % (" ".join(args), rc))
    table = []
    for line in out.splitlines():
        m = re.match(r"^\s*(\d+):((?:\s+0x[0-9a-f]{4})+)\s*$", line)
        if m:
            at = int(m.group(1))
            vals = [int(v, 16) for v in m.group(2).split()]
            table[at:at + len(vals)] = vals
    return table


def cmd_read(netp, out):
    ports = topology(netp)
    tables, switches = {}, {}
    for (g, p), d in ports.items():
        if d["type"] == "SW":
            switches[g] = (d["lid"], d["name"])
    for (g, p), d in sorted(ports.items()):
        if d["type"] == "CA":
            tables["%s:%d" % (g, p)] = dict(name=d["name"], kind="host",
                                            t=pkeys(d["lid"]))
    for g, (lid, name) in sorted(switches.items()):
        tables["%s:0" % g] = dict(name=name, kind="switch", t=pkeys(lid, 0))
        for (pg, pp), d in sorted(ports.items()):
            if pg != g:
                continue
            peer = ports[d["peer"]]
            kind = "facing " + peer["name"] if peer["type"] == "CA" \
                else "inter-switch"
            tables["%s:%d" % (g, pp)] = dict(name=name, kind=kind,
                                             t=pkeys(lid, pp))
    json.dump(tables, open(out, "w"), indent=1, sort_keys=True)
    print("read %d P_Key tables" % len(tables))


def want_of(stage, entry):
    kind = entry["kind"]
    if kind == "host":
        return members(stage, entry["name"])
    if kind == "switch":
        return members(stage, "switch")
    if kind.startswith("facing "):
        return members(stage, kind[7:])
    return {0xFFFF}  # inter-switch: never written, ibsim's default


def cmd_expect(path, stage):
    tables, bad = json.load(open(path)), 0
    for key, e in sorted(tables.items()):
        got = {v for v in e["t"] if v & 0x7FFF}
        want = want_of(stage, e)
        if got != want or (e["t"][0] & 0x7FFF) != 0x7FFF:
            bad += 1
            print("FAIL: %s (%s, %s): %s, want %s" % (
                key, e["name"], e["kind"], sorted(hex(v) for v in got),
                sorted(hex(v) for v in want)))
    if bad:
        sys.exit(1)
    print("stage %s: %d P_Key tables as configured" % (stage, len(tables)))


def shared(a, b, same_port):
    """The source's entry of the lowest partition a and b share, or 0."""
    for base in sorted({v & 0x7FFF for v in a} & {v & 0x7FFF for v in b}):
        x = next(v for v in a if v & 0x7FFF == base)
        y = next(v for v in b if v & 0x7FFF == base)
        if (x | y) & FULL:
            return x
    return 0


def cmd_pairs(netp, stage):
    ports = topology(netp)
    ends = {}  # lid -> (name, entries)
    for (g, p), d in ports.items():
        if d["type"] == "CA":
            ends[d["lid"]] = (d["name"], members(stage, d["name"]))
        elif d["type"] == "SW":
            ends[d["lid"]] = (d["name"], members(stage, "switch"))
    answered = refused = 0
    hosts = sorted((l, n) for l, (n, _) in ends.items() if n.startswith("H"))
    for slid, sname in hosts:
        for dlid in sorted(ends):
            dname, dk = ends[dlid]
            want = shared(ends[slid][1], dk, slid == dlid)
            rc, out = run(["saquery", "PR", "--slid", str(slid), "--dlid",
                           str(dlid)], host=sname)
            got = re.findall(r"pkey\.+0x([0-9A-Fa-f]+)", out)
            if want and (rc or len(got) != 1 or int(got[0], 16) != want):
                sys.exit("FAIL: %s asks %s -> %s: want P_Key 0x%04x, got "
                         "%s (rc %d)" % (sname, sname, dname, want, got, rc))
            if not want and got:
                sys.exit("FAIL: %s asks %s -> %s: they share no partition, "
                         "yet the SA answers P_Key %s" % (
                             sname, sname, dname, got))
            answered += bool(want)
            refused += not want
    if not answered or not refused:
        sys.exit("FAIL: the fabric tests only one side (%d answered, %d "
                 "refused)" % (answered, refused))
    print("stage %s: %d pairs answered with the shared P_Key, %d pairs "
          "without a shared partition got no record" % (stage, answered,
                                                        refused))


def cmd_blocks(a, b):
    ta, tb = json.load(open(a)), json.load(open(b))
    n = 0
    for key in ta:
        x, y = ta[key]["t"], tb[key]["t"]
        for i in range(0, max(len(x), len(y)), 32):
            n += x[i:i + 32] != y[i:i + 32]
    print(n)


def cmd_same(a, b):
    ta, tb = json.load(open(a)), json.load(open(b))
    bad = 0
    for key in sorted(ta):
        x = {v for v in ta[key]["t"] if v & 0x7FFF}
        y = {v for v in tb.get(key, {"t": []})["t"] if v & 0x7FFF}
        if x != y:
            bad += 1
            print("DIFF: %s (%s, %s): %s against %s" % (
                key, ta[key]["name"], ta[key]["kind"],
                sorted(hex(v) for v in x), sorted(hex(v) for v in y)))
    if bad:
        sys.exit(1)
    print("%d ports hold the same P_Keys" % len(ta))


if __name__ == "__main__":
    cmds = {"read": cmd_read, "expect": cmd_expect, "pairs": cmd_pairs,
            "blocks": cmd_blocks, "same": cmd_same}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        sys.exit(__doc__)
    cmds[sys.argv[1]](*sys.argv[2:])
