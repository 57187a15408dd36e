#!/bin/bash
# The topology parser agrees with ibsim: for every bundled fabric, ibsim
# loads the net file, ibnetdiscover (the real tool) walks it, and the
# canonical listing (ibsmgen dump) of the net file equals that of
# ibnetdiscover's output: same node GUIDs, types, port counts,
# NodeDescriptions, CA port GUIDs and links.
. tests/integration/lib.sh
need ibnetdiscover
[ -x "$O/ibsmgen" ] || fail "$O/ibsmgen not built"
# Also ibsim's own examples (2-port HCAs, parallel links) and one fabric
# beyond ibsim's default limits, so the -N/-S/-P helper is exercised.
"$O/ibsmgen" fattree2 --hosts 2100 --radix 66 -o "$T/ft2-2100.net" ||
	fail "ibsmgen fattree2"
n=0
for net in tests/data/*.net tests/data/topo/*.net \
	/usr/share/doc/ibsim-utils/net-examples/net* \
	"$T/ft2-2100.net"; do
	[ -f "$net" ] || continue
	name=$(basename "$net" .net)
	"$O/ibsmgen" dump "$net" >"$T/$name.file" || fail "$net does not parse"
	args=$("$O/ibsmgen" ibsim-args "$net") || fail "ibsim-args $net"
	# shellcheck disable=SC2086
	start_ibsim "$net" $args
	sim ibnetdiscover >"$T/$name.disc" 2>"$T/$name.err" ||
		fail "ibnetdiscover on $name: $(tail -3 "$T/$name.err")"
	kill "$IBSIM_PID"; wait "$IBSIM_PID" 2>/dev/null; IBSIM_PID=
	exec {IBSIM_FIFO_FD}>&-; IBSIM_FIFO_FD=; rm -f "$T/ibsim.in"
	"$O/ibsmgen" dump "$T/$name.disc" >"$T/$name.sim" ||
		fail "ibnetdiscover output of $name does not parse"
	if ! diff -u "$T/$name.file" "$T/$name.sim" >"$T/$name.diff"; then
		head -40 "$T/$name.diff"
		fail "$name: net file and ibnetdiscover disagree"
	fi
	echo "ok $name: $(head -1 "$T/$name.file")"
	n=$((n + 1))
done
[ "$n" -gt 0 ] || fail "no tests/data/*.net files"
echo "PASS: $n fabrics agree with ibsim"
