#!/usr/bin/env python3
"""Call loops between the files of daemon/, read from the object files.

A file (with its own header) is one unit.  For every build/daemon/*.o, nm
lists the global symbols it defines and the ones it uses; a use of a
symbol defined in another daemon file is an edge.  A strongly connected
component of more than one file is a call loop: none of the files in it
can be understood, tested or linked without all the others.  Prints the
edges and every loop; exits 1 when there is a loop.
Usage: daemon_layering.py BUILD_DIR [LEAST_OBJECTS]
"""
import glob
import os
import subprocess
import sys


def symbols(obj):
    out = subprocess.run(["nm", "-g", obj], capture_output=True, text=True,
                         check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "U":
            used.add(f[1])
        elif len(f) == 3:
            defined.add(f[2])
    return defined, used


def graph(objdir):
    owner, uses = {}, {}
    for obj in sorted(glob.glob(os.path.join(objdir, "daemon", "**", "*.o"), recursive=True)):
        unit = os.path.basename(obj)[:-2]
        defined, used = symbols(obj)
        for s in defined:
            owner[s] = unit
        uses[unit] = used
    edges = {u: {} for u in uses}
    for u, used in uses.items():
        for s in used:
            v = owner.get(s)
            if v is not None and v != u:
                edges[u].setdefault(v, []).append(s)
    return edges


def sccs(edges):
    """Tarjan's algorithm, iterative (no recursion limit to think about)."""
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
                    work.append((w, iter(sorted(edges[w]))))
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


def main():
    objdir = sys.argv[1] if len(sys.argv) > 1 else "build"
    least = int(sys.argv[2]) if len(sys.argv) > 2 else 10  # the self-test's 2
    edges = graph(objdir)
    if len(edges) < least:
        print("FAIL: found only %d daemon objects under %s" % (len(edges), objdir))
        return 1
    for u in sorted(edges):
        if edges[u]:
            print("%s -> %s" % (u, " ".join(sorted(edges[u]))))
    loops = [c for c in sccs(edges) if len(c) > 1]
    for c in loops:
        print("LOOP (%d files): %s" % (len(c), " ".join(c)))
        inside = set(c)
        for u in c:
            for v in sorted(edges[u]):
                if v in inside:
                    print("    %s -> %s: %s" % (u, v, " ".join(sorted(edges[u][v]))))
    print("%d daemon files, %d call loops" % (len(edges), len(loops)))
    return 1 if loops else 0


if __name__ == "__main__":
    sys.exit(main())
