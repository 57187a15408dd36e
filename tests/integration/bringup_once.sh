#!/bin/bash
# ibsmd --once on every bundled small fabric under ibsim: exit 0, then,
# read back with the real tools, every port ACTIVE with a unique LID, every
# host pair delivered by the programmed LFTs on a shortest path, and
# ibdmchk finding no error in the dumps ibsmd wrote.  Besides the bundled
# fabrics, ibsim's own example with the SM on a switch and parallel
# switch-to-switch links, when installed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bringup_common.bash"
need ibsim ibnetdiscover iblinkinfo ibroute ibdmchk python3

nets=$(ls "$TOP"/tests/data/*.net 2>/dev/null)
[ -n "$nets" ] || fail "no bundled fabrics in tests/data"
example=/usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca
[ -f "$example" ] && nets="$nets $example"
for net in $nets; do
	name=$(basename "$net" .net)
	case $name in net.*) name=ibsim-${name#net.} ;; esac
	start_sim "$net"
	st=$T/state
	sim "$IBSMD" --once --state-dir "$st" -o log.level=notice \
		>"$T/ibsmd.log" 2>&1 ||
		{ tail -5 "$T/ibsmd.log"; fail "$name: ibsmd --once exited $?"; }
	for f in subnet.lst lfts.dump fdbs guid2lid mfts.dump; do
		[ -s "$st/$f" ] || [ "$f" = mfts.dump ] ||
			fail "$name: $st/$f missing or empty"
	done
	check_fabric "$T/check"
	read -r nodes nca < <(net_counts "$net")
	check_ibdmchk "$st" "$nodes" "$nca"
	echo "ok $name: $nodes nodes, ibdmchk clean"
done
stop_sim
