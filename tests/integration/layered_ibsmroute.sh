#!/bin/bash
# ibsmroute --routing layered on families of fabrics (2-D and 3-D tori of
# odd and even sizes with 1 and 2 hosts per switch, 2-D HyperX,
# dragonflies, random networks, fat trees) at max_vls 1, 2, 4 and 8, each
# routing checked on its dump files by vl_check.py (no ibsmd code; the
# checker proven on OpenSM in layered_opensm.sh): every CA pair delivered
# with an SL below max_vls, the (link, VL) graph acyclic with VL = SL.
# The JSON report agrees with the dump (SLs used); a fat tree needs one
# SL; bad --max-vls values are refused.  Repair (--cut, as ibsmd's
# incremental sweep): after a lost link and a lost switch the repaired
# tables (DIR/cut) are delivered and acyclic by the same checker, change
# no more LFT blocks than a fresh computation (fewer after a link: the
# trees it left whole are kept) and keep its busiest link within 1.2x.
. "$(dirname "$0")/lib.sh"
need python3
CHECK="$TOP/tests/integration/vl_check.py"
G="$O/ibsmgen"
R="$O/ibsmroute"

fabrics=(
	"t44:torus 4 4 1"
	"t55h2:torus 5 5 1 --hosts-per-switch 2"
	"t333:torus 3 3 3"
	"t444h2:torus 4 4 4 --hosts-per-switch 2"
	"t346:torus 3 4 6"
	"hx44h2:hyperx 4 4 --hosts-per-switch 2"
	"hx53:hyperx 5 3"
	"df:dragonfly --a 4 --p 1 --h 2"
	"df3:dragonfly --a 3 --p 2 --h 2"
	"rnd:random --switches 24 --ports 8 --hosts-per-switch 2 --seed 3"
	"rnd40:random --switches 40 --ports 6 --hosts-per-switch 1 --seed 9"
	"ft2:fattree2 --hosts 32 --radix 8"
	"ft3:fattree3 --k 4"
)
for spec in "${fabrics[@]}"; do
	name=${spec%%:*}
	# shellcheck disable=SC2086
	"$G" ${spec#*:} -o "$T/$name.net" || fail "ibsmgen ${spec#*:}"
	for vls in 1 2 4 8; do
		d=$T/$name-$vls
		"$R" "$T/$name.net" --routing layered --max-vls $vls \
			--dump-dir "$d" --json "$d.json" >"$d.out" 2>&1 ||
			fail "$name max_vls $vls: ibsmroute: $(cat "$d.out")"
		out=$(python3 "$CHECK" dump "$d" --expect-acyclic) ||
			fail "$name max_vls $vls: $out"
		python3 - "$d.json" "$vls" "$out" "$name" <<'PY' || fail "$name max_vls $vls: report and dump disagree"
import json, sys
u = json.load(open(sys.argv[1]))["unicast"]
vls, name = int(sys.argv[2]), sys.argv[4]
sls = [int(x) for x in sys.argv[3].split("sls=")[1].split()[0].split(",")]
ly = u["layers"]
assert u["cdg_acyclic"] is True and u["unreachable_pairs"] == 0
assert ly["made"] == vls, ly
assert max(sls) < vls and max(sls) + 1 == ly["vls_used"], (sls, ly)
if name.startswith("ft"):
    assert ly["vls_used"] == 1, ly
PY
		echo "ok $name max_vls $vls: $out"
	done
done

# repair: NAME CUT (a switch-to-switch link, then its whole switch)
for rc in "t444h2 S5:3" "t444h2 S5" "t346 S7:2" "t346 S7" "df S9:2" \
	"rnd40 S12:2" "hx44h2 S6:3"; do
	read -r name cut <<<"$rc"
	d=$T/cut-$name-${cut/:/-}
	"$R" "$T/$name.net" --routing layered --cut "$cut" --dump-dir "$d" \
		--json "$d.json" >"$d.out" 2>&1 ||
		fail "$name --cut $cut: $(cat "$d.out")"
	out=$(python3 "$CHECK" dump "$d/cut" --expect-acyclic) ||
		fail "$name --cut $cut: repaired tables: $out"
	python3 - "$d.json" "$cut" <<'PY' || fail "$name --cut $cut: $(grep -A1 '^repair' "$d.out")"
import json, sys
r = json.load(open(sys.argv[1]))["repair"]
f = r["fresh"]
assert r["unreachable_pairs"] == 0
assert r["blocks_changed"] <= f["blocks_changed"], r
if ":" in sys.argv[2]:  # a link: the repair keeps the trees it left whole
    assert r["blocks_changed"] < f["blocks_changed"], r
assert r["max_link_routes"] * 10 <= f["max_link_routes"] * 12, r
PY
	echo "ok $name --cut $cut: $(sed -n 's/^repair after //p' "$d.out" | cut -c1-100)"
done

"$R" "$T/t44.net" --routing layered --max-vls 16 >/dev/null 2>&1
[ $? -eq 2 ] || fail "--max-vls 16 accepted"
"$R" "$T/t44.net" --routing layered -o routing.layered.max_vls=x \
	>/dev/null 2>&1
[ $? -eq 2 ] || fail "routing.layered.max_vls=x accepted"
"$R" "$T/t44.net" --routing layered -o routing.layered.max_vls=2 \
	--json "$T/o.json" >/dev/null 2>&1 || fail "-o routing.layered.max_vls=2"
grep -q '"made":2' "$T/o.json" || fail "routing.layered.max_vls=2 not taken"
# routing.unicast: layered, the key ibsmd reads too, is
# what ibsmroute runs
"$R" "$T/t44.net" -o routing.unicast=layered --json "$T/u.json" \
	>/dev/null 2>&1 || fail "-o routing.unicast=layered"
grep -q '"engine":"layered"' "$T/u.json" || fail "routing.unicast=layered not taken"
echo PASS
