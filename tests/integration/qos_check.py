#!/usr/bin/env python3
"""Reads every linked port's QoS state back with the real tools
(ibnetdiscover -p, smpquery portinfo / sl2vl / vlarb) and checks it
against a QoS policy given on the command line, computed here from the
rules of docs/design.md section 5.2 and the IBA encodings, not from
ibsmd's code:

  - OperationalVLs = the least of both ends' VLCap and --max-vls;
  - a port running n data VLs (1, 2, 4, 8 or 15) holds the --low and
    --high VLArb entries cut to its VLArbLowCap/HighCap, each VL v as
    v mod n;
  - its SL2VL table (a switch: every row "in I, out O" for I = 0 or a
    linked port, O this port) maps SL s to --sl2vl[s] mod n, or, when
    that VL has no weight in the port's cut tables, to the lowest VL
    that has one;
  - VLHighLimit = --high-limit, when given (ibsim 0.10 does not store
    VLHighLimit from a PortInfo Set, so under ibsim it is not checked).

--sa also asks the SA (saquery SL2VL LID//OUT, VLAR LID/PORT) and checks
that its SLtoVLMappingTableRecords and VLArbitrationTableRecords say
what the ports hold (each query fits one MAD: ibsim has no RMPP).
--dump FILE writes what was read (JSON) for side-by-side comparison;
--no-expect only reads and dumps.  Runs smpquery with LD_PRELOAD from
$SIM_PRELOAD (libumad2sim).  Exit 1 on any mismatch."""
import argparse
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

VLCAP = {"VL0": 1, "VL0-1": 2, "VL0-3": 3, "VL0-7": 4, "VL0-14": 5}
NVLS = {1: 1, 2: 2, 3: 4, 4: 8, 5: 15}
MAXVLS_CODE = {1: 1, 2: 2, 4: 3, 8: 4, 15: 5}


def run(*args):
    env = dict(os.environ)
    if os.environ.get("SIM_PRELOAD"):
        env["LD_PRELOAD"] = os.environ["SIM_PRELOAD"]
    r = subprocess.run(args, capture_output=True, text=True, env=env)
    if r.returncode:
        sys.exit("FAIL: %s: %s" % (" ".join(args), r.stderr.strip()[-300:]))
    return r.stdout


LINK = re.compile(r"^(SW|CA)\s+(\d+)\s+(\d+)\s+(0x[0-9a-f]+)\s+\S+\s+\S+\s+-\s+"
                  r"(SW|CA)\s+(\d+)\s+(\d+)\s+(0x[0-9a-f]+)")


def topology():
    """{(type, lid, port, guid): (peer lid, peer port)} for linked ports."""
    ports = {}
    for line in run("ibnetdiscover", "-p").splitlines():
        m = LINK.match(line.strip())
        if not m:
            continue
        t, lid, port, guid, pt, plid, pport, pguid = m.groups()
        ports[(t, int(lid), int(port), guid)] = (int(plid), int(pport))
        ports[(pt, int(plid), int(pport), pguid)] = (int(lid), int(port))
    return ports


def field(text, name):
    m = re.search(r"^%s:\.+(.*)$" % name, text, re.M)
    if not m:
        sys.exit("FAIL: no %s in smpquery portinfo output" % name)
    return m.group(1).strip()


def portinfo(lid, port):
    t = run("smpquery", "portinfo", str(lid), str(port))
    return {
        "vl_cap": VLCAP[field(t, "VLCap")],
        "op_vls": VLCAP.get(field(t, "OperVLs"), 0),
        "high_cap": int(field(t, "VLArbHighCap")),
        "low_cap": int(field(t, "VLArbLowCap")),
        "high_limit": int(field(t, "VLHighLimit")),
        "cap_mask": int(field(t, "CapMask"), 16),
    }


def sl2vl(lid, port):
    """{in port: [16 VLs]} as smpquery sl2vl prints them."""
    rows = {}
    for line in run("smpquery", "sl2vl", str(lid), str(port)).splitlines():
        m = re.match(r"ports: in\s+(\d+), out\s+(\d+):\s*\|(.*)\|", line)
        if m:
            rows[int(m.group(1))] = [int(v) for v in m.group(3).split("|")]
    return rows


def vlarb(lid, port):
    """{"low": [(vl, weight)...], "high": [...]} as smpquery prints them."""
    tabs, cur, vls = {"low": [], "high": []}, None, []
    for line in run("smpquery", "vlarb", str(lid), str(port)).splitlines():
        if "Low priority" in line:
            cur = "low"
        elif "High priority" in line:
            cur = "high"
        elif cur and line.startswith("VL"):
            vls = [int(v, 16) for v in line.split("|")[1:-1]]
        elif cur and line.startswith("WEIGHT"):
            ws = [int(v, 16) for v in line.split("|")[1:-1]]
            tabs[cur] += list(zip(vls, ws))
    return tabs


def sa_sl2vl(lid, port, sw):
    """{in port: [16 VLs]} from the SA's SLtoVLMappingTableRecords."""
    rows, cur = {}, None
    q = "%d//%d" % (lid, port) if sw else "%d" % lid
    for line in run("saquery", "SL2VL", q).splitlines():
        m = re.match(r"\s*InPort\.+(\d+)", line)
        if m:
            cur = int(m.group(1))
        m = re.match(r"\s*VL:(.*)\|", line)
        if m and cur is not None:
            rows[cur] = [int(v) for v in m.group(1).split("|")]
    return rows


def sa_vlarb(lid, port):
    """{block: [(vl, weight)...]} from the SA's VLArbitrationTableRecords."""
    blocks, cur, vls = {}, None, []
    for line in run("saquery", "VLAR", "%d/%d" % (lid, port)).splitlines():
        m = re.match(r"\s*Block\.+(\d+)", line)
        if m:
            cur = int(m.group(1))
            blocks[cur] = []
        elif re.match(r"\s*VL\s*:", line):
            vls = [int(v) for v in line.split(":", 1)[1].split("|")[:-1]]
        elif re.match(r"\s*Weight:", line) and cur is not None:
            ws = [int(v) for v in line.split(":", 1)[1].split("|")[:-1]]
            blocks[cur] += list(zip(vls, ws))
    return blocks


def check_sa(t, lid, port, rows, arb, ins):
    """What the SA says against what the port holds; a list of errors."""
    errs, where = [], "%s lid %d port %d" % (t, lid, port)
    sa_rows = sa_sl2vl(lid, port, t == "SW")
    for i in ins:
        if t == "SW" and i == port:
            continue  # the SA leaves an input port to itself out
        if sa_rows.get(i if t == "SW" else 0) != rows.get(i):
            errs.append("%s: SA SL2VL in %d is %s, the port holds %s" %
                        (where, i, sa_rows.get(i), rows.get(i)))
    sa_arb = sa_vlarb(lid, port)
    for block, tab in ((1, arb["low"]), (3, arb["high"])):
        got = sa_arb.get(block, [])[:len(tab)]
        if got != tab:
            errs.append("%s: SA VLArb block %d is %s, the port holds %s" %
                        (where, block, got, tab))
    return errs


def arb_list(text):
    out = []
    for item in text.split(","):
        vl, w = item.split(":")
        out.append((int(vl, 0), int(w, 0)))
    return out


def want_tables(pol, n, low_cap, high_cap):
    low = [(vl % n, w) for vl, w in pol["low"][:min(low_cap, 64)]]
    low += [(0, 0)] * (min(low_cap, 64) - len(low))
    high = [(vl % n, w) for vl, w in pol["high"][:min(high_cap, 64)]]
    high += [(0, 0)] * (min(high_cap, 64) - len(high))
    served = {vl for vl, w in low + high if w}
    if not served and (low or high):
        (low if low else high)[0] = (0, 1)
        served = {0}
    sl2vl = []
    for vl in pol["sl2vl"]:
        vl %= n
        if served and vl not in served:
            vl = min(served)
        sl2vl.append(vl)
    return sl2vl, low, high


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sl2vl", default="0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7")
    ap.add_argument("--high", default="0:4,1:0,2:0,3:0,4:0,5:0,6:0,7:0,8:0,"
                    "9:0,10:0,11:0,12:0,13:0,14:0")
    ap.add_argument("--low", default="0:0,1:4,2:4,3:4,4:4,5:4,6:4,7:4,8:4,"
                    "9:4,10:4,11:4,12:4,13:4,14:4")
    ap.add_argument("--max-vls", type=int, default=15)
    ap.add_argument("--high-limit", type=int)
    ap.add_argument("--no-expect", action="store_true")
    ap.add_argument("--sa", action="store_true")
    ap.add_argument("--dump")
    a = ap.parse_args()
    pol = {"sl2vl": [int(v, 0) for v in a.sl2vl.split(",")],
           "low": arb_list(a.low), "high": arb_list(a.high)}
    ports = topology()
    if not ports:
        sys.exit("FAIL: ibnetdiscover -p shows no links")
    # three clients at a time: ibsim serves at most 10, the SM's included
    with ThreadPoolExecutor(3) as ex:
        keys = sorted(ports)
        infos = dict(zip([(k[1], k[2]) for k in keys],
                         ex.map(lambda k: portinfo(k[1], k[2]), keys)))
        tabs = dict(zip(keys, ex.map(lambda k: (sl2vl(k[1], k[2]),
                                                vlarb(k[1], k[2])), keys)))
    linked = {}
    for (t, lid, port, guid) in ports:
        linked.setdefault(lid, set()).add(port)
    errors, dump, nsl, narb = [], {}, 0, 0
    for (t, lid, port, guid), (plid, pport) in sorted(ports.items()):
        pi, peer = infos[(lid, port)], infos[(plid, pport)]
        rows, arb = tabs[(t, lid, port, guid)]
        key = "%s:%d" % (guid, port)
        ins = [0] + sorted(linked[lid]) if t == "SW" else [0]
        dump[key] = {"op_vls": pi["op_vls"], "high_limit": pi["high_limit"],
                     "sl2vl": {str(i): r for i, r in rows.items()},
                     "linked_in": [str(i) for i in ins], "vlarb": arb}
        if a.sa:
            errors += check_sa(t, lid, port, rows, arb, ins)
        if a.no_expect:
            continue
        where = "%s %s port %d (lid %d)" % (t, guid, port, lid)
        op = min(pi["vl_cap"], peer["vl_cap"], MAXVLS_CODE[a.max_vls])
        if pi["op_vls"] != op:
            errors.append("%s: OperVLs code %d, want %d" % (where, pi["op_vls"], op))
        if a.high_limit is not None and pi["high_limit"] != a.high_limit:
            errors.append("%s: VLHighLimit %d, want %d" % (where, pi["high_limit"], a.high_limit))
        sl, low, high = want_tables(pol, NVLS[op], pi["low_cap"], pi["high_cap"])
        for i in ins:
            nsl += 1
            if rows.get(i) != sl:
                errors.append("%s: SL2VL in %d is %s, want %s" % (where, i, rows.get(i), sl))
        narb += 1
        if arb["low"] != low or arb["high"] != high:
            errors.append("%s: VLArb low %s high %s, want low %s high %s" %
                          (where, arb["low"], arb["high"], low, high))
    if a.dump:
        with open(a.dump, "w") as f:
            json.dump(dump, f, indent=1, sort_keys=True)
    for e in errors[:20]:
        print("MISMATCH " + e)
    if errors:
        sys.exit("FAIL: %d mismatches over %d ports" % (len(errors), len(ports)))
    print("%d ports: OperVLs,%s %d SL2VL tables and %d VLArb table pairs "
          "as configured%s" % (len(ports), " VLHighLimit," if a.high_limit
                               is not None else "", nsl, narb,
                               "; the SA's records agree" if a.sa else ""))


if __name__ == "__main__":
    main()
