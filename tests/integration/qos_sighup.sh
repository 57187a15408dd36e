#!/bin/bash
# SIGHUP with a changed QoS policy sends only the SL2VL/VLArb blocks that
# changed, counted with ibsmctl status (smps_sl2vl_sets, smps_vlarb_sets)
# and read back with smpquery (qos_check.py):
#   - the first sweep writes every table once (as many blocks as the
#     check reads tables), and the SA's SLtoVLMappingTableRecords and
#     VLArbitrationTableRecords (saquery SL2VL, VLAR) say what the ports
#     hold, before and after a change;
#   - a changed VLArb entry past what any port holds (entry 11; ibsim's
#     ports hold 8): no sweep, no SMP;
#   - a changed high-priority weight: no sweep, one VLArb block per port,
#     no SL2VL block;
#   - a changed SL2VL entry: no sweep, every SL2VL table, no VLArb block;
#   - qos.default_sl: no sweep, no SMP, saquery PathRecord shows the SL;
#   - qos.max_vls (a PortInfo field): no sweep, one PortInfo Set per
#     linked port (read first, written back with the new OperationalVLs),
#     every table; OperationalVLs and tables read back as configured;
#   - qos.high_limit: no sweep, one PortInfo Set per linked port, no table
#     (ibsim does not store VLHighLimit: not read back);
#   - an unchanged file: the heavy sweep SIGHUP always meant, no QoS SMP;
#   - a link down and up again: its two ports' rows, columns and VLArb
#     blocks written again (they were in INIT), nothing else.
. "$(dirname "$0")/mcast_common.bash"
need smpquery saquery
CHECK="$TOP/tests/integration/qos_check.py"
check() { SIM_PRELOAD=$UMAD2SIM python3 "$CHECK" "$@"; }
st() { ctl status | field "$1"; }
LOW=0:0,1:4,2:4,3:4,4:4,5:4,6:4,7:4,8:4,9:4,10:4,11:4,12:4,13:4,14:4
HIGH=0:4,1:0,2:0,3:0,4:0,5:0,6:0,7:0,8:0,9:0,10:0,11:0,12:0,13:0,14:0
SL=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7
conf() { # conf SL2VL HIGH LOW [more lines]: the config file
	local sl=$1 hi=$2 lo=$3; shift 3
	{
		printf 'sm:\n  sweep_interval_ms: 0\nqos:\n  enable: true\n'
		printf '  sl2vl: [%s]\n' "$sl"
		printf '  vlarb_high: [%s]\n' "$(echo "$hi" | sed 's/[^,]*/"&"/g')"
		printf '  vlarb_low: [%s]\n' "$(echo "$lo" | sed 's/[^,]*/"&"/g')"
		for l in "$@"; do printf '  %s\n' "$l"; done
	} >"$T/ibsmd.yaml"
}
# hup: SIGHUP, then wait for the reload and for what it starts (a QoS
# pass's summary line, or a heavy sweep)
hup() {
	local r0 q0 h0
	r0=$(grep -c "reload: configuration" "$T/ibsmd.log")
	q0=$(grep -c "qos: .* blocks sent" "$T/ibsmd.log")
	h0=$(st heavy_sweeps)
	kill -HUP "$IBSMD_PID"
	for _ in $(seq 150); do
		[ "$(grep -c "reload: configuration" "$T/ibsmd.log")" -gt "$r0" ] &&
			[ "$(grep -c "qos: .* blocks sent" "$T/ibsmd.log")" -gt "$q0" ] &&
			[ "$(st sweep_state)" = IDLE ] && return 0
		sleep 0.2
	done
	tail -5 "$T/ibsmd.log"
	fail "no reload or QoS pass after SIGHUP"
}
# expect WHAT DSL DVA DHEAVY DPI: the counters moved by exactly that much
# (DPI: PortInfo Sets; "-" when a heavy sweep's own Sets count too)
expect() {
	local sl va h pi
	sl=$(( $(st smps_sl2vl_sets) - SL0 )); va=$(( $(st smps_vlarb_sets) - VA0 ))
	h=$(( $(st heavy_sweeps) - H0 )); pi=$(( $(st smps_portinfo_sets) - PI0 ))
	echo "$1: $sl SL2VL blocks, $va VLArb blocks, $h heavy sweeps, $pi PortInfo Sets"
	[ "$sl" -eq "$2" ] && [ "$va" -eq "$3" ] && [ "$h" -eq "$4" ] &&
		{ [ "$5" = - ] || [ "$pi" -eq "$5" ]; } ||
		fail "$1: want $2 SL2VL blocks, $3 VLArb blocks, $4 heavy sweeps, $5 PortInfo Sets"
	SL0=$(st smps_sl2vl_sets); VA0=$(st smps_vlarb_sets); H0=$(st heavy_sweeps)
	PI0=$(st smps_portinfo_sets)
}

conf "$SL" "$HIGH" "$LOW"
mc_start "$TOP/tests/data/ft2-small.net" -c "$T/ibsmd.yaml"
out=$(check --sa) || { echo "$out"; fail "tables after the first sweep"; }
echo "$out"
read -r NSL NPORTS < <(echo "$out" | sed -n 's/^\([0-9]*\) ports: .* \([0-9]*\) SL2VL tables.*/\2 \1/p')
[ -n "$NSL" ] || fail "cannot read the table counts from: $out"
SL0=0; VA0=0; PI0=0; H0=$(( $(st heavy_sweeps) - 1 ))
expect "first sweep" "$NSL" $((2 * NPORTS)) 1 -

conf "$SL" "$HIGH" "${LOW/11:4/11:9}"
hup
grep -q "applied without a sweep" "$T/ibsmd.log" || fail "the reload started a sweep"
expect "VLArb entry 11 (past every port's capacity)" 0 0 0 0

HIGH2=${HIGH/1:0/1:2}
conf "$SL" "$HIGH2" "$LOW"
hup
expect "high-priority weight of VL1" 0 "$NPORTS" 0 0
out=$(check --high "$HIGH2") || { echo "$out"; fail "tables after the VLArb change"; }

SL2=${SL%,7},6
conf "$SL2" "$HIGH2" "$LOW"
hup
expect "SL15 to VL6" "$NSL" 0 0 0
out=$(check --sa --high "$HIGH2" --sl2vl "$SL2") ||
	{ echo "$out"; fail "tables (and the SA's records) after the SL2VL change"; }

conf "$SL2" "$HIGH2" "$LOW" "default_sl: 5"
hup
expect "qos.default_sl 5" 0 0 0 0
# the first record of the first MAD (ibsim has no RMPP: the rest of the
# table is cut)
sl=$(sim saquery PR 2>/dev/null | sed -n 's/^[[:space:]]*sl\.*\(0x[0-9a-f]*\)$/\1/p' | head -1)
[ "$sl" = 0x5 ] || fail "PathRecord SL after the reload is '$sl', want 0x5"

conf "$SL2" "$HIGH2" "$LOW" "default_sl: 5" "max_vls: 4"
hup
expect "qos.max_vls 4" "$NSL" $((2 * NPORTS)) 0 "$NPORTS"
out=$(check --max-vls 4 --high "$HIGH2" --sl2vl "$SL2") ||
	{ echo "$out"; fail "tables after max_vls 4"; }
echo "$out"

conf "$SL2" "$HIGH2" "$LOW" "default_sl: 5" "max_vls: 4" "high_limit: 8"
hup
expect "qos.high_limit 8" 0 0 0 "$NPORTS"
# back to 0 (a heavy sweep under ibsim would otherwise set 8 on every
# port again: ibsim answers VLHighLimit 0 whatever it was sent)
conf "$SL2" "$HIGH2" "$LOW" "default_sl: 5" "max_vls: 4"
hup
expect "qos.high_limit 0" 0 0 0 "$NPORTS"

hup
expect "unchanged file (a heavy sweep)" 0 0 1 0
# A link that goes down and comes back: its two ports are in INIT at the
# next heavy sweep, so their rows and columns (a port with L linked
# neighbours on its switch: L + 1 rows to it, L - 1 from it) and VLArb
# blocks are written again, and nothing else.
linked() { # linked SWITCH: the ports its net-file section lists
	sed -n "/^Switch.*\"$1\"\$/,/^\$/p" "$TOP/tests/data/ft2-small.net" | grep -c '^\['
}
peer=$(sed -n '/^Switch.*"S1"$/,/^$/p' "$TOP/tests/data/ft2-small.net" |
	sed -n 's/^\[5\]\t"\([^"]*\)".*/\1/p')
[ -n "$peer" ] || fail "no S1 port 5 in ft2-small.net"
la=$(linked S1); lb=$(linked "$peer")
h=$(st heavy_sweeps)
ibsim_cmd 'Unlink "S1"[5]'
sleep 2
ibsim_cmd 'ReLink "S1"[5]'
sleep 1
ctl sweep >/dev/null
for _ in $(seq 100); do
	[ "$(st heavy_sweeps)" -gt "$h" ] && [ "$(st sweep_state)" = IDLE ] && break
	sleep 0.2
done
expect "S1 port 5 down and up again" $((2 * la + 2 * lb)) 4 "$(( $(st heavy_sweeps) - H0 ))" -
out=$(check --max-vls 4 --high "$HIGH2" --sl2vl "$SL2") ||
	{ echo "$out"; fail "tables after the link came back"; }

# In the sanitizer build (scripts/check runs this test there too): no
# report, and a clean exit on SIGTERM.
kill "$IBSMD_PID"; wait "$IBSMD_PID"; rc=$?; IBSMD_PID=
grep -E "ERROR: (Address|Leak)Sanitizer|runtime error" "$T/ibsmd.log" &&
	fail "sanitizer report"
[ "$rc" -eq 0 ] || fail "ibsmd exited $rc on SIGTERM"
echo "PASS: a QoS reload sends only the blocks that changed"
