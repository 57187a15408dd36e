#!/usr/bin/env python3
"""Multicast delivery check that trusts only the standard tools' output.

usage: mcast_walk.py TOPO MFTS GROUPS
  TOPO    ibnetdiscover output (links, node descriptions)
  MFTS    concatenated `ibroute -M LID` outputs of every switch
  GROUPS  lines "MGID MLID MEMBER_DESC..." (MLID in hex)

For every group and every member, a packet to the MLID is injected at the
member's switch and forwarded as the MFTs say (never back out of the port
it came in on).  Each other member must receive it exactly once, the
sender never, and no switch may see it twice (a loop or a duplicate path).
Deliveries to non-members are counted (a merged tree may reach another
group's members; IBA hosts drop packets of groups they did not join).
Exit 0 when every group is right, 1 otherwise, with one line per error."""
import re
import sys


def parse_topo(path):
    # node name (from the '# "desc"' comment) per ibnetdiscover node line,
    # and links: (switch guid, port) -> (remote name, remote port)
    links, sw_name, name_of_guid = {}, {}, {}
    cur = None
    for line in open(path):
        m = re.match(r'^Switch\s+\d+\s+"S-([0-9a-f]+)"\s+#\s+"([^"]*)"', line)
        if m:
            cur = int(m.group(1), 16)
            sw_name[cur] = m.group(2)
            continue
        m = re.match(r'^(Ca|Hca)\s+\d+\s+"H-([0-9a-f]+)"\s+#\s+"([^"]*)"', line)
        if m:
            cur = None
            name_of_guid[int(m.group(2), 16)] = m.group(3)
            continue
        m = re.match(r'^\[(\d+)\].*?"([SH])-([0-9a-f]+)"\[(\d+)\].*#\s+"([^"]*)"',
                     line)
        if m and cur is not None:
            links[(cur, int(m.group(1)))] = (m.group(2), int(m.group(3), 16),
                                             int(m.group(4)), m.group(5))
    return links, sw_name


def parse_mfts(path):
    mft, cur, base = {}, None, None
    for line in open(path):
        m = re.match(r'^Multicast mlids .* guid (0x[0-9a-f]+)', line)
        if m:
            cur = int(m.group(1), 16)
            mft[cur] = {}
            continue
        if line.lstrip().startswith('Ports:'):
            base = line.index('Ports:') + 7
            continue
        m = re.match(r'^(0x[0-9a-fA-F]{4})', line)
        if m and cur is not None and base is not None:
            ports = set()
            for i, ch in enumerate(line.rstrip('\n')):
                if ch == 'x' and i >= base and (i - base) % 2 == 0:
                    ports.add((i - base) // 2)
            mft[cur][int(m.group(1), 16)] = ports
    return mft


def main():
    links, sw_name = parse_topo(sys.argv[1])
    mft = parse_mfts(sys.argv[2])
    host_at = {}  # host desc -> (switch guid, port)
    for (sw, p), (kind, _, _, desc) in links.items():
        if kind == 'H':
            host_at[desc] = (sw, p)
    errors, groups, extra = 0, 0, 0
    for line in open(sys.argv[3]):
        f = line.split()
        if not f:
            continue
        mgid, mlid, members = f[0], int(f[1], 16), f[2:]
        groups += 1
        for src in members:
            if src not in host_at:
                print(f"{mgid}: member {src} not in the topology")
                errors += 1
                continue
            got, seen, loop = {}, set(), False
            stack = [host_at[src]]
            while stack:
                sw, inport = stack.pop()
                if sw in seen:
                    loop = True
                    continue
                seen.add(sw)
                for p in mft.get(sw, {}).get(mlid, ()):
                    if p == inport or p == 0:
                        continue
                    peer = links.get((sw, p))
                    if not peer:
                        continue
                    kind, guid, rport, desc = peer
                    if kind == 'H':
                        got[desc] = got.get(desc, 0) + 1
                    else:
                        stack.append((guid, rport))
            bad = [m for m in members if m != src and got.get(m, 0) != 1]
            if loop:
                print(f"{mgid} mlid 0x{mlid:04x} from {src}: a switch is "
                      "reached twice (loop or duplicate path)")
            if bad:
                print(f"{mgid} mlid 0x{mlid:04x} from {src}: not delivered "
                      f"exactly once to {' '.join(bad[:6])}"
                      f"{' ...' if len(bad) > 6 else ''}")
            if got.get(src):
                print(f"{mgid} from {src}: sent back to the sender")
            errors += bool(loop or bad or got.get(src))
            extra += sum(1 for d in got if d not in members)
    print(f"walk: {groups} groups, {errors} errors, {extra} deliveries to "
          "non-members")
    return 1 if errors or not groups else 0


if __name__ == '__main__':
    sys.exit(main())
