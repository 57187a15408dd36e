#!/usr/bin/env python3
"""Reads a libmadtap.so capture (tests/tap/madtap.c: one MAD in hex per
line) and prints the SMPs, one per line, for the integration tests:

  METHOD ATTR MOD MKEY [PORTINFO-FIELDS]

METHOD get/set/getresp/trap/trapresp..., ATTR the attribute ID (0x0015),
MOD the attribute modifier (0x80000001), MKEY the SMP header's M_Key;
for a PortInfo Set the payload's M_Key, protect bits and lease period
follow as mkey=0x.. protect=N lease=N.  Layouts are IBA 13.4 / 14.2.1 /
14.2.5.6, decoded here on their own (not with ibsmd's codecs).  Only
subnet management classes (0x01, 0x81) are printed."""
import sys

METHODS = {0x01: "get", 0x02: "set", 0x05: "trap", 0x07: "traprepress",
           0x81: "getresp"}


def be(b, off, n):
    return int.from_bytes(b[off:off + n], "big")


def main(path):
    for line in open(path):
        b = bytes.fromhex(line.strip())
        if len(b) < 64 or b[1] not in (0x01, 0x81):
            continue
        method = METHODS.get(b[3], "0x%02x" % b[3])
        attr, mod, mkey = be(b, 16, 2), be(b, 20, 4), be(b, 24, 8)
        out = "%s 0x%04x 0x%08x 0x%016x" % (method, attr, mod, mkey)
        if attr == 0x0015 and b[3] == 0x02:
            data = b[64:128]
            # M_Key bits 0..63, M_KeyLeasePeriod 208..223,
            # M_KeyProtectBits 272..273
            out += " mkey=0x%016x protect=%d lease=%d" % (
                be(data, 0, 8), data[34] >> 6, be(data, 26, 2))
        print(out)


if __name__ == "__main__":
    main(sys.argv[1])
