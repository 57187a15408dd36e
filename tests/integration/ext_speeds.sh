#!/bin/bash
# Extended link speeds under ibsim (extspeed=/e= enables: HDR, EDR, none):
# every PortInfo SMP ibsmd sends carries SMSupportExtendedSpeeds
# (attribute modifier bit 31, seen in a capture of what it hands to
# libibumad); subnet.lst gives each link OpenSM's SPD value (50 for HDR,
# 25 for EDR, 10 for QDR); `ibsmctl status` counts the links by speed;
# saquery PathRecords carry the rate of the slowest link (200, 100, 40
# Gb/s) and PortInfoRecords the LinkSpeedExtActive the port reported.
. "${TOP:-.}/tests/integration/lib.sh"
. "$TOP/tests/integration/bringup_common.bash"
. "$TOP/tests/integration/sm_common.bash"
need saquery python3
MADTAP=$O/tests/tap/libmadtap.so
[ -f "$MADTAP" ] || fail "$MADTAP not built"

cat >"$T/speeds.net" <<'NET'
# HDR everywhere the two ends allow it; H3's link EDR at most; H4's
# link without extended speeds (QDR).
speed=7
extspeed=7

Switch 8 "S1"
[1] "H1"[1]
[2] "H2"[1]
[5] "S2"[5]

Switch 8 "S2"
[3] "H3"[1]
[4] "H4"[1]
[5] "S1"[5]

Hca 1 "H1"
[1] "S1"[1]

Hca 1 "H2"
[1] "S1"[2]

Hca 1 "H3"
[1] "S2"[3] e=3

Hca 1 "H4"
[1] "S2"[4] e=0
NET
NET=$T/speeds.net
TOOLS_AT=H2
start_sim "$NET"

# --once with the capture: bit 31 on every PortInfo SMP.
cap=$T/once.cap
MADTAP_FILE=$cap LD_PRELOAD=$MADTAP sim_at H1 "$IBSMD" --once \
	--state-dir "$T/once" -o dumps=subnet >"$T/once.log" 2>&1 ||
	{ tail -5 "$T/once.log"; fail "ibsmd --once exited $?"; }
python3 "$TOP/tests/integration/madtap.py" "$cap" >"$T/smps"
pi=$(awk '$2 == "0x0015"' "$T/smps" | wc -l)
[ "$pi" -gt 0 ] || fail "no PortInfo SMP in the capture ($(wc -l <"$T/smps") SMPs)"
nobit=$(awk '$2 == "0x0015" && substr($3, 3, 1) !~ /[89a-f]/' "$T/smps" | wc -l)
[ "$nobit" = 0 ] || fail "$nobit of $pi PortInfo SMPs without SMSupportExtendedSpeeds: $(awk '$2 == "0x0015"' "$T/smps" | head -3)"
sets=$(awk '$1 == "set" && $2 == "0x0015"' "$T/smps" | wc -l)
echo "capture: $pi PortInfo SMPs ($sets Sets), all with attribute modifier bit 31"

# subnet.lst: SPD of each link as OpenSM writes it.
spd() { # node-desc-a node-desc-b -> SPD of their link
	grep "{$1}" "$T/once/subnet.lst" | grep "{$2}" | head -1 |
		sed -n 's/.* SPD=\([^ ]*\)$/\1/p'
}
[ "$(spd H1 S1)" = 50 ] || fail "H1-S1 SPD=$(spd H1 S1), want 50 (4xHDR)"
[ "$(spd S1 S2)" = 50 ] || fail "S1-S2 SPD=$(spd S1 S2), want 50 (4xHDR)"
[ "$(spd H3 S2)" = 25 ] || fail "H3-S2 SPD=$(spd H3 S2), want 25 (4xEDR)"
[ "$(spd H4 S2)" = 10 ] || fail "H4-S2 SPD=$(spd H4 S2), want 10 (4xQDR)"
echo "subnet.lst: HDR 50, EDR 25, QDR 10"

# The daemon: status, PathRecord rates, PortInfoRecord.
ibsmd_start a H1
wait_for 60 st_ge a heavy_sweeps 1 || { tail "$T/ibsmd-a.out"; fail "no heavy sweep"; }
ls=$("$IBSMCTL" -s "$T/a.sock" status | awk '$1 == "link_speeds" { print $2 }')
[ "$ls" = "4xHDR=3,4xEDR=1,4xQDR=1" ] || fail "link_speeds $ls"
# A host's LID from its own port (SMP over a 0-hop directed route).
lid() { sim_at "$1" smpquery -D portinfo 0 2>/dev/null | sed -n 's/^Lid:\.*//p'; }
rate() { # from-lid to-lid -> PathRecord rate code (selector bits off)
	local r
	r=$(sim_at "$TOOLS_AT" saquery -p --slid "$1" --dlid "$2" 2>/dev/null |
		sed -n 's/^[[:space:]]*rate\.*//p')
	[ -n "$r" ] && echo $((r & 63))
}
L1=$(lid H1); L2=$(lid H2); L3=$(lid H3); L4=$(lid H4)
[ -n "$L1" ] && [ -n "$L4" ] || fail "no LIDs from saquery -N ($L1 $L2 $L3 $L4)"
r12=$(rate "$L1" "$L2"); r13=$(rate "$L1" "$L3"); r14=$(rate "$L1" "$L4")
[ "$r12" = 17 ] || fail "PathRecord H1->H2 rate $r12, want 17 (200 Gb/s, 4xHDR)"
[ "$r13" = 16 ] || fail "PathRecord H1->H3 rate $r13, want 16 (100 Gb/s, 4xEDR on the way)"
[ "$r14" = 7 ] || fail "PathRecord H1->H4 rate $r14, want 7 (40 Gb/s, 4xQDR)"
echo "PathRecord rates: H1-H2 $r12, H1-H3 $r13, H1-H4 $r14"
pir=$(sim_at "$TOOLS_AT" saquery PortInfoRecord "$L1" 2>/dev/null)
echo "$pir" | grep -q "LinkSpeedExtActive:.*53.125 Gbps" ||
	fail "PortInfoRecord of H1: $(echo "$pir" | grep -i linkspeedext)"
echo "PortInfoRecord H1: $(echo "$pir" | grep LinkSpeedExtActive | tr -s '.' ' ')"
ibsmd_stop a

# FDR10 (a Mellanox speed: QDR in PortInfo, FDR10 in the vendor attribute
# ExtendedPortInfo 0xFF90): a Mellanox switch's QDR links are asked once
# each; the one ibsim runs at FDR10 shows SPD=FDR10, the other SPD=10.
stop_sim
cat >"$T/fdr10.net" <<'NET'
vendid=0x2c9
speed=7

Switch 4 "S1"
[1] "H1"[1]		# "H1" lid 2 4xFDR10
[2] "H2"[1]		# "H2" lid 3 4xQDR

Hca 1 "H1"
[1] "S1"[1]		# lid 2 lmc 0 "S1" lid 1 4xFDR10

Hca 1 "H2"
[1] "S1"[2]		# lid 3 lmc 0 "S1" lid 1 4xQDR
NET
start_sim "$T/fdr10.net"
MADTAP_FILE=$T/fdr10.cap LD_PRELOAD=$MADTAP sim_at H1 "$IBSMD" --once \
	--state-dir "$T/fdr10" -o dumps=subnet >"$T/fdr10.log" 2>&1 ||
	{ tail -5 "$T/fdr10.log"; fail "FDR10 fabric: ibsmd --once exited $?"; }
grep "{S1}" "$T/fdr10/subnet.lst" | grep -q "{H1}.* SPD=FDR10$" ||
	fail "S1-H1: $(grep "{H1}" "$T/fdr10/subnet.lst" | head -1 | sed 's/.* PHY/PHY/')"
grep "{S1}" "$T/fdr10/subnet.lst" | grep -q "{H2}.* SPD=10$" ||
	fail "S1-H2: $(grep "{H2}" "$T/fdr10/subnet.lst" | head -1 | sed 's/.* PHY/PHY/')"
epi=$(python3 "$TOP/tests/integration/madtap.py" "$T/fdr10.cap" | awk '$2 == "0xff90"' | wc -l)
[ "$epi" = 2 ] || fail "$epi ExtendedPortInfo Gets, want 2 (the switch's two QDR links)"
echo "FDR10: S1-H1 SPD=FDR10, S1-H2 SPD=10, $epi ExtendedPortInfo Gets"
