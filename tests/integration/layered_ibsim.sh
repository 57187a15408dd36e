#!/bin/bash
# routing.unicast: layered in the daemon, judged on what the fabric says
# (the checker of layered_opensm.sh, proven there on OpenSM's Nue): ibsmd
# runs under ibsim; the LFTs are read back with ibroute, every CA pair's SL
# from its PathRecord (sa_paths: the real SA), every switch's SL2VL tables
# with smpquery; vl_check.py walks every pair and builds the (link, VL)
# dependency graph.
#   - 3-D torus (3x3x3, odd): routing.layered.max_vls 1, 2, 4 and 8, every
#     pair delivered and the graph acyclic; more than one SL used from 2
#     VLs on; the busiest link at 8 no worse than 1.1x ibsmd minhop's on
#     the same fabric; a heavy sweep of the unchanged fabric re-sends no
#     SL2VL block; status shows the layers, and the daemon's own
#     path-sl.dump and lfts.dump (ibsmctl dump) pass the same checker with
#     the same busiest link and SLs; after a link is lost, the incremental repair keeps the
#     layers and the trees the loss left whole, and its tables and SLs are
#     delivered and acyclic again;
#   - LMC 1: every LID of every range delivered on its own SL, acyclic;
#   - 2-D torus 4x4 (even) with 2 hosts a switch, HyperX 4x4, the
#     dragonfly and the random fabric (default max_vls; the random one at
#     2 too): delivered and acyclic;
#   - a fat tree: one layer suffices, every pair on SL0 and no SL2VL block
#     written;
#   - negative control: ibsmd minhop on the torus, every pair on SL0: the
#     checker must find a cycle.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/vl_common.bash"
. "$(dirname "$0")/bringup_common.bash"
need ibsim ibnetdiscover ibroute ibtracert smpquery python3
[ -x "$SA_PATHS" ] || fail "$SA_PATHS not built"
DPID=
stop_ibsmd() {
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null
	wait "$DPID" 2>/dev/null
	DPID=
}
trap 'stop_ibsmd; cleanup' EXIT
ctl() { "$IBSMCTL" -s "$T/sock" "$@"; }
field() { ctl status 2>/dev/null | awk -v k="$1" '$1 == k { print $2 }'; }

# wait_idle MIN_HEAVY: until MASTER, MIN_HEAVY heavy sweeps and idle.
wait_idle() {
	for _ in $(seq 300); do
		[ "$(field sm_state)" = MASTER ] &&
			[ "$(field heavy_sweeps)" -ge "$1" ] 2>/dev/null &&
			[ "$(field sweep_state)" = IDLE ] && return 0
		kill -0 "$DPID" 2>/dev/null || break
		sleep 0.2
	done
	tail -20 "$T/ibsmd.log"
	fail "ibsmd did not bring the subnet up"
}

# run NAME NET [ibsmd -o args]: a fresh ibsim on NET and ibsmd routing
# layered (unless the args say otherwise), up and idle; its tables read
# back into $T/NAME (every LID of an LMC range when $LMC is set).  Leaves
# both running.
run() {
	local name=$1 net=$2; shift 2
	stop_ibsmd
	stop_sim
	T=$BASE_T/$name
	mkdir -p "$T/state"
	# shellcheck disable=SC2046
	start_ibsim "$net" $("$O/ibsmgen" ibsim-args "$net")
	LD_PRELOAD="$UMAD2SIM${LD_PRELOAD:+:$LD_PRELOAD}" "$IBSMD" \
		--state-dir "$T/state" -o control_socket="$T/sock" \
		-o log.level=info -o routing.unicast=layered "$@" \
		>>"$T/ibsmd.log" 2>&1 &
	DPID=$!
	wait_idle 1
	read_vl_back "$T/$name" "${LMC:-0}"
}

# judge NAME EXPECTATION [vl_check.py options]: vl_check.py on NAME's tables; prints its line.
judge() {
	local out
	out=$(python3 "$VL_CHECK" live "$T/$1" "${@:2}") || fail "$1: $out"
	echo "ok $1: $(tail -1 <<<"$out" | cut -c1-200)"
	LAST=$(grep -m1 "max_link_routes=" <<<"$out")
}
num() { sed -n "s/.*\<$1=\([0-9.]*\).*/\1/p" <<<"$2"; }
sls() { awk '{ print $3 }' "$T/$1/paths" | sort -un | paste -sd,; }

G=$BASE_T/nets
mkdir -p "$G"
TORUS=$TOP/tests/data/torus-small.net

# the negative control first: minhop's cycles on the torus, all on SL0
run minhop-torus "$TORUS" -o routing.unicast=minhop
judge minhop-torus --expect-cycle
MH=$(num max_link_routes "$LAST")
[ "$(sls minhop-torus)" = 0 ] || fail "minhop: SLs $(sls minhop-torus), want 0"

for vls in 1 2 4 8; do
	run "torus-vl$vls" "$TORUS" -o routing.layered.max_vls=$vls
	judge "torus-vl$vls" --expect-acyclic
	used=$(sls "torus-vl$vls")
	echo "   SLs answered: $used"
	if [ "$vls" = 1 ]; then
		[ "$used" = 0 ] || fail "max_vls 1: SLs $used, want 0"
		[ "$(field smps_sl2vl_sets)" = 0 ] ||
			fail "max_vls 1: $(field smps_sl2vl_sets) SL2VL blocks written"
	else
		[ "$used" != 0 ] || fail "max_vls $vls: every pair on SL0"
		# SL0 is multicast's: a layer's SL is 1 + the layer
		grep -qw "^[0-9]* [0-9]* 0$" "$T/torus-vl$vls/paths" &&
			fail "max_vls $vls: a pair on SL0"
		[ "$(field smps_sl2vl_sets)" -gt 0 ] || fail "max_vls $vls: no SL2VL block written"
	fi
done
L8=$(num max_link_routes "$LAST")
echo "   busiest link: layered 8 VLs $L8, minhop $MH"
[ $((L8 * 10)) -le $((MH * 11)) ] || fail "layered's busiest link $L8 > 1.1 x minhop's $MH"
grep -q "multicast keeps one: 7 layers" "$T/ibsmd.log" ||
	fail "max_vls 8 on 8 VLs: no notice of the multicast VL"

# what an operator sees: the layers in status, and the daemon's own dumps
# (path-sl.dump with the SLs its SA answers), judged by the checker with
# VL = SL as it judges ibsmroute's: the same routes as read back
[ "$(field layers_made)" = 7 ] && [ "$(field layers_used)" = 7 ] ||
	fail "status: layers_made $(field layers_made) layers_used $(field layers_used), want 7 7"
ctl dump "$T/own" >/dev/null || fail "ibsmctl dump"
[ -s "$T/own/path-sl.dump" ] || fail "ibsmctl dump wrote no path-sl.dump"
own=$(python3 "$VL_CHECK" dump "$T/own" --expect-acyclic) || fail "own dumps: $own"
[ "$(num max_link_routes "$own")" = "$L8" ] && [ "$(sed -n 's/.* sls=\([^ ]*\).*/\1/p' <<<"$own")" = "$(sls torus-vl8)" ] ||
	fail "the daemon's dumps disagree with the tables read back: $own"
echo "ok the daemon's own dumps: $own"

# an unchanged fabric: a heavy sweep re-sends no SL2VL block
sent=$(field smps_sl2vl_sets)
h=$(field heavy_sweeps)
ctl sweep >/dev/null || fail "ibsmctl sweep"
wait_idle $((h + 1))
[ "$(field smps_sl2vl_sets)" = "$sent" ] ||
	fail "heavy sweep of an unchanged fabric: SL2VL blocks $sent -> $(field smps_sl2vl_sets)"
echo "ok heavy sweep of the unchanged torus: SL2VL blocks stay $sent"

# a link lost: the incremental repair's tables and SLs, read back, are
# delivered and acyclic again
inc=$(field incremental_sweeps)
ibsim_cmd 'Unlink "S1"[2]'
for _ in $(seq 150); do
	[ "$(field incremental_sweeps)" -gt "$inc" ] &&
		[ "$(field sweep_state)" = IDLE ] && break
	sleep 0.2
done
[ "$(field incremental_sweeps)" -gt "$inc" ] || fail "no incremental sweep after the link loss"
read_vl_back "$T/torus-cut"
judge torus-cut --expect-acyclic
grep -q "repair kept the layers and every tree the failure left whole" "$T/ibsmd.log" ||
	fail "the link loss was not repaired keeping the layers: $(grep -m1 'layered: repair' "$T/ibsmd.log")"
echo "ok $(grep -o 'repair kept .*' "$T/ibsmd.log" | tail -1)"

"$O/ibsmgen" torus 4 4 1 --hosts-per-switch 2 -o "$G/t44h2.net" || fail ibsmgen
"$O/ibsmgen" hyperx 4 4 -o "$G/hx44.net" || fail ibsmgen
"$O/ibsmgen" fattree3 --k 4 -o "$G/ft4.net" || fail ibsmgen
for f in "$G/t44h2.net" "$G/hx44.net" "$TOP/tests/data/dragonfly-small.net" \
	"$TOP/tests/data/random-small.net"; do
	name=$(basename "$f" .net)
	run "$name" "$f"
	judge "$name" --expect-acyclic
done
run random-vl2 "$TOP/tests/data/random-small.net" -o routing.layered.max_vls=2
judge random-vl2 --expect-acyclic

# LMC 1: each LID of a range has its own tree and so its own SL
LMC=1 run torus-lmc1 "$TORUS" -o sm.lmc=1
judge torus-lmc1 --expect-acyclic --lmc 1
differ=$(awk '{ sl[$1 " " $2] = $3 }
	END { for (k in sl) { split(k, p, " ")
		if (p[2] % 2 == 0 && (p[1] " " p[2] + 1) in sl && sl[p[1] " " p[2] + 1] != sl[k]) n++ }
		print n + 0 }' "$T/torus-lmc1/paths")
[ "$differ" -gt 0 ] || fail "LMC 1: both LIDs of every range answered the same SL"
echo "ok LMC 1: $differ pairs whose two DLIDs of one range take different SLs"

# a fat tree: one layer, SL0, no SL2VL block
run ft4 "$G/ft4.net"
judge ft4 --expect-acyclic
[ "$(sls ft4)" = 0 ] || fail "fat tree: SLs $(sls ft4), want 0"
[ "$(field smps_sl2vl_sets)" = 0 ] ||
	fail "fat tree: $(field smps_sl2vl_sets) SL2VL blocks written"
echo "ok fat tree: every pair on SL0, no SL2VL block"
stop_ibsmd
stop_sim
echo PASS
