#!/bin/bash
# The VL checker (vl_check.py) proven on OpenSM 3.3.23 under ibsim, and the
# layered engine judged by the same code beside it on the same fabrics.
#
# For torus-small, dragonfly-small and random-small: OpenSM routes with Nue
# on 8 VLs (nue_max_num_vls 8, and qos TRUE: without QoS OpenSM writes no
# SL2VL table and Nue falls back to one VL); the LFTs are read back with
# ibroute, every CA pair's SL from its PathRecord (sa_paths: the real SA,
# one process), every switch's SL2VL tables with smpquery; every pair must
# be delivered and the (link, VL) dependency graph acyclic.  Negative
# control: OpenSM minhop on torus-small (SL0 everywhere) must show a cycle.
# ibsmroute --routing layered on the same fabric, checked by the same code
# on its dumps (SL2VL: VL = SL), must be delivered and acyclic too, and
# its busiest link at most 1.1x the better of Nue's and ibsmd minhop's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vl_common.bash"
. "$(dirname "$0")/bringup_common.bash"
need ibsim opensm ibnetdiscover ibroute smpquery python3
[ -x "$SA_PATHS" ] || fail "$SA_PATHS not built"

field() { # field NAME LINE
	sed -n "s/.*\<$1=\([0-9.]*\).*/\1/p" <<<"$2"
}

for name in torus-small dragonfly-small random-small; do
	net=$TOP/tests/data/$name.net
	start_sim "$net"
	start_opensm "nue-$name" nue "nue_max_num_vls 8" "qos TRUE"
	read_vl_back "$T/nue-$name"
	stop_opensm
	nue=$(python3 "$VL_CHECK" live "$T/nue-$name" --expect-acyclic) ||
		fail "$name: OpenSM nue: $nue"
	echo "ok $name OpenSM nue 8 VLs: $nue"

	"$O/ibsmroute" "$net" --dump-dir "$T/mh-$name" >/dev/null 2>&1 ||
		fail "$name: ibsmroute minhop failed"
	mh=$(python3 "$VL_CHECK" dump "$T/mh-$name") || fail "$name: minhop: $mh"
	"$O/ibsmroute" "$net" --routing layered --max-vls 8 \
		--dump-dir "$T/lay-$name" >"$T/lay-$name.out" 2>&1 ||
		fail "$name: ibsmroute layered: $(cat "$T/lay-$name.out")"
	lay=$(python3 "$VL_CHECK" dump "$T/lay-$name" --expect-acyclic) ||
		fail "$name: layered: $lay"
	echo "ok $name ibsmd layered 8 VLs: $lay"
	n=$(field max_link_routes "$nue")
	m=$(field max_link_routes "$mh")
	l=$(field max_link_routes "$lay")
	best=$((n < m ? n : m))
	[ $((l * 10)) -le $((best * 11)) ] ||
		fail "$name: layered's busiest link $l > 1.1 x $best (nue $n, minhop $m)"
	echo "   busiest link: layered $l, OpenSM nue $n, ibsmd minhop $m"
done

# negative control: min-hop on a torus, every pair on SL0
start_sim "$TOP/tests/data/torus-small.net"
start_opensm minhop-torus minhop
read_vl_back "$T/minhop-torus"
stop_opensm
out=$(python3 "$VL_CHECK" live "$T/minhop-torus" --expect-cycle) ||
	fail "OpenSM minhop on torus-small: the checker found no cycle: $out"
echo "ok torus-small OpenSM minhop: cycle found: $(tail -1 <<<"$out" | cut -c1-120)"
stop_sim
echo PASS
