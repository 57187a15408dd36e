# Shared by the sm_*.sh tests (sourced after lib.sh and bringup_common.bash):
# several SMs on one ibsim fabric, ibsmd and OpenSM, each on its own host,
# and the fabric read back with the real tools (sminfo, smpquery,
# ibnetdiscover, ibroute), never from ibsmd's own model.
need ibsim opensm sminfo smpquery ibnetdiscover ibroute saquery
# The host the tools run on (no SM there).
TOOLS_AT=${TOOLS_AT:-H3}

# osm_start NAME HOST PRIO: OpenSM with SM_Key 0 (ibsmd's default; OpenSM
# ignores SMs whose key differs from its own, and its own default is 1);
# -d2 flushes its log after each line, which the tests wait on.
osm_start() {
	local name=$1 host=$2 prio=$3
	mkdir -p "$T/osm-$name"
	OSM_CACHE_DIR=$T/osm-$name sim_at "$host" opensm -p "$prio" -k 0 -d2 \
		-f "$T/osm-$name.log" >"$T/osm-$name.out" 2>&1 &
	eval "OSM_PID_$name=$!"
}
# osm_up NAME HOST PRIO: osm_start, then wait for its subnet up.
osm_up() {
	osm_start "$@"
	wait_for 60 grep -q "SUBNET UP" "$T/osm-$1.log" || fail "OpenSM did not bring the subnet up"
}
osm_stop() {
	local v="OSM_PID_$1"
	[ -n "${!v:-}" ] && killtree "${!v}"
	wait "${!v}" 2>/dev/null
	eval "OSM_PID_$1="
}

# ibsmd_start NAME HOST [ibsmd args]: state dir and socket of its own.
ibsmd_start() {
	local name=$1 host=$2; shift 2
	mkdir -p "$T/state-$name"
	sim_at "$host" "$IBSMD" --state-dir "$T/state-$name" \
		-o control_socket="$T/$name.sock" -o log.level=info "$@" \
		>>"$T/ibsmd-$name.out" 2>&1 &
	eval "IBSMD_PID_$name=$!"
}
ibsmd_stop() {
	local v="IBSMD_PID_$1"
	[ -n "${!v:-}" ] && killtree "${!v}"
	wait "${!v}" 2>/dev/null
	eval "IBSMD_PID_$1="
}
# st NAME KEY: one value of `ibsmctl status` (empty when not answering).
st() {
	"$IBSMCTL" -s "$T/$1.sock" status 2>/dev/null |
		awk -v k="$2" '$1 == k { print $2; exit }'
}

# wait_for SECONDS CMD...: until CMD succeeds; 1 when it never did.
wait_for() {
	local n=$(($1 * 5)); shift
	for _ in $(seq "$n"); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	return 1
}
st_is() { [ "$(st "$1" "$2")" = "$3" ]; }
st_ge() { local v; v=$(st "$1" "$2"); [ -n "$v" ] && [ "$v" -ge "$3" ]; }

# SMInfo of the SM at LID $1 (empty LID: the master of the tools' port).
sminfo_of() { sim_at "$TOOLS_AT" sminfo ${1:-} 2>/dev/null; }

# sminfo_has PATTERN [LID]: the SMInfo of that SM matches PATTERN.
sminfo_has() { sminfo_of "${2:-}" | grep -q "$1"; }

# "TYPE LID PORT GUID" of every port with a LID, from SMPs.
snap_lids() {
	sim_at "$TOOLS_AT" ibnetdiscover -p 2>/dev/null |
		awk '$1 == "CA" { print $1, $2, $3, $4 }
		     $1 == "SW" { print $1, $2, 0, $4 }' |
		sort -u >"$1"
	[ -s "$1" ] || fail "ibnetdiscover -p read no ports"
}
# snap_fabric N: LIDs in $T/lidsN and every table in $T/tablesN.
snap_fabric() {
	snap_lids "$T/lids$1"
	snap_tables "$T/tables$1" "$T/lids$1"
}
# Every switch's LFT (ibroute), and MFT (ibroute -M), in one file.
snap_tables() {
	local lid
	: >"$1"
	for lid in $(awk '$1 == "SW" { print $2 }' "$2" | sort -un); do
		sim_at "$TOOLS_AT" ibroute "$lid" >>"$1" 2>&1 ||
			fail "ibroute $lid failed"
		sim_at "$TOOLS_AT" ibroute -M "$lid" >>"$1" 2>&1
	done
}
# Checks that every port's PortInfo:MasterSMLID is $1 (LIDs from file $2).
check_smlid() {
	local want=$1 t lid port guid got bad=0
	while read -r t lid port guid; do
		got=$(sim_at "$TOOLS_AT" smpquery portinfo "$lid" "$port" 2>/dev/null |
			sed -n 's/^SMLid:\.*//p')
		[ "$got" = "$want" ] || { bad=$((bad + 1)); echo "LID $lid port $port: SMLid '$got'"; }
	done <"$2"
	[ $bad -eq 0 ] || fail "$bad ports do not point at the master SM LID $want"
}
