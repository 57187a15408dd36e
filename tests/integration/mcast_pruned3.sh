#!/bin/bash
# MR4LMS under MFT pressure on a family of 3-level pruned fat trees
# (ibsmgen pruned3: pod counts, leaves, middles, tops and uplinks varied)
# with grid patterns at 1, 2 and 4 processes per host.  Each fabric is
# routed with no limit, then with half the colors that needed (the case
# the paper's merging exists for): by the offline planner, and in file
# order without a forecast as the daemon routes (both merge modes).  The
# checks trust only the dump files (mcast_dumpwalk.py, not our routing
# code): every member of every group receives every other member's packet
# exactly once, without loops; every MLID is within the MFT; and the max
# EFI measured from the dumps stays within the issue's targets against the
# unlimited routing: x2.4 (the paper's BlueLight growth), for the planner
# and for the daemon's order in both merge modes; the planner's routing
# is never beaten in both max EFI and mean TFI by the file order's (it
# was on a and c before the planner kept the better of the two); and a
# group routed in file order keeps its MLID while later groups arrive.  g, h and j are the
# smallest found where the merging before this test (formula (1) first,
# absorbing merges) grew the max EFI x6.7, x4.2 and x2.5; in file order d
# still grew x2.42 and g x3.4 (x3.0 rebuilding) before the daemon budgeted
# three trees to come per tree come (mr4lms_share.c).
. "$(dirname "$0")/lib.sh"
need python3

walk() { # dir mft -> "max_efi colors groups"
	python3 "$TOP/tests/integration/mcast_dumpwalk.py" "$1" "$2" ||
		fail "$(basename "$1"): delivery check failed"
}

route_run() { # topo events dir mft [VAR=value...] [-o KEY=VALUE...]
	local topo=$1 ev=$2 d=$3 mft=$4 vars=() opts=()
	shift 4
	while [ $# -gt 0 ]; do
		case $1 in
		-o) opts+=(-o "$2") && shift 2 ;;
		*) vars+=("$1") && shift ;;
		esac
	done
	env "${vars[@]}" "$O/ibsmroute" "$topo" --groups "$ev" --mft-size "$mft" \
		"${opts[@]}" --dump-dir "$d" --json "$d.json" 2>"$d.err" ||
		fail "$(basename "$d"): ibsmroute exited $?: $(tail -3 "$d.err")"
	python3 - "$d.json" "$(grep -c '^+' "$ev")" <<'PY' ||
import json, sys
m = json.load(open(sys.argv[1]))["multicast"]
assert m["verified"] is True and m["groups"] == int(sys.argv[2]), m
PY
		fail "$(basename "$d"): report not verified or groups missing"
}

ratio_ok() { # efi base limit -> true when efi <= base * limit
	python3 -c "import sys; sys.exit(not $1 <= $2 * $3)"
}

unlimited() { # name gen pat -> $T/name.topo, .ev; sets efi0 colors0 groups
	local topo=$T/$1.topo ev=$T/$1.ev
	# shellcheck disable=SC2086
	"$O/ibsmgen" pruned3 $2 -o "$topo" || fail "$1: ibsmgen pruned3 $2"
	# shellcheck disable=SC2086
	"$O/ibsmpattern" "$topo" grid $3 -o "$ev" 2>/dev/null ||
		fail "$1: ibsmpattern grid $3"
	route_run "$topo" "$ev" "$T/$1.0" 0
	read -r efi0 colors0 groups <<<"$(walk "$T/$1.0" 0)"
}

n=0
while IFS='|' read -r name gen pat; do
	topo=$T/$name.topo ev=$T/$name.ev
	unlimited "$name" "$gen" "$pat"
	mft=$(((colors0 + 1) / 2))
	route_run "$topo" "$ev" "$T/$name.plan" "$mft"
	read -r efi _ _ <<<"$(walk "$T/$name.plan" "$mft")"
	ratio_ok "$efi" "$efi0" 2.4 ||
		fail "$name: planner max EFI $efi > 2.4 x $efi0 (MFT $mft of $colors0 colors)"
	echo "$name: $groups groups, $colors0 colors -> MFT $mft: max EFI $efi0 -> $efi (planner)"
	for merge in extend rebuild; do
		d=$T/$name.daemon-$merge
		route_run "$topo" "$ev" "$d" "$mft" IBSM_MC_FILE_ORDER=1 \
			IBSM_MC_NO_FORECAST=1 -o "multicast.merge=$merge"
		read -r efi _ _ <<<"$(walk "$d" "$mft")"
		ratio_ok "$efi" "$efi0" 2.4 ||
			fail "$name: file-order max EFI $efi > 2.4 x $efi0 ($merge, MFT $mft of $colors0 colors)"
		echo "$name: max EFI $efi0 -> $efi (as the daemon: no forecast, $merge)"
	done
	# The planner keeps the arrival-order routing when that is better in
	# max EFI or mean TFI and worse in neither: what it reports is never
	# beaten on both by routing the groups as they come.
	python3 - "$T/$name.plan.json" "$T/$name.daemon-extend.json" <<'PY' ||
import json, sys
p, d = (json.load(open(f))["multicast"] for f in sys.argv[1:])
pe, pt, de, dt = p["max_efi"], p["avg_tfi"], d["max_efi"], d["avg_tfi"]
assert not (de <= pe and dt <= pt and (de < pe or dt < pt)), (pe, pt, de, dt)
PY
		fail "$name: the planner's routing is worse in max EFI and mean TFI than file order"
	# Groups keep their MLIDs as later groups arrive: the first half of
	# the events routed alone gives those groups the MLIDs they still have
	# once every group is routed (the engine is deterministic).
	half=$T/$name.half.ev
	head -n $((groups / 2)) "$ev" >"$half"
	route_run "$topo" "$half" "$T/$name.half" "$mft" IBSM_MC_FILE_ORDER=1 \
		IBSM_MC_NO_FORECAST=1
	python3 - "$T/$name.half/mcgroups.dump" \
		"$T/$name.daemon-extend/mcgroups.dump" <<'PY' ||
import sys
def mlids(path):
    return {l.split()[0]: l.split()[1] for l in open(path)}
first, full = mlids(sys.argv[1]), mlids(sys.argv[2])
moved = [g for g in first if full.get(g) != first[g]]
assert first and not moved, moved[:5]
PY
		fail "$name: groups changed MLID when later groups arrived"
	n=$((n + 1))
done <<'EOF'
a|--pods 4 --leaves 6 --hosts-per-leaf 8 --middles 2 --tops 4 --uplinks 2|8x6x4 --ppn 1
b|--pods 6 --leaves 4 --hosts-per-leaf 8 --middles 3 --tops 6 --uplinks 4|8x8x6 --ppn 2
c|--pods 8 --leaves 4 --hosts-per-leaf 8 --middles 2 --tops 4 --uplinks 4|16x8x8 --ppn 4
d|--pods 3 --leaves 8 --hosts-per-leaf 6 --middles 4 --tops 8 --uplinks 2|12x8x6 --ppn 4
e|--pods 5 --leaves 8 --hosts-per-leaf 8 --middles 2 --tops 2 --uplinks 1|20x8x8 --ppn 4
f|--pods 12 --leaves 2 --hosts-per-leaf 16 --middles 2 --tops 8 --uplinks 4|24x16x4 --ppn 4
g|--pods 4 --leaves 17 --hosts-per-leaf 16 --middles 4 --tops 8 --uplinks 4|32x8x17 --ppn 4
h|--pods 10 --leaves 8 --hosts-per-leaf 16 --middles 4 --tops 8 --uplinks 4|64x8x10 --ppn 4
j|--pods 6 --leaves 8 --hosts-per-leaf 12 --middles 3 --tops 6 --uplinks 2|48x6x8 --ppn 4
EOF
[ $n = 9 ] || fail "only $n of 9 fabrics checked"

# Arrival order at a quarter of the colors: pods are z-planes and the
# z-lines come last, after the y-lines took most colors of their leaves
# and middles (p3th-b's case in docs/benchmarks.md, scaled down).  Every
# group delivered, max EFI within x2.4 of the unlimited routing, and the
# merges that extend a neighbouring tree (mr4lms_merge.c) taken at least
# once over the family (before them k grew x2.9 and l x2.4).  n has the
# pods of the BlueLight models (17 leaves of 16 hosts, 4 middles): x5.4
# before the daemon budgeted three trees to come per tree come.
ext=0
while IFS='|' read -r name gen pat; do
	topo=$T/$name.topo ev=$T/$name.ev
	unlimited "$name" "$gen" "$pat"
	mft=$(((colors0 + 3) / 4))
	d=$T/$name.arrival
	route_run "$topo" "$ev" "$d" "$mft" IBSM_MC_FILE_ORDER=1 IBSM_MC_NO_FORECAST=1
	read -r efi _ _ <<<"$(walk "$d" "$mft")"
	ratio_ok "$efi" "$efi0" 2.4 ||
		fail "$name: arrival-order max EFI $efi > 2.4 x $efi0 (MFT $mft of $colors0 colors)"
	x=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['multicast']['extension_merges'])" "$d.json")
	ext=$((ext + x))
	echo "$name: MFT $mft of $colors0 colors in arrival order: max EFI $efi0 -> $efi, $x extensions"
done <<'EOF'
k|--pods 10 --leaves 8 --hosts-per-leaf 8 --middles 2 --tops 4 --uplinks 4|32x8x10 --ppn 4
l|--pods 16 --leaves 16 --hosts-per-leaf 16 --middles 4 --tops 8 --uplinks 4|64x16x16 --ppn 4
m|--pods 16 --leaves 8 --hosts-per-leaf 8 --middles 2 --tops 4 --uplinks 2|32x8x16 --ppn 4
n|--pods 8 --leaves 17 --hosts-per-leaf 16 --middles 4 --tops 8 --uplinks 4|32x16x17 --ppn 4
EOF
[ "$ext" -gt 0 ] || fail "no merge extended a neighbouring tree"
echo "PASS: $n pruned3 fabrics, 4 in arrival order"
