#!/bin/bash
# ibsmd --once -o routing.unicast=updown under ibsim on a fat tree, a torus
# and a random irregular fabric (plus the dragonfly): the tables read back
# with ibroute are walked for every host pair (updown_walk.py, no code of
# ours): all delivered, no down->up turn against the roots ibsmd dumped,
# channel-dependency graph acyclic; ibdmchk -u -r on ibsmd's dumps finds no
# credit loop.  OpenSM -R updn runs on the same fabric for comparison (its
# figures are printed, not judged: on tori it finds no roots and falls
# back to min-hop, which has credit loops).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bringup_common.bash"
need ibsim ibnetdiscover ibroute ibdmchk python3

for name in ft3-small torus-small random-small dragonfly-small; do
	net=$TOP/tests/data/$name.net
	[ -f "$net" ] || fail "missing $net"
	read -r nodes nca < <(net_counts "$net")

	start_sim "$net"
	st=$T/state
	sim "$IBSMD" --once --state-dir "$st" -o log.level=notice -o dumps=subnet,fdbs,mfts \
		-o routing.unicast=updown >"$T/ibsmd.log" 2>&1 ||
		{ tail -5 "$T/ibsmd.log"; fail "$name: ibsmd --once exited $?"; }
	[ -s "$st/updn-roots.dump" ] || fail "$name: no updn-roots.dump"
	read_back "$T/ours"
	python3 "$TOP/tests/integration/updown_walk.py" "$T/ours/netdisc" \
		"$T/ours/lft" --roots "$st/updn-roots.dump" --expect-acyclic \
		>"$T/ours.walk" 2>&1 || { cat "$T/ours.walk"; fail "$name: walk"; }
	check_ibdmchk "$st" "$nodes" "$nca"
	(cd "$st" && ibdmchk -s subnet.lst -f fdbs -m mfts.dump -u \
		-r updn-roots.dump >ibdmchk-u.out 2>&1) 2>/dev/null
	grep -q -- "-I- No credit loops found in:$((nca * (nca - 1))) CA to CA paths" \
		"$st/ibdmchk-u.out" ||
		fail "$name: ibdmchk -u: $(grep -m3 -- '-E-' "$st/ibdmchk-u.out")"
	echo "ok $name ibsmd updown: $(tail -1 "$T/ours.walk")" \
		"roots=$(wc -l <"$st/updn-roots.dump"); ibdmchk -u clean"

	# DFS directions (irregular fabrics): ranks do not describe them, so
	# the walk checks the dependency graph and ibdmchk its full check
	if [ "$name" = random-small ]; then
		mkdir -p "$BASE_T/nets"
		cp "$net" "$BASE_T/nets/dfs-$name.net"
		start_sim "$BASE_T/nets/dfs-$name.net"
		sim "$IBSMD" --once --state-dir "$T/state-dfs" -o log.level=notice -o dumps=subnet,fdbs,mfts \
			-o routing.unicast=updown -o routing.updown.direction=dfs \
			>"$T/ibsmd-dfs.log" 2>&1 ||
			{ tail -5 "$T/ibsmd-dfs.log"; fail "$name: ibsmd dfs exited $?"; }
		read_back "$T/dfs"
		python3 "$TOP/tests/integration/updown_walk.py" "$T/dfs/netdisc" \
			"$T/dfs/lft" --expect-acyclic >"$T/dfs.walk" 2>&1 ||
			{ cat "$T/dfs.walk"; fail "$name: dfs walk"; }
		check_ibdmchk "$T/state-dfs" "$nodes" "$nca"
		grep -q -- '-I- no credit loops found' "$T/state-dfs/ibdmchk.out" ||
			fail "$name: ibdmchk finds credit loops in dfs updown"
		echo "ok $name ibsmd updown dfs: $(tail -1 "$T/dfs.walk")"
	fi

	# OpenSM on a fresh simulator, same fabric (own scratch dir)
	mkdir -p "$BASE_T/nets"
	cp "$net" "$BASE_T/nets/opensm-$name.net"
	start_sim "$BASE_T/nets/opensm-$name.net"
	if command -v opensm >/dev/null; then
		mkdir -p "$T/osm"
		opensm -c "$T/osm.conf" >/dev/null 2>&1
		sed -i "s#^dump_files_dir .*#dump_files_dir $T/osm/#;
			s#^log_file .*#log_file $T/osm/opensm.log#" "$T/osm.conf"
		timeout 120 env LD_PRELOAD="$UMAD2SIM" opensm -F "$T/osm.conf" \
			-o -R updn >"$T/osm/stdout" 2>&1
		read_back "$T/theirs"
		python3 "$TOP/tests/integration/updown_walk.py" \
			"$T/theirs/netdisc" "$T/theirs/lft" >"$T/theirs.walk" 2>&1
		note=
		grep -q "disabling UPDN algorithm" "$T/osm/opensm.log" &&
			note=" (OpenSM found no roots: min-hop)"
		echo "   $name OpenSM updn:  $(tail -1 "$T/theirs.walk")$note"
	fi
done
stop_sim
echo PASS
