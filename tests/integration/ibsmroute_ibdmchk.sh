#!/bin/bash
# ibsmroute (ftree, minhop and updown) on every bundled fabric
# (tests/data/*.net),
# then the dumps are
# checked by a program that does not share our code: ibdmchk (ibutils)
# must parse every link and LFT entry, find no error and scan every
# CA-to-CA path; the JSON report must say 0 unreachable pairs and agree
# with the file on switches, hosts and links.  No ibsim needed.
. "$(dirname "$0")/lib.sh"
need ibdmchk python3

nets=$(ls "$TOP"/tests/data/*.net 2>/dev/null)
if [ -z "$nets" ]; then
	# The bundled fabrics come from the lib helper; without them, one
	# written here: ibsim's two switches joined by two links.
	cat >"$T/twosw.net" <<'EOF'
Hca	1 "H1"
[1]	"S1"[1]

Switch	8 "S1"
[1]	"H1"[1]
[2]	"H3"[1]
[3]	"S2"[3]
[5]	"S2"[5]

Switch 8 "S2"
[1]	"H2"[1]
[2]	"H4"[1]
[3]	"S1"[3]
[5]	"S1"[5]

Hca	1 "H2"
[1]	"S2"[1]

Hca	1 "H3"
[1]	"S1"[2]

Hca	1 "H4"
[1]	"S2"[2]
EOF
	nets=$T/twosw.net
fi

for engine in ${ENGINES:-ftree minhop updown}; do
for net in $nets; do
	name=$(basename "$net" .net)-$engine
	d=$T/$name
	"$O/ibsmroute" "$net" --routing "$engine" --dump-dir "$d" --json "$d.json" ||
		fail "$name: ibsmroute exited $?"
	for f in subnet.lst lfts.dump fdbs guid2lid mfts.dump; do
		[ -s "$d/$f" ] || [ "$f" = mfts.dump -a -f "$d/$f" ] ||
			fail "$name: $f missing or empty"
	done
	# ftree writes the cabling order on trees (and routes as minhop
	# elsewhere): one line per host, the hosts' LIDs
	if [ "$engine" = ftree ] && [ -f "$d/ftree-ca-order.dump" ]; then
		[ "$(grep -c . "$d/ftree-ca-order.dump")" = "$(grep -Ec '^(Hca|Ca)' "$net")" ] ||
			fail "$name: ftree-ca-order.dump does not list every host"
	fi
	if [ "$engine" = updown ]; then
		[ -s "$d/updn-roots.dump" ] || fail "$name: no updn-roots.dump"
		grep -vqE '^0x[0-9a-f]{16}$' "$d/updn-roots.dump" &&
			fail "$name: bad line in updn-roots.dump: $(grep -vE '^0x[0-9a-f]{16}$' "$d/updn-roots.dump" | head -1)"
	fi
	read -r sw hosts links unreach acyclic <<<"$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
t, u = r["topology"], r["unicast"]
print(t["switches"], t["hosts"], t["links"], u["unreachable_pairs"],
      str(u["cdg_acyclic"]).lower())
' "$d.json")" || fail "$name: JSON report does not parse"
	[ "$unreach" = 0 ] || fail "$name: $unreach unreachable pairs"
	# Count what the file says, independently of our parser.
	nsw=$(grep -c '^Switch' "$net")
	nca=$(grep -Ec '^(Hca|Ca)' "$net")
	[ "$sw" = "$nsw" ] || fail "$name: JSON says $sw switches, file has $nsw"
	[ "$hosts" = "$nca" ] || fail "$name: JSON says $hosts hosts, file has $nca"
	# ibdmchk crashes after its last check on some inputs (also on
	# OpenSM's own dumps), so its output is judged, not its exit code.
	(cd "$d" && ibdmchk -s subnet.lst -f fdbs -m mfts.dump >ibdmchk.out 2>&1) 2>/dev/null
	# minhop does not avoid credit loops (tori, dragonflies, random
	# graphs have them); connectivity errors are what must not appear.
	if grep -E -e '-E-|-W- Wrong syntax' "$d/ibdmchk.out" |
		grep -v 'credit loops in routing' >"$d/errs"; then
		head -5 "$d/errs"
		fail "$name: ibdmchk reports errors"
	fi
	grep -q "Defined $((nsw + nca))/$((nsw + nca)) systems/nodes" "$d/ibdmchk.out" ||
		fail "$name: ibdmchk did not read every node: $(grep Defined "$d/ibdmchk.out" | head -1)"
	want=$((nca * (nca - 1)))
	grep -q "Scanned:$want CA to CA paths" "$d/ibdmchk.out" ||
		fail "$name: ibdmchk did not scan $want paths: $(grep Scanned "$d/ibdmchk.out")"
	# Our credit-loop verdict must be ibdmchk's.
	if grep -q 'no credit loops found' "$d/ibdmchk.out"; then
		loops=no; [ "$acyclic" = true ] || fail "$name: JSON cdg_acyclic=$acyclic, ibdmchk finds no credit loop"
	else
		loops=has; [ "$acyclic" = false ] || fail "$name: JSON cdg_acyclic=$acyclic, ibdmchk finds a credit loop"
	fi
	echo "ok $name: $sw switches, $hosts hosts, $links links, $want paths; $loops credit loops"
done
done

# A broken table must be caught, or the checks above prove nothing.
first=$(echo $nets | awk '{print $1}')
d=$T/$(basename "$first" .net)-minhop
awk '/^0x/ && !done && $3 != "000" { $3 = "000"; done = 1 } { print }' \
	"$d/fdbs" >"$d/fdbs.bad"
(cd "$d" && ibdmchk -s subnet.lst -f fdbs.bad -m mfts.dump >bad.out 2>&1) 2>/dev/null
grep -q -e '-E-' "$d/bad.out" || fail "ibdmchk did not notice a broken LFT entry"

# Bad input: exit 2 with file:line.
printf 'Switch 8 "S1"\n[1] "H1"[1\n' >"$T/bad.net"
"$O/ibsmroute" "$T/bad.net" 2>"$T/err"; rc=$?
[ $rc = 2 ] || fail "bad topology: exit $rc, want 2"
grep -q "bad.net:" "$T/err" || fail "bad topology: no file name in: $(cat "$T/err")"
"$O/ibsmroute" "$first" --routing nosuch 2>/dev/null; rc=$?
[ $rc = 2 ] || fail "unknown engine: exit $rc, want 2"
"$O/ibsmroute" "$first" -o no.such.key=1 2>/dev/null; rc=$?
[ $rc = 2 ] || fail "unknown -o key: exit $rc, want 2"
"$O/ibsmroute" "$first" --sm-node "no such node" 2>/dev/null; rc=$?
[ $rc = 2 ] || fail "unknown --sm-node: exit $rc, want 2"
echo PASS
