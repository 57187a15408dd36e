#!/bin/bash
# MLIDs stay while the fabric does: members learn a group's MLID from
# their join answer and are not told when it changes, so a heavy sweep
# must not move it.  With 12 standard groups on a 16-host fat tree, the
# first one left by its members (its color freed: the re-routing used to
# hand that color to the next group), two heavy sweeps of the unchanged
# fabric keep every MLID and send no MFT block.
# Then a leaf uplink used by some trees goes down: every group whose MLID
# did not use that link on that switch keeps its MLID, the others may
# move (each move is logged), and the MFTs read back deliver every
# group, loop-free, with no entry on the dead link.  The SA's
# MulticastForwardingTableRecords (saquery MFTR) then give every switch's
# entries as ibroute -M reads them from the switch.
. "${TOP:-.}/tests/integration/mcast_common.bash"
"$O/ibsmgen" fattree2 --hosts 16 -o "$T/ft.net" || fail "ibsmgen"
mc_start "$T/ft.net"
sim ibnetdiscover >"$T/topo" 2>/dev/null
blocks() { field mft_blocks_sent < <(ctl mcg stats); }
# mlids: "MGID MLID" of every group with members, sorted
mlids() { ctl mcg list | awk '$2 ~ /^mlid=/ && $0 ~ /members=0x/ { sub("mlid=", "", $2); print $1, $2 }' | sort; }
members=(
	"H1 H5 H9" "H2 H6" "H3 H12 H16" "H4 H8 H13" "H1 H2 H3 H4" "H5 H10"
	"H7 H11 H14" "H6 H15" "H9 H10 H11 H12" "H13 H14 H15 H16" "H8 H16" "H1 H16"
)
: >"$T/groups"
for i in "${!members[@]}"; do
	g=ff12:601b:ffff::c:$((i + 1))
	for h in ${members[$i]}; do
		out=$(sa_at "$h" join "$g")
		grep -q "^status 0x0000" <<<"$out" || fail "join $g from $h: $out"
	done
	echo "$g ${members[$i]}" >>"$T/groups.members"
done
sleep 0.5
# the first group leaves: its color is free now
for h in ${members[0]}; do sa_at "$h" leave ff12:601b:ffff::c:1 >/dev/null; done
sleep 0.5
mlids >"$T/mlids.0"
[ "$(wc -l <"$T/mlids.0")" -eq 11 ] || { cat "$T/mlids.0"; fail "expected 11 groups with members"; }
cat "$T/mlids.0"
b0=$(blocks)
for round in 1 2; do
	heavy_sweep
	sleep 0.3
	mlids >"$T/mlids.$round"
	diff "$T/mlids.0" "$T/mlids.$round" || fail "heavy sweep $round of an unchanged fabric moved MLIDs"
done
[ "$(blocks)" = "$b0" ] || fail "$(( $(blocks) - b0 )) MFT blocks sent by heavy sweeps of an unchanged fabric"
echo "2 heavy sweeps: every MLID kept, no MFT block sent"

# groups for the walk: "MGID MLID HOST..."
walk_groups() {
	while read -r g m; do
		echo "$g $m $(awk -v g="$g" '$1 == g { $1 = ""; print }' "$T/groups.members")"
	done <"$1" >"$T/walk"
}
walk_groups "$T/mlids.0"
mc_walk "$T/walk" || fail "deliveries before the link went down"
cp "$T/mfts.txt" "$T/mfts-before.txt"
# an uplink of leaf S1 that some tree uses, and the MLIDs using it there
read -r port used < <(mft_port_users "$T/mfts.txt" S1 5)
[ -n "$port" ] || fail "no tree uses an uplink of S1"
echo "unlinking S1 port $port, used there by MLIDs $used"
ibsim_cmd "Unlink \"S1\"[$port]"
heavy_sweep
sleep 0.3
mlids >"$T/mlids.3"
moved=0
while read -r g m; do
	now=$(awk -v g="$g" '$1 == g { print $2 }' "$T/mlids.3")
	[ -n "$now" ] || fail "$g has no MLID after the link went down"
	[ "$now" = "$m" ] && continue
	moved=$((moved + 1))
	case ",$used," in
	*",$m,"*) grep -q "$g moved from MLID $m to $now" "$T/ibsmd.log" ||
		fail "$g moved from $m to $now without a log line" ;;
	*) fail "$g moved from MLID $m to $now, but its tree did not use the lost link" ;;
	esac
done <"$T/mlids.0"
echo "after the link went down: $moved groups moved, all of them on the lost link"
walk_groups "$T/mlids.3"
mc_walk "$T/walk" || fail "deliveries after the link went down"
# saquery MFTR LID/0/0 (block 0, ports 0-15: all of this fabric's MLIDs
# and ports) against the switch's own table
for l in $(sim ibswitches 2>/dev/null | sed 's/.* lid \([0-9]*\) .*/\1/'); do
	sim saquery MFTR "$l/0/0" >"$T/mftr" 2>/dev/null || fail "saquery MFTR $l/0/0 failed"
	sim ibroute -M "$l" >"$T/mft" 2>/dev/null || fail "ibroute -M $l failed"
	python3 - "$T/mftr" "$T/mft" <<'PY' || fail "switch LID $l: the SA's MFT record differs from the switch's table"
import sys
sa = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 2 and f[0].startswith('0xc') and int(f[1], 16):
        m = int(f[1], 16)
        sa[int(f[0], 16)] = {p for p in range(16) if m >> p & 1}
sw, base = {}, None
for line in open(sys.argv[2]):
    if 'Ports:' in line:
        base = line.index('Ports:') + 7
    elif base is not None and line.startswith('0x'):
        sw[int(line.split()[0], 16)] = {(i - base) // 2 for i, ch in enumerate(line.rstrip())
                                        if ch == 'x' and i >= base and (i - base) % 2 == 0}
if sa != sw:
    print('SA', sorted((hex(k), sorted(v)) for k, v in sa.items()))
    print('switch', sorted((hex(k), sorted(v)) for k, v in sw.items()))
    sys.exit(1)
PY
	n=$((${n:-0} + 1))
done
echo "saquery MFTR of $n switches equal to their tables read back"
echo "PASS: MLIDs kept across heavy sweeps; a lost link moves only the groups that used it; the SA's MFT records are the switches' tables"
