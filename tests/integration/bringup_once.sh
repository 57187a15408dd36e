#!/bin/bash
# ibsmd --once on every bundled small fabric under ibsim: exit 0, then,
# read back with the real tools, every port ACTIVE with a unique LID, every
# host pair delivered by the programmed LFTs on a shortest path, and
# ibdmchk finding no error in the dumps ibsmd wrote when asked for them
# (dumps=...).  Besides the bundled fabrics, ibsim's own example with the
# SM on a switch and parallel switch-to-switch links, when installed.  At
# the end, a run with the default dumps writes guid2lid and subnet.lst
# but not the big per-LID tables (lfts.dump, fdbs), and a run asking for
# an unknown dump is refused with exit 2.
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
		-o dumps=subnet,lfts,fdbs,mfts >"$T/ibsmd.log" 2>&1 ||
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
# The default dumps: cheap at any size.
st=$T/state-default
sim "$IBSMD" --once --state-dir "$st" -o log.level=info >"$T/default.log" 2>&1 ||
	{ tail -5 "$T/default.log"; fail "default dumps: ibsmd --once exited $?"; }
for f in guid2lid subnet.lst; do
	[ -s "$st/$f" ] || fail "default dumps: $f missing or empty"
done
for f in lfts.dump fdbs; do
	[ ! -e "$st/$f" ] || fail "default dumps: $f written though not asked for"
done
# The subnet is up before any dump is written.
up=$(grep -n 'subnet up' "$T/default.log" | head -1 | cut -d: -f1)
dw=$(grep -n 'dumps written' "$T/default.log" | head -1 | cut -d: -f1)
[ -n "$up" ] && [ -n "$dw" ] && [ "$up" -lt "$dw" ] ||
	fail "default dumps: 'subnet up' (line ${up:-none}) not before 'dumps written' (line ${dw:-none})"
"$IBSMD" --check-config -o dumps=subnet,lfs >"$T/bad.out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q 'dumps: "lfs" is not one of' "$T/bad.out" ||
	fail "unknown dump name: exit $rc, $(cat "$T/bad.out")"
stop_sim
