#!/usr/bin/env python3
"""Writes the seed corpus of the SA fuzz target: one valid request per
attribute and method the SA serves, with typical component masks."""
import os, struct, sys

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus", "sa")
os.makedirs(out, exist_ok=True)

def mad(method, attr, mask, rec=b"", smkey=0, offs=0):
    h = struct.pack(">BBBBHHQHHI", 1, 3, 2, method, 0, 0, 0x1234, attr, 0, 0)
    rmpp = bytes(12)
    sa = struct.pack(">QHHQ", smkey, offs, 0, mask)
    body = (h + rmpp + sa + rec).ljust(256, b"\0")
    return body[:256]

GID = lambda g: struct.pack(">QQ", 0xfe80000000000000, g)
seeds = {
    "cpi": mad(1, 0x01, 0),
    "nr_all": mad(0x12, 0x11, 0),
    "nr_lid": mad(1, 0x11, 1, struct.pack(">H", 4)),
    "nr_desc": mad(1, 0x11, 1 << 14, bytes(44) + b"Hca2".ljust(64, b"\0")),
    "pir_lid": mad(0x12, 0x12, 1, struct.pack(">H", 1)),
    "pir_cap": mad(0x12, 0x12, 1 << 7, bytes(4 + 20) + struct.pack(">I", 2)),
    "swir": mad(0x12, 0x14, 0),
    "lftr": mad(0x12, 0x15, 3, struct.pack(">HH", 3, 0)),
    "mftr": mad(0x12, 0x17, 0),
    "smir": mad(0x12, 0x18, 0),
    "lr": mad(0x12, 0x20, 0),
    "lr_from": mad(1, 0x20, 3, struct.pack(">HB", 3, 6)),
    "gir": mad(0x12, 0x30, 1, struct.pack(">H", 2)),
    "pkr": mad(0x12, 0x33, 1, struct.pack(">H", 2)),
    "pr_all": mad(0x12, 0x35, 0),
    "pr_lids": mad(1, 0x35, (1 << 4) | (1 << 5), bytes(40) + struct.pack(">HH", 8, 2)),
    "pr_gids": mad(1, 0x35, (1 << 2) | (1 << 3), bytes(8) + GID(0x100004) + GID(0x100007)),
    "pr_sel": mad(1, 0x35, (1 << 4) | (1 << 5) | (1 << 16) | (1 << 17) | (1 << 18) | (1 << 19),
                  bytes(40) + struct.pack(">HH", 4, 2) + bytes(10) + bytes([0x44, 0x43])),
    "sr_set": mad(2, 0x31, 0x53, struct.pack(">Q", 0x10) + GID(0x100001) +
                  struct.pack(">HHI", 0xffff, 0, 10) + bytes(16) + b"svc".ljust(64, b"\0")),
    "sr_get": mad(0x12, 0x31, 0),
    "sr_del": mad(0x15, 0x31, 3, struct.pack(">Q", 0x10) + GID(0x100001)),
    "mcmr": mad(0x12, 0x38, 0),
    "mcmr_mgid": mad(1, 0x38, 1, bytes.fromhex("ff12401bffff000000000000ffffffff")),
    "mcmr_join": mad(2, 0x38, 0x3 | (1 << 16), bytes.fromhex("ff12401bffff000000000000ffffffff") +
                     GID(0x100001) + bytes(16) + bytes([0x01])),
    "mcgs": mad(0x12, 0xFF38, 0),
    "bad_version": mad(1, 0x11, 0)[:2] + b"\x01" + mad(1, 0x11, 0)[3:],
}
for name, b in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(b)
print(f"{len(seeds)} seeds in {out}")
