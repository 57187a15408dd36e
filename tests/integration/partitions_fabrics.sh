#!/bin/bash
# P_Key tables on every bundled fabric (fat trees of 2 and 3 levels, torus,
# dragonfly, random): `ibsmd --once` with three partitions named by kind,
# NodeDescription and node GUID, then every end port's table, switch port
# 0's and those of switch ports facing a host read back with smpquery and
# compared with the membership partitions_check.py derives by hand from
# the same rules ("rules" stage).  ibsim's limits: partitions_ibsim.sh.
. "$(dirname "$0")/lib.sh"
need ibsim smpquery ibnetdiscover python3
IBSMD="$O/ibsmd"
[ -x "$IBSMD" ] || skip "ibsmd not built"
CHECK="python3 $TOP/tests/integration/partitions_check.py"
export UMAD2SIM
cd "$T" || fail "cd $T"
for net in "$TOP"/tests/data/*.net; do
	name=$(basename "$net" .net)
	start_ibsim "$net" $("$O/ibsmgen" ibsim-args "$net")
	sim ibnetdiscover -p >"$T/$name.pre" 2>/dev/null || fail "$name: ibnetdiscover"
	# H5's node GUID: its port GUID less one (ibsim: port GUID = node + 1)
	h5=$(awk '$1 == "CA" && $13 == "'"'H5'"'" { print $4; exit }' "$T/$name.pre")
	[ -n "$h5" ] || fail "$name: no H5 in $(head -3 "$T/$name.pre")"
	cat >"$T/$name.yaml" <<EOF
partitions:
  - name: default
    pkey: 0x7fff
    ipoib: true
    members: all
  - name: storage
    pkey: 0x0002
    members: [switches, H1, H2]
    limited: hosts
  - name: gpu
    pkey: 0x0003
    members: [H3, H4, $(printf '0x%016x' $((h5 - 1)))]
EOF
	sim "$IBSMD" --once -c "$T/$name.yaml" --state-dir "$T/st-$name" \
		>"$T/$name.log" 2>&1 || { tail "$T/$name.log"; fail "$name: ibsmd --once failed"; }
	sim ibnetdiscover -p >"$T/$name.netp" 2>/dev/null || fail "$name: ibnetdiscover"
	$CHECK read "$T/$name.netp" "$T/$name.json" >/dev/null || fail "$name: reading the tables"
	$CHECK expect "$T/$name.json" rules || fail "$name: P_Key tables differ"
	echo "$name: $(grep -o '[0-9]* P_KeyTable blocks written to [0-9]* ports, [0-9]* read' "$T/$name.log")"
	kill "$IBSIM_PID"; wait "$IBSIM_PID" 2>/dev/null; IBSIM_PID=
	exec {IBSIM_FIFO_FD}>&-; IBSIM_FIFO_FD=; rm -f "$T/ibsim.in"
done
echo "PASS: P_Key tables as configured on every port of every bundled fabric"
