#!/usr/bin/env python3
"""The parts of the tree and the order between them, checked from the code.

The folders and their order come from the ```layers block of
docs/design.md §8: one folder a line, lowest first, with its front-door
headers ("*": every header but *_priv.h and *_int.h; "-": none).  From the
sources (#include lines) and the object files (nm: the global symbols each
object defines and uses) it finds:

  - a dependency of a folder on a folder not below it in that order
    (an include or a call: either makes a circle possible, and a circle
    between folders is one of them);
  - an include of another folder's header that is not one of its front
    doors (tests may include private headers: they are not checked);
  - a folder the block does not name (a new folder must be placed);
  - circles between folders, counting every include and call;
  - call loops between files of daemon/ and routing/: a strongly connected
    component of two files or more in the call graph (a file and its own
    header are one unit).

Prints what it found and the counts; exits 1 when anything is wrong.
Usage: daemon_layering.py SRC_DIR BUILD_DIR [DESIGN_MD]
"""
import glob
import os
import re
import subprocess
import sys

SOURCE_TOPS = ("lib", "mad", "routing", "daemon", "tools")
FILE_LOOP_TOPS = ("daemon", "routing")


def read_layers(design):
    text = open(design).read()
    m = re.search(r"^```layers\n(.*?)^```", text, re.S | re.M)
    if not m:
        sys.exit("FAIL: no ```layers block in %s" % design)
    order, doors = [], {}
    for line in m.group(1).splitlines():
        f = line.split()
        if not f or f[0].startswith("#"):
            continue
        name = f[0].rstrip("/")
        order.append(name)
        heads = []
        for h in f[1:]:
            if not (h.endswith(".h") or h in ("*", "-")):
                break  # the purpose column starts
            heads.append(h)
        doors[name] = heads
    return order, doors


def folder_of(path, order):
    """The folder a source path belongs to: the longest listed prefix."""
    d = os.path.dirname(path)
    while d:
        if d in order:
            return d
        if d.startswith("tools/") and d.count("/") == 1:
            return d
        d = os.path.dirname(d)
    return None


def is_door(header, folder, doors):
    heads = doors.get(folder, [])
    base = os.path.basename(header)
    if "*" in heads:
        return not re.search(r"_(priv|int)\.h$", base)
    return base in heads


def sources(src):
    out = []
    for top in SOURCE_TOPS:
        for root, _, files in os.walk(os.path.join(src, top)):
            for f in files:
                if f.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(root, f), src))
    return sorted(out)


def include_edges(src, order):
    """(from folder, to folder, why, header) for every quoted include."""
    edges = []
    for path in sources(src):
        a = folder_of(path, order)
        for inc in re.findall(r'^#\s*include\s+"([^"]+)"',
                              open(os.path.join(src, path)).read(), re.M):
            b = folder_of(inc, order)
            if b is not None and a is not None and a != b:
                edges.append((a, b, "%s includes %s" % (path, inc), inc))
    return edges


def nm(obj):
    out = subprocess.run(["nm", "-g", obj], capture_output=True, text=True,
                         check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "U":
            used.add(f[1])
        elif len(f) == 3 and f[2] != "main":
            defined.add(f[2])
    return defined, used


def objects(build):
    objs = {}
    for top in SOURCE_TOPS:
        for o in glob.glob(os.path.join(build, top, "**", "*.o"),
                           recursive=True):
            objs[os.path.relpath(o, build)[:-2]] = nm(o)
    return objs


def call_edges(objs):
    """(user unit, definer unit, symbol); a program's objects see their own
    program's symbols and the archives', the archives only theirs."""
    shared, per_tool = {}, {}
    for unit, (defined, _) in objs.items():
        table = shared
        if unit.startswith("tools/"):
            table = per_tool.setdefault(unit.split("/")[1], {})
        for s in defined:
            table[s] = unit
    edges = []
    for unit, (_, used) in objs.items():
        own = per_tool.get(unit.split("/")[1], {}) if unit.startswith(
            "tools/") else {}
        for s in used:
            v = own.get(s) or shared.get(s)
            if v and v != unit:
                edges.append((unit, v, s))
    return edges


def sccs(edges):
    """Tarjan's algorithm, iterative; edges: {node: set of nodes}."""
    index, low, on, stack, out = {}, {}, set(), [], []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def check_folders(order, doors, inc, calls, objs):
    rank = {f: i for i, f in enumerate(order)}
    bad, graph, seen = [], {}, set()
    for a, b, why, header in inc:
        graph.setdefault(a, set()).add(b)
        if not is_door(header, b, doors):
            bad.append("PRIVATE: %s (not a front door of %s/)" % (why, b))
    for u, v, s in calls:
        a, b = folder_of(u + ".c", order), folder_of(v + ".c", order)
        if a and b and a != b:
            graph.setdefault(a, set()).add(b)
            inc.append((a, b, "%s calls %s (%s)" % (u, v, s), None))
    for a, b, why, _ in inc:
        ra, rb = rank.get(a), rank.get(b)
        if ra is None and not a.startswith("tools/"):
            seen.add(a)
        elif rb is None:
            seen.add(b)
        elif ra is not None and rb >= ra:
            bad.append("UPWARD: %s (%s/ is not below %s/)" % (why, b, a))
    for u in objs:
        f = folder_of(u + ".c", order)
        if f is None:
            seen.add(os.path.dirname(u))
    bad += ["UNPLACED: folder %s/ is not in the layers block" % f
            for f in sorted(seen)]
    circles = [c for c in sccs(graph) if len(c) > 1]
    bad += ["CIRCLE (%d folders): %s" % (len(c), " ".join(c))
            for c in circles]
    return bad, graph, circles


def check_files(calls):
    graph = {}
    for u, v, _ in calls:
        if u.split("/")[0] in FILE_LOOP_TOPS and \
           v.split("/")[0] in FILE_LOOP_TOPS:
            graph.setdefault(u, set()).add(v)
            graph.setdefault(v, set())
    loops = [c for c in sccs(graph) if len(c) > 1]
    out = []
    for c in loops:
        out.append("LOOP (%d files): %s" % (len(c), " ".join(c)))
        inside = set(c)
        for u, v, s in sorted(calls):
            if u in inside and v in inside:
                out.append("    %s -> %s: %s" % (u, v, s))
    return out, len(loops), len(graph)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    src, build = sys.argv[1], sys.argv[2]
    design = sys.argv[3] if len(sys.argv) > 3 else os.path.join(
        src, "docs", "design.md")
    order, doors = read_layers(design)
    objs = objects(build)
    if not objs:
        print("FAIL: no object files under %s" % build)
        return 1
    inc = include_edges(src, order)
    calls = call_edges(objs)
    bad, graph, circles = check_folders(order, doors, inc, calls, objs)
    loops, n_loops, n_files = check_files(calls)
    for a in order:
        if graph.get(a):
            print("%s/ -> %s" % (a, " ".join(sorted(x + "/" for x in graph[a]))))
    for line in bad + loops:
        print(line)
    print("%d folders, %d dependencies against the order or through a "
          "private header, %d folder circles; %d files in daemon/ and "
          "routing/, %d call loops" % (len(order), len(bad) - len(circles),
                                      len(circles), n_files, n_loops))
    return 1 if bad or n_loops else 0


if __name__ == "__main__":
    sys.exit(main())
