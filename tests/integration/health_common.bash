# Shared by the health_*.sh and perfmgr_*.sh tests (sourced after lib.sh
# and bringup_common.bash): ibsmd with the performance manager on a
# 3-level fat tree under ibsim, the links of a leaf found in the net file,
# and the fabric read back with the real tools (ibnetdiscover, ibroute,
# ibroute -M, smpquery), never from ibsmd's own model.
need ibsim ibnetdiscover ibroute smpquery perfquery python3
sock=$T/sock
DPID=
# hd_fabric: the 16-host, 20-switch fat tree (k = 4) under ibsim, in $NET.
hd_fabric() {
	"$O/ibsmgen" fattree3 --k 4 -o "$T/ft.net" || fail "ibsmgen"
	NET=$T/ft.net
	start_ibsim "$NET" $("$O/ibsmgen" ibsim-args "$NET")
}
# hd_start [ibsmd -o args]: perfmgr every second, a sweep every second
# (a link coming back up is seen by the light sweep).
hd_start() {
	LD_PRELOAD="$UMAD2SIM${LD_PRELOAD:+:$LD_PRELOAD}" "$IBSMD" \
		--state-dir "$T/state" -o control_socket="$sock" \
		-o log.level=info -o perfmgr.enable=true \
		-o perfmgr.interval_ms=1000 -o sm.sweep_interval_ms=1000 "$@" \
		>>"$T/ibsmd.log" 2>&1 &
	DPID=$!
}
hd_stop() {
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null
	wait "$DPID" 2>/dev/null
	DPID=
}
trap 'hd_stop; cleanup' EXIT
ctl() { "$IBSMCTL" -s "$sock" "$@"; }
field() { ctl status 2>/dev/null | awk -v k="$1" '$1 == k { print $2 }'; }
# wait_count FIELD MIN: until FIELD >= MIN and the sweep is idle.
wait_count() {
	for _ in $(seq 150); do
		[ "$(field "$1")" -ge "$2" ] 2>/dev/null &&
			[ "$(field sweep_state)" = IDLE ] && return 0
		kill -0 "$DPID" 2>/dev/null || fail "ibsmd died"
		sleep 0.1
	done
	tail -20 "$T/ibsmd.log"
	fail "$1 did not reach $2 (it is $(field "$1"))"
}
# rounds N: until N more counter rounds have completed.
rounds() { local r; r=$(field perfmgr_rounds); wait_count perfmgr_rounds $((r + $1)); }
# wait_listed N: until `ibsmctl health` lists N links.
wait_listed() {
	for _ in $(seq 100); do
		[ "$(ctl health 2>/dev/null | awk '$1 == "unhealthy" { print $2 }')" = "$1" ] &&
			return 0
		sleep 0.1
	done
	ctl health
	fail "ibsmctl health does not list $1 links"
}
# peer_of SWITCH PORT: "NAME PORT" of the far end in the net file.
peer_of() {
	sed -n "/^Switch.*\"$1\"\$/,/^\$/p" "$NET" |
		sed -n "s/^\[$2\]\t\"\([^\"]*\)\"\[\([0-9]*\)\].*/\1 \2/p"
}
# guid_of NAME / lid_of NAME: a switch's node GUID (0x%016x) and LID
# from ibnetdiscover -p (its lines end "( 'LEFT' - 'RIGHT' )").
sw_col() {
	[ -s "$T/topo.p" ] || sim ibnetdiscover -p >"$T/topo.p" 2>/dev/null
	awk -v n="'$1'" -v c="$2" '$1 == "SW" { for (i = 1; i < NF; i++) if ($i == "(" && $(i + 1) == n) { print $c; exit } }' "$T/topo.p"
}
guid_of() { printf '0x%016x\n' "$(sw_col "$1" 4)"; }
lid_of() { sw_col "$1" 2; }
# read_tables DIR: ibnetdiscover -p, every switch's LFT and MFT.
read_tables() {
	local d=$1 lid
	mkdir -p "$d/lft" "$d/mft"
	sim ibnetdiscover -p >"$d/netdisc" 2>/dev/null || fail "ibnetdiscover -p"
	for lid in $(awk '$1 == "SW" { print $2 } $7 == "SW" { print $8 }' \
			"$d/netdisc" | sort -un); do
		sim ibroute "$lid" >"$d/lft/$lid" 2>/dev/null || fail "ibroute $lid"
		sim ibroute -M "$lid" >"$d/mft/$lid" 2>/dev/null || fail "ibroute -M $lid"
	done
}
# walk DIR ENDS: health_walk.py over what read_tables read.
walk() {
	python3 "$TOP/tests/integration/health_walk.py" "$1/netdisc" \
		"$1/lft" "$2" "$1/mft" >"$1/walk" 2>&1
	local rc=$?
	cat "$1/walk" | sed 's/^/  /'
	return $rc
}
walk_field() { awk -v k="$2" '$1 == "pairs" { for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$1/walk"; }
# phys NAME PORT / pstate NAME PORT: PortInfo as smpquery reads it.
phys() { sim smpquery portinfo "$(lid_of "$1")" "$2" 2>/dev/null | sed -n 's/^PhysLinkState:\.*//p'; }
pstate() { sim smpquery portinfo "$(lid_of "$1")" "$2" 2>/dev/null | sed -n 's/^LinkState:\.*//p'; }
# events NAME: the structured lines of that event, one JSON per line
# (each parsed by python, so a line a shipper cannot parse fails).
events() {
	sed -n 's/^ibsmd: notice: event //p' "$T/ibsmd.log" | python3 -c '
import json, sys
for line in sys.stdin:
    e = json.loads(line)
    if e["event"] == sys.argv[1]:
        print(json.dumps(e, sort_keys=True))' "$1"
}
