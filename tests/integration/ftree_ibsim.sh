#!/bin/bash
# Fat trees routed by the default configuration, judged on the tables read
# back: `ibsmd --once` under ibsim, every switch's LFT read with ibroute,
# then ftree_check.py (no code of ours) walks every host pair and every
# shift permutation over the hosts in cabling order and counts the flows
# on every switch-to-switch link.  OpenSM 3.3.23 `-R ftree` runs on the
# same fabric in the same test (where ftree refuses the tree, OpenSM falls
# back to its minhop: that is what it gives there).
#   - full trees (2 levels of radix 12 and 16, 3 levels of k = 6 and 8):
#     every shift congestion-free, all pairs equal to OpenSM ftree's;
#   - pruned trees (2 and 3 levels) and trees with a missing link or a
#     missing switch: mean busiest link over the shifts and all-pairs
#     busiest link no worse than OpenSM's;
#   - LMC 1 and 2: each LID offset as good as above (against OpenSM's
#     minhop with the same LMC: its ftree has no LMC), and at every switch
#     the LIDs of a remote host leave by different ports wherever it has
#     that many min-hop ports; minhop and updown as well, each offset as
#     well balanced as the base LIDs;
#   - updown (its roots the top level) as good as ftree on a full tree;
#   - ftree-ca-order.dump lists the hosts in cabling order.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bringup_common.bash"
need ibsim ibnetdiscover ibroute python3
command -v opensm >/dev/null || skip "opensm not installed"
CHECK=$TOP/tests/integration/ftree_check.py
G=$T/nets
mkdir -p "$G"

# degrade SRC DST NODE[:PORT]...: SRC without those links or switches.
degrade() { python3 "$TOP/tests/integration/net_degrade.py" "$@"; }

# run_sm NAME NET SM ARGS...: the SM on a fresh ibsim, its tables read
# back into $G/NAME (ibsmd: with its state directory in $G/NAME/state).
run_sm() {
	local name=$1 net=$2 sm=$3 d=$G/$1; shift 3
	mkdir -p "$d"
	T=$d # each simulator in a directory of its own (its FIFO, sys-PID)
	start_ibsim "$net" $("$O/ibsmgen" ibsim-args "$net")
	if [ "$sm" = ibsmd ]; then
		sim "$IBSMD" --once --state-dir "$d/state" -o log.level=info \
			"$@" >"$d/sm.log" 2>&1 ||
			{ tail -5 "$d/sm.log"; fail "$name: ibsmd --once exited $?"; }
	else
		mkdir -p "$d/osm"
		OSM_CACHE_DIR=$d/osm sim timeout 300 opensm --once \
			-f "$d/sm.log" "$@" >/dev/null 2>&1 ||
			fail "$name: opensm --once $* failed (see $d/sm.log)"
	fi
	read_back "$d"
	stop_sim
}

# judge NAME [ftree_check.py options]: the walk of NAME's tables.
judge() {
	local name=$1 d=$G/$1; shift
	python3 "$CHECK" "$d/netdisc" "$d/lft" --json "$d/loads.json" "$@" \
		>"$d/check" 2>&1 || { cat "$d/check"; fail "$name: $(tail -1 "$d/check")"; }
	echo "   $name: $(tail -1 "$d/check")"
}

# fabric NAME NET KIND: ibsmd with the defaults and OpenSM -R ftree; KIND
# full: every shift congestion-free and all pairs equal to OpenSM's;
# other: no worse than OpenSM's.
fabric() {
	local name=$1 net=$2 kind=$3 fb=
	run_sm "$name-osm" "$net" opensm -R ftree
	grep -qiE "fat-tree routing failed|falling back|not identified as FatTree|AB0D" \
		"$G/$name-osm/sm.log" && fb=" (OpenSM: ftree refused, minhop)"
	judge "$name-osm"
	run_sm "$name" "$net" ibsmd
	[ -s "$G/$name/state/ftree-ca-order.dump" ] || fail "$name: no ftree-ca-order.dump"
	if [ "$kind" = full ]; then
		judge "$name" --order "$G/$name/state/ftree-ca-order.dump" \
			--expect-congestion-free --no-worse-than "$G/$name-osm/loads.json"
		python3 -c 'import json, sys
a, b = (json.load(open(p))["offsets"][0]["all_pairs"] for p in sys.argv[1:])
sys.exit(a != b)' "$G/$name/loads.json" "$G/$name-osm/loads.json" ||
			fail "$name: all pairs differ from OpenSM ftree's"
	else
		judge "$name" --order "$G/$name/state/ftree-ca-order.dump" \
			--no-worse-than "$G/$name-osm/loads.json"
	fi
	echo "ok $name ($kind)$fb"
}

"$O/ibsmgen" fattree2 --hosts 128 --radix 16 -o "$G/ft2-r16.net"
"$O/ibsmgen" fattree2 --hosts 72 --radix 12 -o "$G/ft2-r12.net"
"$O/ibsmgen" fattree3 --k 8 -o "$G/ft3-k8.net"
"$O/ibsmgen" fattree2 --hosts 96 --radix 16 --uplinks 4 -o "$G/pruned2.net"
"$O/ibsmgen" pruned3 --pods 4 --leaves 4 --hosts-per-leaf 8 --middles 4 \
	--tops 8 --uplinks 4 -o "$G/pruned3.net"
# k = 8: S1 is a leaf, ports 5..8 its uplinks; S33 a middle switch of pod 0
degrade "$G/ft3-k8.net" "$G/ft3-k8-link.net" S1:5
degrade "$G/ft3-k8.net" "$G/ft3-k8-switch.net" S33

fabric ft2-r16 "$G/ft2-r16.net" full
fabric ft2-r12 "$G/ft2-r12.net" full
fabric ft3-k6 "$TOP/tests/data/ft3-small.net" full
fabric ft3-k8 "$G/ft3-k8.net" full
fabric pruned2 "$G/pruned2.net" other
fabric pruned3 "$G/pruned3.net" other
fabric ft3-k8-link "$G/ft3-k8-link.net" other
fabric ft3-k8-switch "$G/ft3-k8-switch.net" other

# LMC: OpenSM's ftree routes no LMC, so its minhop with the same LMC
for lmc in 1 2; do
	net=$G/ft2-r12.net; [ $lmc = 2 ] && net=$G/ft3-k8.net
	run_sm lmc$lmc-osm "$net" opensm -l $lmc
	judge lmc$lmc-osm --lmc $lmc
	run_sm lmc$lmc "$net" ibsmd -o sm.lmc=$lmc
	judge lmc$lmc --lmc $lmc --lmc-distinct --lmc-balanced --expect-congestion-free \
		--no-worse-than "$G/lmc$lmc-osm/loads.json"
	echo "ok LMC $lmc"
done
for engine in minhop updown; do
	run_sm $engine-lmc2 "$G/ft2-r12.net" ibsmd -o sm.lmc=2 -o routing.unicast=$engine
	judge $engine-lmc2 --lmc 2 --lmc-distinct --lmc-balanced
	echo "ok $engine LMC 2"
done

run_sm updown "$TOP/tests/data/ft3-small.net" ibsmd -o routing.unicast=updown
judge updown --expect-congestion-free --no-worse-than "$G/ft3-k6-osm/loads.json"
echo "ok updown on the full tree"
echo PASS
