#!/usr/bin/env python3
"""A degraded copy of an ibsim net file: without the given links (both
ends) and switches (every line naming them), for the fat-tree tests and
benchmarks (a tree with a missing link or switch).

usage: net_degrade.py SRC DST [NODE:PORT | NODE]...
"""
import re
import sys


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    src, dst, gone = sys.argv[1], sys.argv[2], sys.argv[3:]
    cut = {tuple(g.split(":")) for g in gone if ":" in g}
    drop = {g for g in gone if ":" not in g}
    out, cur, skip = [], None, False
    for line in open(src):
        m = re.match(r'^(Switch|Hca|Ca)\s+\d+\s+"([^"]+)"', line)
        if m:
            cur = m.group(2)
            skip = cur in drop
        if skip:
            continue
        m = re.match(r'^\[(\d+)\]\s+"([^"]+)"\[(\d+)\]', line)
        if m and ((cur, m.group(1)) in cut or (m.group(2), m.group(3)) in cut
                  or m.group(2) in drop):
            continue
        out.append(line)
    open(dst, "w").writelines(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
