#!/usr/bin/env python3
"""Turns tests/bench/mcast.sh results (one TSV row per ibsmroute run) into
docs/benchmarks.md and the gnuplot data behind docs/mcast-*.png.  Medians
over repeated runs for times; other metrics are deterministic and come
from the first run.  Standard library only."""
import json
import os
import platform
import statistics
import subprocess
import sys
import time

ENGINES = ["minhop", "minhop-rr", "sssp", "sssp-rr", "fulb", "mr4lms"]
COLS = ["topo", "pat", "eng", "mft", "rep", "groups", "colors", "trees",
        "merged", "max_efi", "avg_efi", "max_tfi", "avg_tfi", "hexcess",
        "seconds", "ms_group", "med_ms", "verified", "rss_kb", "status"]

# The papers' own figures (text only; their tables and plots were lost).
PAPER = [
    ("MR4LMS §4.3", "TaihuLight 128x32x40, 4 proc/host", "10,496 groups need 269 colors (unlimited)"),
    ("MR4LMS §4.3", "fat tree, BlueLight, TaihuLight", "most patterns need < 128 colors"),
    ("MR4LMS §4.3", "BlueLight 256x34 / 90x90", "29 / 50 colors"),
    ("MR4LMS §4.3", "torus / dragonfly / random", "up to 2,166 / 486 / 2,852 colors"),
    ("MR4LMS §4.5", "BlueLight 64x16x34 (4/host), Ncolor 128", "max EFI 24 -> 58 after merging"),
    ("MR4LMS §4.5", "random 256x160, Ncolor 256", "max EFI 20 -> 34"),
    ("MR4LMS §4.5", "TaihuLight 128x32x40 (4/host), Ncolor 128", "max EFI 37 -> 300; max TFI 66, mean TFI 1.36"),
    ("MR4LMS §4.5", "random 128x32x40 (4/host)", "max EFI 139 -> 4,687"),
    ("MR4LMS §4.5", "all 1 proc/host patterns", "max TFI <= 10 (66 with 4/host)"),
    ("MR4LMS §4.6", "fat tree, dragonfly / torus, random", "~5 ms / ~9 ms per group (48-core Xeon)"),
    ("MR4LMS §4.6", "longest runs", "40.6 s (1/host); 48.0 s unlimited, 191.5 s Ncolor (4/host)"),
    ("FULB §4.1.1", "3-level fat tree, 16,000 hosts", "FULB < 0.2 s, SSSP-MC up to 2.4 s; -new variants equal FULB's max EFI"),
    ("FULB §4.1.2", "3-D torus 30x20x20", "FULB < 2.3 s, SSSP-MC-new up to 24 s"),
    ("FULB §4.1.3", "dragonfly 81x27x12", "max EFI MINIHOP-MC-new 41, FULB 54"),
    ("FULB §4.2", "BlueLight / TaihuLight", "FULB max EFI down to 1/6 / 1/2 of MINIHOP-MC-new"),
    ("FULB §4.2.2", "TaihuLight", "FULB < 3 s, SSSP-MC-new up to 48 s (32-core Xeon)"),
]
# FULB targets: total time <= 1/4 of the paper's figure.
FULB_PAPER_S = {"ft40": 0.2, "torus": 2.3, "th40960": 3.0}


def num(v):
    try:
        return float(v)
    except ValueError:
        return None


def load(path):
    runs = {}
    with open(path) as f:
        for line in f:
            r = dict(zip(COLS, line.rstrip("\n").split("\t")))
            if len(r) != len(COLS):
                continue
            runs.setdefault((r["topo"], r["pat"], r["eng"], r["mft"]), []).append(r)
    agg = {}
    for k, rs in runs.items():
        first = dict(rs[0])
        secs = [num(r["seconds"]) for r in rs if num(r["seconds"]) is not None]
        msg = [num(r["ms_group"]) for r in rs if num(r["ms_group"]) is not None]
        med = [num(r["med_ms"]) for r in rs if num(r["med_ms"]) is not None]
        rss = [num(r["rss_kb"]) for r in rs if num(r["rss_kb"]) is not None]
        first["seconds"] = statistics.median(secs) if secs else None
        first["ms_group"] = statistics.median(msg) if msg else None
        first["med_ms"] = statistics.median(med) if med else None
        first["rss_kb"] = max(rss) if rss else None
        first["n"] = len(secs)
        first["ok"] = all(r["status"] == "ok" and r["verified"] == "true" for r in rs)
        agg[k] = first
    return agg


def fmt(v, nd=0):
    if v is None or v == "-":
        return "–"
    x = num(v) if isinstance(v, str) else v
    if x is None:
        return str(v)
    if nd == 0:
        return f"{int(round(x)):,}"
    return f"{x:,.{nd}f}"


def topo_info(work, topo):
    """switches/hosts/links from any run's JSON report."""
    runs = os.path.join(work, "runs")
    for n in sorted(os.listdir(runs)):
        if n.startswith(topo + ".") and n.endswith(".json"):
            try:
                with open(os.path.join(runs, n)) as f:
                    return json.load(f).get("topology", {})
            except (OSError, ValueError):
                continue
    return {}


def pats_of(agg, topo):
    seen = []
    for (t, p, _, _) in agg:
        if t == topo and p not in seen:
            seen.append(p)
    return seen


def cell(agg, topo, pat, eng, mft, field, nd=0):
    r = agg.get((topo, pat, eng, mft))
    if not r:
        return "n/r"
    if not r["ok"]:
        return r["status"] if r["status"] != "ok" else "unverified"
    return fmt(r[field], nd)


def section(out, agg, topo, label, rec, info, work):
    pats = pats_of(agg, topo)
    out.append(f"\n### {topo}: {label}\n")
    out.append(f"{fmt(info.get('switches'))} switches, {fmt(info.get('hosts'))} hosts, "
               f"{fmt(info.get('links'))} links; MR4LMS recommended MFT size {rec}.")
    out.append("\nColors needed with no limit (`--mft-size 0`; baselines use one color per tree, "
               "first free on all its switches, like MR4LMS's FBTC). Lower bound for any routing: "
               "the most groups with a member on one switch (all their trees hold that switch):\n")
    out.append("| pattern | groups | " + " | ".join(ENGINES) + " | lower bound |")
    out.append("|---|---:|" + "---:|" * (len(ENGINES) + 1))
    bounds = {p: leaf_bounds(work, topo, p) for p in pats}
    for p in pats:
        g = cell(agg, topo, p, "mr4lms", "0", "groups")
        b = fmt(bounds[p][0]) if bounds[p] else "–"
        out.append(f"| {p} | {g} | " + " | ".join(cell(agg, topo, p, e, "0", "colors") for e in ENGINES) + f" | {b} |")
    out.append("\nMax / mean EFI, no limit (mean over links carrying at least one group). Lower "
               "bound for any routing: for each leaf, the groups with members on it and elsewhere "
               "divided by its uplinks:\n")
    out.append("| pattern | " + " | ".join(ENGINES) + " | fulb/sssp-rr | mr4lms/sssp-rr | max EFI lower bound |")
    out.append("|---|" + "---:|" * (len(ENGINES) + 3))
    for p in pats:
        cells = [f"{cell(agg, topo, p, e, '0', 'max_efi')} / {cell(agg, topo, p, e, '0', 'avg_efi', 1)}" for e in ENGINES]
        ratios = []
        for e in ("fulb", "mr4lms"):
            a, b = agg.get((topo, p, e, "0")), agg.get((topo, p, "sssp-rr", "0"))
            if a and b and num(a["max_efi"]) and num(b["max_efi"]):
                ratios.append(f"{num(a['max_efi']) / num(b['max_efi']):.2f}")
            else:
                ratios.append("–")
        b = fmt(bounds[p][1]) if bounds[p] else "–"
        out.append(f"| {p} | " + " | ".join(cells) + " | " + " | ".join(ratios) + f" | {b} |")
    out.append(f"\nMR4LMS with MFT size {rec} (merging when colors run out) beside no limit:\n")
    out.append("| pattern | colors | merged groups | trees | max EFI (no limit) | max TFI | mean TFI | s total | median ms/group |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for p in pats:
        out.append(f"| {p} | {cell(agg, topo, p, 'mr4lms', rec, 'colors')} | "
                   f"{cell(agg, topo, p, 'mr4lms', rec, 'merged')} | {cell(agg, topo, p, 'mr4lms', rec, 'trees')} | "
                   f"{cell(agg, topo, p, 'mr4lms', rec, 'max_efi')} ({cell(agg, topo, p, 'mr4lms', '0', 'max_efi')}) | "
                   f"{cell(agg, topo, p, 'mr4lms', rec, 'max_tfi')} | {cell(agg, topo, p, 'mr4lms', rec, 'avg_tfi', 2)} | "
                   f"{cell(agg, topo, p, 'mr4lms', rec, 'seconds', 3)} | {cell(agg, topo, p, 'mr4lms', rec, 'med_ms', 3)} |")
    out.append("\nRouting time, no limit: seconds in total (median of the runs made) and, in brackets, "
               "the median ms per group ibsmroute measured; peak RSS of the whole ibsmroute process "
               "(topology, hop table, unicast routing included):\n")
    out.append("| pattern | " + " | ".join(ENGINES) + " | peak RSS MB (max) |")
    out.append("|---|" + "---:|" * (len(ENGINES) + 1))
    for p in pats:
        cells = []
        rss = 0
        for e in ENGINES:
            cells.append(f"{cell(agg, topo, p, e, '0', 'seconds', 3)} ({cell(agg, topo, p, e, '0', 'med_ms', 3)})")
            r = agg.get((topo, p, e, "0"))
            if r and r["rss_kb"]:
                rss = max(rss, r["rss_kb"])
        out.append(f"| {p} | " + " | ".join(cells) + f" | {rss / 1024:.0f} |")


def targets(out, agg, topos, infos):
    out.append("\n## Targets\n")
    out.append("| check | case | ours | target | met |")
    out.append("|---|---|---|---|---|")
    for topo, _, rec, _ in topos:
        for p in pats_of(agg, topo):
            ss = agg.get((topo, p, "sssp-rr", "0"))
            mh = agg.get((topo, p, "minhop", "0"))
            for e in ("fulb", "mr4lms"):
                r = agg.get((topo, p, e, "0"))
                if not (r and ss and mh) or num(r["max_efi"]) is None or num(ss["max_efi"]) is None:
                    continue
                v, s, m = num(r["max_efi"]), num(ss["max_efi"]), num(mh["max_efi"])
                ok = v <= 1.10 * s and v <= m
                out.append(f"| max EFI {e} ≤ 1.1 × sssp-rr and ≤ minhop | {topo} {p} | {v:.0f} (sssp-rr {s:.0f}, minhop {m:.0f}) "
                           f"| ≤ {1.1 * s:.1f}, ≤ {m:.0f} | {'yes' if ok else 'no'} |")
            if topo in FULB_PAPER_S:
                r = agg.get((topo, p, "fulb", "0"))
                if r and r["seconds"] is not None:
                    lim = FULB_PAPER_S[topo] / 4
                    est = (num(r["groups"]) or 0) * (r["med_ms"] or 0) / 1e3
                    out.append(f"| FULB total time ≤ ¼ paper | {topo} {p} | {r['seconds']:.3f} s "
                               f"(groups × median: {est:.3f} s) "
                               f"| ≤ {lim:.3f} s | {'yes' if r['seconds'] <= lim else 'no'} |")
            for m in ("0", rec):
                r = agg.get((topo, p, "mr4lms", m))
                if r and r["med_ms"] is not None:
                    out.append(f"| MR4LMS median ms/group ≤ 0.5 (MFT {m}) | {topo} {p} | {r['med_ms']:.3f} ms "
                               f"| ≤ 0.5 ms | {'yes' if r['med_ms'] <= 0.5 else 'no'} |")
    for topo, _, rec, _ in topos:
        if not topo.startswith("p3"):
            continue
        big = (num(str(infos.get(topo, {}).get("hosts", 0))) or 0) > 20000
        lim = 8 if big else 2.4
        for p in pats_of(agg, topo):
            r0, r1 = agg.get((topo, p, "mr4lms", "0")), agg.get((topo, p, "mr4lms", rec))
            if not (r0 and r1) or num(r0["max_efi"]) is None or num(r1["max_efi"]) is None:
                continue
            e0, e1 = num(r0["max_efi"]), num(r1["max_efi"])
            out.append(f"| max EFI MFT {rec} ≤ {lim} × no limit ({'TaihuLight' if big else 'BlueLight'} scale) "
                       f"| {topo} {p} | {e1:.0f} ({e0:.0f}, ×{e1 / e0:.2f}) | ≤ {lim * e0:.0f} "
                       f"| {'yes' if e1 <= lim * e0 else 'no'} |")
            t, a = num(r1["max_tfi"]), num(r1["avg_tfi"])
            out.append(f"| max TFI ≤ 66, mean TFI ≤ 1.5 (MFT {rec}) | {topo} {p} | {t:.0f}, {a:.2f} "
                       f"| ≤ 66, ≤ 1.5 | {'yes' if t <= 66 and a <= 1.5 else 'no'} |")
            if num(r1["groups"]) == 10496 and r1["seconds"] is not None:
                out.append(f"| 10,496 groups, MFT {rec}, in ≤ 5 s | {topo} {p} | {r1['seconds']:.2f} s "
                           f"| ≤ 5 s | {'yes' if r1['seconds'] <= 5 else 'no'} |")
    r0 = agg.get(("th40960", "128x32x40-ppn4", "mr4lms", "0"))
    r1 = agg.get(("th40960", "128x32x40-ppn4", "mr4lms", "128"))
    if r0:
        c = num(r0["colors"])
        out.append(f"| colors, 10,496 groups of 128x32x40 (4/host) | th40960 | {fmt(r0['colors'])} "
                   f"| ≤ 269 (paper) | {'yes' if c is not None and c <= 269 else 'no'} |")
    if r1 and r1["seconds"] is not None:
        out.append(f"| MR4LMS total, 128x32x40 (4/host), MFT 128 | th40960 | {r1['seconds']:.2f} s "
                   f"| < 10 s (paper up to 191.5 s) | {'yes' if r1['seconds'] < 10 else 'no'} |")


def parse_topo(path):
    """ibsim net file -> (host name -> its switch, switch -> uplink count)."""
    host_sw, uplinks, kind, name = {}, {}, None, None
    with open(path) as f:
        for line in f:
            t = line.split()
            if not t or t[0].startswith("#"):
                continue
            if t[0] in ("Switch", "Hca", "Rt"):
                kind, name = t[0], line.split('"')[1]
                if kind == "Switch":
                    uplinks.setdefault(name, 0)
            elif t[0].startswith("[") and name:
                peer = line.split('"')[1]
                if kind == "Hca":
                    host_sw.setdefault(name, peer)
                elif not peer.startswith("H"):
                    uplinks[name] += 1
    return host_sw, uplinks


def leaf_bounds(work, topo, pat):
    """Lower bounds any routing must meet, from the leaf switches alone:
    every tree holds the switches of its members (colors >= groups with a
    member on one switch), and a group with members on and off a leaf
    crosses that leaf's uplinks (max EFI >= ceil(such groups / uplinks))."""
    try:
        host_sw, up = parse_topo(os.path.join(work, "topo", f"{topo}.topo"))
        on, cross = {}, {}
        with open(os.path.join(work, "pat", f"{topo}.{pat}.ev")) as f:
            for line in f:
                t = line.split()
                if len(t) < 3 or t[0] != "+":
                    continue
                sws = {host_sw.get(m) for m in t[2:]}
                if None in sws:
                    return None
                for sw in sws:
                    on[sw] = on.get(sw, 0) + 1
                    if len(sws) > 1:
                        cross[sw] = cross.get(sw, 0) + 1
        colors = max(on.values()) if on else 0
        efi = max(((c + up[sw] - 1) // up[sw] for sw, c in cross.items() if up.get(sw)), default=0)
        return colors, efi
    except (OSError, KeyError, IndexError):
        return None


def notes(out, agg, topos):
    ids = [t[0] for t in topos]
    out.append("\n## Reading the results\n")
    out.append("- On the standard fat tree a leaf has one path to each top switch, so an engine is "
               "decided by its root: `minhop` = `sssp` and `minhop-rr` = `sssp-rr` = `fulb` "
               "(FULB paper §4.1.1 observes exactly this). Link rotation pays off where several "
               "equal paths exist (pruned trees with 8 paths, torus, dragonfly, random).")
    out.append("- `fulb` breaks ties between equally loaded next-hop links by the load of the link the "
               "next switch would continue on (routing/mcast/mcast_fulb.c); with plain first-port ties (as "
               "MR4LMS's FBTC builds its first tree) the TaihuLight model's 128x32x40 pattern reached "
               "max EFI 182 instead of 128. When that first tree would raise the highest EFI reached, "
               "FBTC tries up to 16 roots with FULB's rule and keeps the lowest peak "
               "(routing/mr4lms/mr4lms_fbtc.c): 128 there too, and the dragonfly's 69 down to ~19. FULB's "
               "rule on every tree would take more colors (bl8704 64x16x34-ppn4: 308, not 194).")
    out.append("- Colors for the baselines are what their trees would need with the MR4LMS color "
               "rule (a color may be shared by trees with no common switch); OpenSM itself gives "
               "every group its own MLID.")
    if "th40960" in ids:
        r = agg.get(("th40960", "128x32x40-ppn4", "mr4lms", "0"))
        got = f" (ours: {fmt(r['colors'])} colors, max EFI {fmt(r['max_efi'])})" if r else ""
        out.append("- th40960 is `ibsmgen pruned`'s model of TaihuLight: leaf switches of 32 hosts with "
                   "2 uplinks each. In 128x32x40 with 4 processes per host a leaf holds exactly the 128 "
                   "processes of one x-line, so its hosts belong to 1 local and 256 cross-leaf groups "
                   "(128 y-lines, 128 z-lines) that its 2 uplinks must carry: max EFI >= 128 for any "
                   "routing (the lower-bound column), and every switch above the leaves is shared by "
                   "many more trees than on the real machine" + got + ". The paper's 269 colors and max "
                   "EFI 37 were measured on the real TaihuLight, whose leaves (super nodes) are far "
                   "larger; this model cannot reach them, and with 128 colors it forces heavy merging.")


# MR4LMS on the 3-level pruned trees before the merge rework (main at
# 3860445, ibsmroute, measured 2026-11-25 on this machine under load ~7):
# topo -> (max EFI no limit, max EFI MFT 128, max TFI, mean TFI, seconds).
P3_BEFORE = {
    "p3bl": (72, 1050, 1033, 1.38, 0.78),
    "p3bl-b": (72, 311, 140, 1.36, 0.41),
    "p3bl-c": (68, 1037, 1029, 1.38, 0.77),
    "p3th": (128, 885, 110, 2.59, 6.89),
    "p3th-b": (256, 1659, 110, 2.59, 5.55),
    "p3th-c": (72, 8483, 8448, 5.16, 28.49),
}


def pruned3_notes(out, agg, topos):
    ids = [t[0] for t in topos if t[0].startswith("p3")]
    if not ids:
        return
    out.append("- The `p3*` fabrics are `ibsmgen pruned3` trees: pods of leaves under the pod's middle "
               "switches, the middles trunked to a top layer (M*U/T paths from a leaf to each top), so "
               "pods talk only through the tops. With 4 processes per host a leaf of 32 hosts holds 128 "
               "processes: 194 (64x16x34) or 257 (128x32x40) groups meet on it, more than 128 colors, "
               "so MR4LMS must merge.")
    out.append("- Why merging collapsed there (main at 3860445): (1) the paper's formula (1) picks the "
               "merge target by distance alone; one merge that absorbed every tree a temporary tree "
               "met made a tree over most leaves, formula (1) then found it at distance ~0 from every "
               "later group and each was attached to it as a subset (p3bl: 1,033 groups on one tree, "
               "max EFI 1,050); (2) joins took the first-found BFS path, piling branches on the first "
               "ports; (3) groups of one shape (the y-lines of a pod) arrive together and take every "
               "color of their switches, so the last shape (z-lines) can only join dozens of foreign "
               "trees, in any order of merging. Now: merges are priced by the link loads they leave "
               "(routing/mr4lms/mr4lms_merge.c, docs/design.md), joins take the least loaded shortest path, "
               "and the planner routes shapes in turn with a forecast of the trees to come, so groups "
               "of one shape share their own trees before the colors run out (mr4lms_share.c, "
               "tools/ibsmroute/mcast_plan.c, mcast_order.c). Before, at MFT 128:")
    out.append("")
    out.append("| topology | pattern | max EFI no limit | max EFI MFT 128 | ratio | max TFI | mean TFI | s |")
    out.append("|---|---|---:|---:|---:|---:|---:|---:|")
    for t in ids:
        if t in P3_BEFORE:
            e0, e1, mt, at, sec = P3_BEFORE[t]
            pat = pats_of(agg, t)[0] if pats_of(agg, t) else "–"
            out.append(f"| {t} | {pat} | {e0} | {e1:,} | ×{e1 / e0:.1f} | {mt:,} | {at:.2f} | {sec:.2f} |")
    out.append("")
    out.append("- Mean TFI: a leaf holds at most 128 trees, so when g groups meet on it its trees must "
               "carry g/128 groups on average; with the x-line trees alone on one leaf, no routing of "
               "the 128x32x40 pattern on these trees gets the mean TFI below about 1.8. The planner also "
               "shares more than that bound needs (every shape under pressure pairs up, small trees "
               "included), which is why the 64x16x34 trees are at 2 to 3 rather than the ~1.2 possible.")


def plot_data(agg, topos, work):
    """efi.dat / colors.dat / time.dat: one row per case, one column per engine."""
    rows = []
    for topo, _, _, _ in topos:
        for p in pats_of(agg, topo):
            rows.append((topo, p))
    files = {}
    for name, field, eng_list in (("efi", "max_efi", ENGINES), ("colors", "colors", ENGINES),
                                  ("time", "ms_group", ENGINES)):
        path = os.path.join(work, f"plot-{name}.dat")
        with open(path, "w") as f:
            f.write("case " + " ".join(eng_list) + "\n")
            for topo, p in rows:
                vals = []
                for e in eng_list:
                    r = agg.get((topo, p, e, "0"))
                    v = num(str(r[field])) if r and r[field] is not None else None
                    if name == "time" and v is not None and v <= 0:
                        v = 0.0001
                    vals.append("?" if v is None else f"{v:g}")
                f.write(f"\"{topo}/{p}\" " + " ".join(vals) + "\n")
        files[name] = path
    return files


def keep_other_sections(path):
    """The part of benchmarks.md after the multicast report (the other
    benchmarks' sections, each a top-level '# ' heading), kept as it is."""
    try:
        lines = open(path).read().split("\n")
    except OSError:
        return ""
    for i, line in enumerate(lines):
        if i > 0 and line.startswith("# "):
            return "\n" + "\n".join(lines[i:])
    return ""


def ncolor(out, work, docs):
    """Max EFI against Ncolor (tests/bench/mcast-ncolor.sh), if it ran."""
    path = os.path.join(work, "ncolor.tsv")
    try:
        rows = [line.rstrip("\n").split("\t") for line in open(path)]
    except OSError:
        return
    fabs = []
    for r in rows:
        if len(r) >= 8 and (r[0], r[1]) not in fabs:
            fabs.append((r[0], r[1]))
    out.append("\n## Max EFI against Ncolor (as the MR4LMS paper's Fig. 8)\n")
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(os.path.getmtime(path)))
    out.append(f"By `tests/bench/mcast-ncolor.sh` (finished {when}, same machine): MR4LMS at each "
               "MFT size (0 = no limit) as the "
               "offline planner routes (shapes in turn, with the forecast), and in file order without "
               "a forecast, as the daemon routes groups that arrive one by one. "
               "![max EFI against Ncolor](mcast-ncolor.png)\n")
    out.append("| fabric | pattern | Ncolor | planner: max EFI / max TFI / mean TFI / s | "
               "file order: max EFI / max TFI / mean TFI / s |")
    out.append("|---|---|---:|---|---|")
    by = {}
    for r in rows:
        if len(r) >= 8:
            by[(r[0], r[1], r[2], r[3])] = r
    for fab, pat in fabs:
        ns = sorted({int(r[2]) for r in rows if (r[0], r[1]) == (fab, pat)},
                    key=lambda n: (n == 0, -n))
        for n in ns:
            cells = []
            for mode in ("planner", "fileorder"):
                r = by.get((fab, pat, str(n), mode))
                cells.append(" / ".join(r[4:8]) if r else "n/r")
            out.append(f"| {fab} | {pat} | {n or 'no limit'} | {cells[0]} | {cells[1]} |")


def main():
    results, topos_tsv, docs, work = sys.argv[1:5]
    walls = []
    try:
        with open(os.path.join(work, "wall.txt")) as f:
            for line in f:
                sec, cmd = line.rstrip("\n").split("\t", 1)
                walls.append((int(sec), cmd))
    except (OSError, ValueError):
        pass
    try:
        with open(os.path.join(work, "load.txt")) as f:
            load_avg = f.read().split()
    except OSError:
        load_avg = []
    agg = load(results)
    topos = []
    with open(topos_tsv) as f:
        for line in f:
            t = line.rstrip("\n").split("\t")
            if len(t) == 4:
                topos.append(tuple(t))
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    runs = "; ".join(f"`{c}` ({s} s)" for s, c in walls) or "`tests/bench/mcast.sh`"
    out = ["# Multicast benchmarks", "",
           f"Generated by {runs} on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(os.path.getmtime(results)))}, "
           f"{os.cpu_count()} CPUs ({cpu}), {platform.system()} {platform.release()} (wall times in brackets); "
           f"1-minute load average {' -> '.join(load_avg) or '?'} (start -> end). On a shared machine "
           "total times grow with the load; the per-group medians are much less sensitive.",
           "",
           "Every number comes from the JSON report of `ibsmroute TOPO --mcast-engine E --mft-size N "
           "--groups FILE --json F` (docs/design.md §6): `seconds` is multicast routing time only (no parsing, "
           "no unicast routing, no output). Topologies by `ibsmgen`, patterns by `ibsmpattern` "
           "(see `ibsmpattern --help`): a grid `XxYxZ` makes one group per line along each axis "
           "(128x32x40 -> 10,496 groups, the paper's count); processes are laid on hosts in topology "
           "order, `-shuf` = seeded random placement, `-ppn4` = 4 processes per host (members are the "
           "distinct hosts). `random` = groups of 2–64 random hosts. Engines: `minhop` = MINIHOP-MC as "
           "OpenSM (first optimal root by GUID, first min-hop port), `sssp` = SSSP-MC (full Dijkstra per "
           "group), `-rr` = the FULB paper's \"-new\" variants with root rotation, `fulb` = FULB-MC, "
           "`mr4lms` = MR4LMS (default engine).",
           "",
           "Plots: ![max EFI](mcast-efi.png) ![colors](mcast-colors.png) ![time](mcast-time.png)",
           "", "## Topologies", "",
           "| id | topology | ibsmgen | switches | hosts | links | MR4LMS MFT size |",
           "|---|---|---|---:|---:|---:|---:|"]
    infos = {}
    for topo, gen, rec, label in topos:
        infos[topo] = topo_info(work, topo)
        i = infos[topo]
        out.append(f"| {topo} | {label} | `{gen}` | {fmt(i.get('switches'))} | {fmt(i.get('hosts'))} | "
                   f"{fmt(i.get('links'))} | {rec} |")
    out.append("\nMFT sizes: the MR4LMS paper recommends Ncolor = 128 for fat-tree-like fabrics (its text "
               "says so for the fat tree and both Sunway machines) and quotes 256 for the torus and the "
               "random network; its Table 4 is lost, so the dragonfly also gets 256 here.")
    out.append("\n## Results per topology")
    for topo, gen, rec, label in topos:
        section(out, agg, topo, label, rec, infos[topo], work)
    notes(out, agg, topos)
    pruned3_notes(out, agg, topos)
    ncolor(out, work, docs)
    targets(out, agg, topos, infos)
    out.append("\n## The papers' figures (for comparison; from the paper texts, their tables and plots were lost)\n")
    out.append("| source | case | figure |")
    out.append("|---|---|---|")
    for s, c, v in PAPER:
        out.append(f"| {s} | {c} | {v} |")
    out.append("\nThe papers ran OpenSM 3.3.22 on 32- and 48-core Xeons; our times are on the machine above.")
    files = plot_data(agg, topos, work)
    gp = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mcast.gp")
    try:
        subprocess.run(["gnuplot", "-e", f"work='{work}'; docs='{docs}'", gp], check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        out.append(f"\n(plots not made: {e})")
    path = os.path.join(docs, "benchmarks.md")
    rest = keep_other_sections(path)
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n" + rest)
    print(f"mcast-report: wrote {os.path.join(docs, 'benchmarks.md')}", file=sys.stderr)


if __name__ == "__main__":
    main()
