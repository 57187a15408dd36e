#!/bin/bash
# End-to-end multicast check through the programs a user runs: ibsmgen
# makes small fabrics, ibsmpattern a grid, a random set and a churn mix
# (every group deleted in the end), ibsmroute routes them with every
# engine.  Asserts what an operator would look at: the JSON report says
# verified with height excess 0 and no merge for the baselines; after the
# churn no group, tree or color is left and the dumps hold no entry.
#   O=build tests/bench/mcast-churn.sh      (a few seconds)
set -euo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
O=${O:-build}
case $O in /*) ;; *) O=$TOP/$O ;; esac
T=$(mktemp -d)
. "$(dirname "$0")/../procs.bash"
procs_guard 'rm -rf "$T"'
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }
field() { jq -r ".multicast.$1" "$2"; }

"$O/ibsmgen" fattree3 --k 8 -o "$T/ft.topo"
"$O/ibsmgen" torus 4 4 3 --hosts-per-switch 2 -o "$T/torus.topo"
"$O/ibsmgen" random --switches 24 --ports 12 --hosts-per-switch 4 --seed 3 -o "$T/rnd.topo"

for topo in ft torus rnd; do
	tf=$T/$topo.topo
	"$O/ibsmpattern" "$tf" random --count 60 --size 2-12 --seed 7 -o "$T/$topo.rand" 2>/dev/null
	"$O/ibsmpattern" "$tf" grid 8x4x3 --shuffle 5 -o "$T/$topo.grid" 2>/dev/null
	"$O/ibsmpattern" "$tf" churn --count 150 --size 2-10 --live 25 --seed 9 \
		-o "$T/$topo.churn" 2>/dev/null
	for eng in minhop minhop-rr sssp sssp-rr fulb mr4lms; do
		for pat in rand grid; do
			j=$T/$topo.$pat.$eng.json
			"$O/ibsmroute" "$tf" --mcast-engine "$eng" --groups "$T/$topo.$pat" \
				--json "$j" 2>"$T/err" || { bad "$topo $pat $eng: $(tail -1 "$T/err")"; continue; }
			[ "$(field verified "$j")" = true ] || bad "$topo $pat $eng: not verified"
			[ "$(field max_height_excess "$j")" = 0 ] || bad "$topo $pat $eng: height excess"
			[ "$(field groups "$j")" = "$(grep -c '^+' "$T/$topo.$pat")" ] ||
				bad "$topo $pat $eng: group count"
			if [ "$eng" != mr4lms ]; then
				[ "$(field merged_groups "$j")" = 0 ] || bad "$topo $pat $eng: merged"
			fi
		done
		j=$T/$topo.churn.$eng.json
		rm -rf "$T/d" && mkdir "$T/d"
		"$O/ibsmroute" "$tf" --mcast-engine "$eng" --groups "$T/$topo.churn" \
			--json "$j" --dump-dir "$T/d" 2>"$T/err" ||
			{ bad "$topo churn $eng: $(tail -1 "$T/err")"; continue; }
		for k in groups trees colors_used; do
			[ "$(field $k "$j")" = 0 ] || bad "$topo churn $eng: $k left"
		done
		[ ! -s "$T/d/mcgroups.dump" ] || bad "$topo churn $eng: mcgroups.dump not empty"
		if [ -f "$T/d/mfts.dump" ] && grep -qi '^0x[cC]0' "$T/d/mfts.dump"; then
			bad "$topo churn $eng: MFT entries left"
		fi
	done
	echo "ok: $topo (6 engines x random, shuffled grid, churn)"
done
exit $fail
