#!/bin/bash
# ibsmroute and the daemon agree (docs/design.md §1): on every bundled fabric,
# ibsmd --once under ibsim and ibsmroute on the same net file give the same
# LIDs (guid2lid) and the same forwarding tables (lfts.dump, compared per
# switch GUID and LID, since the two list switches in different orders).
# ftree (the default) and minhop by default; ENGINES="ftree minhop
# updown" checks updown too (its tables still depend on the order of
# nodes in the model: discovery order vs file order).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bringup_common.bash"
need ibsim python3
[ -x "$IBSMD" ] || skip "ibsmd not built"
# libumad2sim's read() copies a whole MAD out of a smaller buffer of its
# own (a heap over-read outside our code) which ASan's memcpy check stops
# in SAN builds; replace_intrin=0 leaves memcpy unchecked, nothing else.
export ASAN_OPTIONS=$ASAN_OPTIONS:replace_intrin=0

# "GUID LID PORT" lines from an lfts.dump, sorted.
lft_entries() {
	awk '/^Unicast lids/ { for (i = 1; i <= NF; i++) if ($i == "guid") g = $(i + 1) }
	     /^0x/ { print g, $1, $2 }' "$1" | sort
}

nets=$(ls "$TOP"/tests/data/*.net 2>/dev/null)
[ -n "$nets" ] || skip "no bundled fabrics in tests/data"
for net in $nets; do
	name=$(basename "$net" .net)
	start_sim "$net"
	for engine in ${ENGINES:-ftree minhop}; do
		st=$T/state-$engine off=$T/off-$engine
		sim "$IBSMD" --once --state-dir "$st" -o routing.unicast=$engine -o dumps=lfts \
			-o log.level=warn >"$T/ibsmd-$engine.log" 2>&1 ||
			{ tail -5 "$T/ibsmd-$engine.log"; fail "$name: ibsmd --once ($engine) exited $?"; }
		"$O/ibsmroute" "$net" --routing $engine --dump-dir "$off" \
			>/dev/null 2>"$T/ibsmroute.err" ||
			{ cat "$T/ibsmroute.err"; fail "$name: ibsmroute ($engine) failed"; }
		diff <(grep . "$st/guid2lid" | sort) <(grep . "$off/guid2lid" | sort) \
			>"$T/g2l.diff" ||
			{ head "$T/g2l.diff"; fail "$name: LIDs differ between ibsmd and ibsmroute"; }
		lft_entries "$st/lfts.dump" >"$T/lft.daemon"
		lft_entries "$off/lfts.dump" >"$T/lft.offline"
		[ -s "$T/lft.daemon" ] || fail "$name: empty lfts.dump from ibsmd"
		diff "$T/lft.daemon" "$T/lft.offline" >"$T/lft.diff" ||
			{ head -4 "$T/lft.diff"; fail "$name ($engine): $(grep -c '^<' "$T/lft.diff") LFT entries differ"; }
		echo "ok $name $engine: $(grep -c . "$T/lft.daemon") LFT entries, $(grep -c . "$st/guid2lid") LIDs agree"
		# The next ibsmd run must start from scratch LIDs as well.
		rm -rf "$st"
	done
done
stop_sim
echo PASS
