#!/usr/bin/env python3
"""Multicast delivery and EFI from ibsmroute's dump files alone.

usage: mcast_dumpwalk.py DUMP_DIR MFT_SIZE

Reads subnet.lst (links), mfts.dump (per-switch MFT entries, OpenSM's
opensm.mcfdbs format) and mcgroups.dump (each group's MLID and member port
GUIDs), none of it through ibsmd's own routing code.  For every group and
every member, a packet to the group's MLID enters the member's switch from
the member's port and is forwarded as the MFT entries say, never back out
of the port it came in on.  Every other member must receive it exactly
once, the sender never, and no switch may see it twice (a loop or a second
path); every MLID must be below 0xC000 + MFT_SIZE (0: no limit).  A link's
EFI is the number of groups whose packets cross it (a tree shared by k
groups counts k).  Prints "max_efi colors groups" and exits 0, or prints
one line per error and exits 1."""
import re
import sys


def parse_links(path):
    """(node guid, port) -> (node guid, port), and CA port guid -> (node, port)."""
    end = re.compile(r"\{ (CA|SW) Ports:\w+ SystemGUID:\w+ NodeGUID:(\w+) "
                     r"PortGUID:(\w+) .*? PN:(\w+) \}")
    links, ca_port = {}, {}
    for line in open(path):
        ends = end.findall(line)
        if len(ends) != 2:
            continue
        (ta, na, pa, qa), (tb, nb, pb, qb) = ends
        a, b = (int(na, 16), int(qa, 16)), (int(nb, 16), int(qb, 16))
        links[a] = b
        links[b] = a
        for t, n, p, q in ends:
            if t == "CA":
                ca_port[int(p, 16)] = (int(n, 16), int(q, 16))
    return links, ca_port


def parse_mfts(path):
    """switch guid -> {mlid: set(ports)}"""
    mft, cur = {}, None
    for line in open(path):
        m = re.match(r"Switch 0x([0-9a-fA-F]+)", line)
        if m:
            cur = mft.setdefault(int(m.group(1), 16), {})
            continue
        m = re.match(r"0x([0-9a-fA-F]{4}) :(.*)", line)
        if m and cur is not None:
            cur[int(m.group(1), 16)] = {int(p, 16) for p in m.group(2).split()}
    return mft


def parse_groups(path):
    groups = []
    for line in open(path):
        f = line.split()
        mlid = int(f[1].split("=")[1], 16)
        members = [int(x, 16) for x in f[-1].split("=")[1].split(",")]
        groups.append((f[0], mlid, members))
    return groups


def flood(links, mft, mlid, start, in_port):
    """Delivers from switch start (entered through in_port); returns the
    CA ports reached (with counts), the links crossed and any loop."""
    got, crossed, seen, errors = {}, set(), set(), []
    stack = [(start, in_port)]
    while stack:
        sw, came = stack.pop()
        if sw in seen:
            errors.append("switch 0x%x reached twice" % sw)
            continue
        seen.add(sw)
        for p in mft.get(sw, {}).get(mlid, ()):
            if p == came or (sw, p) not in links:
                continue
            peer = links[(sw, p)]
            crossed.add(frozenset(((sw, p), peer)))
            if peer[0] in mft:
                stack.append(peer)
            else:
                got[peer] = got.get(peer, 0) + 1
    return got, crossed, errors


def main():
    d, mft_size = sys.argv[1], int(sys.argv[2])
    links, ca_port = parse_links(d + "/subnet.lst")
    mft = parse_mfts(d + "/mfts.dump")
    groups = parse_groups(d + "/mcgroups.dump")
    errors, efi, mlids = [], {}, set()
    for mgid, mlid, members in groups:
        mlids.add(mlid)
        if mft_size and mlid >= 0xC000 + mft_size:
            errors.append("%s: MLID 0x%x beyond the MFT" % (mgid, mlid))
        want = {ca_port[m] for m in members}
        used = set()
        for m in members:
            node, port = ca_port[m]
            sw, swp = links[(node, port)]
            got, crossed, errs = flood(links, mft, mlid, sw, swp)
            used |= crossed
            errors += ["%s from 0x%x: %s" % (mgid, m, e) for e in errs]
            for w in want - {(node, port)}:
                if got.get(w, 0) != 1:
                    errors.append("%s from 0x%x: member 0x%x got %d copies"
                                  % (mgid, m, w[0], got.get(w, 0)))
            if got.get((node, port), 0):
                errors.append("%s: sender 0x%x got its own packet" % (mgid, m))
            # the sender's own link carries its packet too
            used.add(frozenset(((node, port), (sw, swp))))
        for link in used:
            efi[link] = efi.get(link, 0) + 1
    for e in errors[:20]:
        print(e)
    if errors:
        sys.exit(1)
    print(max(efi.values(), default=0), len(mlids), len(groups))


main()
