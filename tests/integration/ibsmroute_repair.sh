#!/bin/bash
# ibsmroute --cut: a failure repaired as the daemon's incremental sweep
# repairs it, beside a fresh computation of the failed fabric, on 2- and
# 3-level fat trees (a leaf uplink, a middle switch, a core switch) with
# ftree and minhop.  The repair must deliver every pair, change no more LFT
# blocks than the fresh computation, and keep its busiest links (all
# pairs, and the mean over shifts) within 1.1 times the fresh one's; a
# --cut naming no node is a usage error (exit 2).  No ibsim needed.
. "$(dirname "$0")/lib.sh"
need python3
"$O/ibsmgen" fattree3 --k 8 -o "$T/ft3.net" || fail "ibsmgen fattree3"
"$O/ibsmgen" fattree2 --hosts 128 --radix 16 -o "$T/ft2.net" || fail "ibsmgen fattree2"
check() { # NET ENGINE CUT
	local net=$1 engine=$2 cut=$3 out=$T/$(basename "$1" .net)-$2-${3//[:\/]/_}.json
	"$O/ibsmroute" "$net" --routing "$engine" --cut "$cut" --json "$out" \
		>/dev/null || fail "$engine --cut $cut: exit $?"
	python3 - "$out" "$engine" "$cut" <<'PY' || fail "$engine --cut $cut"
import json, sys
r = json.load(open(sys.argv[1]))["repair"]
f = r["fresh"]
name = "%s --cut %s" % (sys.argv[2], sys.argv[3])
bad = []
if r["cut_links"] < 1:
    bad.append("no link cut")
if r["unreachable_pairs"] or f["unreachable_pairs"]:
    bad.append("unreachable pairs")
if r["blocks_changed"] > f["blocks_changed"]:
    bad.append("%d blocks changed, a fresh computation %d" %
               (r["blocks_changed"], f["blocks_changed"]))
if r["max_link_routes"] > 1.1 * f["max_link_routes"]:
    bad.append("all pairs %d against %d" % (r["max_link_routes"],
                                            f["max_link_routes"]))
if r["shifts_busiest_mean"] > 1.1 * f["shifts_busiest_mean"]:
    bad.append("shifts %.2f against %.2f" % (r["shifts_busiest_mean"],
                                             f["shifts_busiest_mean"]))
for b in bad:
    print("ERROR: %s: %s" % (name, b))
print("%s %s: %d blocks (fresh %d), all pairs %d (%d), shifts %.2f (%.2f)"
      % ("ok" if not bad else "BAD", name, r["blocks_changed"],
         f["blocks_changed"], r["max_link_routes"], f["max_link_routes"],
         r["shifts_busiest_mean"], f["shifts_busiest_mean"]))
sys.exit(1 if bad else 0)
PY
}
for engine in ftree minhop; do
	check "$T/ft3.net" $engine S1:5   # a leaf's first uplink
	check "$T/ft3.net" $engine S33    # a middle switch
	check "$T/ft3.net" $engine S65    # a core switch
	check "$T/ft2.net" $engine S1:9   # a leaf's first uplink
done
"$O/ibsmroute" "$T/ft3.net" --cut nosuch:1 >/dev/null 2>&1; rc=$?
[ $rc = 2 ] || fail "--cut of an unknown node exited $rc, want 2"
echo PASS
