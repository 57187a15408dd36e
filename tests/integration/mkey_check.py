#!/usr/bin/env python3
"""Checks a capture of ibsmd's SMPs (madtap.py lines) against the M_Key
files it wrote, for tests/integration/mkey_wire.sh.

  mkey_check.py derive STATE_DIR
      every key of guid2mkey is SipHash-2-4(mkey.secret, GUID big-endian),
      computed here on its own (not with ibsmd's code)
  mkey_check.py sets SMPS STATE_DIR PROTECT LEASE [HEADER_KEY]
      every PortInfo Set that installs a key installs one of guid2mkey's,
      with those protect bits and lease, each of guid2mkey's keys is
      installed, and the Set's own M_Key (the qualifier) is HEADER_KEY
      when given, else the key it installs
  mkey_check.py headers SMPS STATE_DIR [KEY...]
      every SMP carries a key of guid2mkey (or one of KEY...), never 0
Prints one summary line; exit 1 with the first mismatch."""
import sys

M = (1 << 64) - 1


def rotl(x, b):
    return ((x << b) | (x >> (64 - b))) & M


def siphash24(key, data):
    k0 = int.from_bytes(key[:8], "little")
    k1 = int.from_bytes(key[8:], "little")
    v = [k0 ^ 0x736f6d6570736575, k1 ^ 0x646f72616e646f6d,
         k0 ^ 0x6c7967656e657261, k1 ^ 0x7465646279746573]

    def rnd():
        v[0] = (v[0] + v[1]) & M; v[1] = rotl(v[1], 13) ^ v[0]
        v[0] = rotl(v[0], 32)
        v[2] = (v[2] + v[3]) & M; v[3] = rotl(v[3], 16) ^ v[2]
        v[0] = (v[0] + v[3]) & M; v[3] = rotl(v[3], 21) ^ v[0]
        v[2] = (v[2] + v[1]) & M; v[1] = rotl(v[1], 17) ^ v[2]
        v[2] = rotl(v[2], 32)

    blocks = len(data) // 8 * 8
    for i in range(0, blocks, 8):
        m = int.from_bytes(data[i:i + 8], "little")
        v[3] ^= m; rnd(); rnd(); v[0] ^= m
    last = (len(data) & 0xff) << 56
    for j, b in enumerate(data[blocks:]):
        last |= b << (8 * j)
    v[3] ^= last; rnd(); rnd(); v[0] ^= last
    v[2] ^= 0xff
    for _ in range(4):
        rnd()
    return v[0] ^ v[1] ^ v[2] ^ v[3]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def guid2mkey(state):
    keys = {}
    for line in open(state + "/guid2mkey"):
        g, k = line.split()
        keys[int(g, 16)] = int(k, 16)
    return keys


def smps(path):
    for line in open(path):
        f = line.split()
        d = {"method": f[0], "attr": f[1], "mod": int(f[2], 16),
             "key": int(f[3], 16)}
        for kv in f[4:]:
            k, v = kv.split("=")
            d[k] = int(v, 0)
        yield d


def derive(state):
    secret = bytes.fromhex(open(state + "/mkey.secret").read().strip())
    keys = guid2mkey(state)
    for g, k in keys.items():
        want = siphash24(secret, g.to_bytes(8, "big")) or 1
        if k != want:
            fail("0x%016x holds 0x%016x, SipHash gives 0x%016x" % (g, k, want))
    print("%d keys, each SipHash-2-4(secret, GUID)" % len(keys))


def sets(path, state, protect, lease, header=None):
    keys = set(guid2mkey(state).values())
    seen, n = set(), 0
    for s in smps(path):
        if s["method"] != "set" or s["attr"] != "0x0015" or not s["mkey"]:
            continue
        n += 1
        if s["mkey"] not in keys:
            fail("a Set installs 0x%016x, not in guid2mkey" % s["mkey"])
        if s["protect"] != protect or s["lease"] != lease:
            fail("a Set installs protect %d lease %d" % (s["protect"],
                                                          s["lease"]))
        want = header if header is not None else s["mkey"]
        if s["key"] != want:
            fail("a Set installing 0x%016x carries M_Key 0x%016x, not "
                 "0x%016x" % (s["mkey"], s["key"], want))
        seen.add(s["mkey"])
    if seen != keys:
        fail("%d of guid2mkey's %d keys never installed" %
             (len(keys - seen), len(keys)))
    print("%d PortInfo Sets install the %d keys of guid2mkey, protect %d, "
          "lease %d" % (n, len(keys), protect, lease))


def headers(path, state, extra):
    keys = set(guid2mkey(state).values()) | set(extra)
    n = 0
    for s in smps(path):
        n += 1
        if s["key"] not in keys:
            fail("%s 0x%s modifier 0x%08x carries M_Key 0x%016x" %
                 (s["method"], s["attr"], s["mod"], s["key"]))
    print("%d SMPs, each with its port's key" % n)


if __name__ == "__main__":
    a = sys.argv[1:]
    if a[0] == "derive":
        derive(a[1])
    elif a[0] == "sets":
        sets(a[1], a[2], int(a[3]), int(a[4]),
             int(a[5], 16) if len(a) > 5 else None)
    elif a[0] == "headers":
        headers(a[1], a[2], [int(x, 16) for x in a[3:]])
    else:
        fail("usage")
