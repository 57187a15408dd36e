# Shared by the tests that check routing over virtual lanes (sourced after
# lib.sh and bringup_common.bash): OpenSM run as a daemon under ibsim so
# its SA answers, and the tables read back for vl_check.py.
SA_PATHS="$O/tests/sim/sa_paths"
VL_CHECK="$TOP/tests/integration/vl_check.py"

# start_opensm NAME ENGINE [CONF_LINE...]: OpenSM on the running ibsim,
# routing ENGINE, its own cache, log and dump directory in $T/NAME; the
# CONF_LINEs ("key value") replace those keys of OpenSM's default
# configuration.  Returns once OpenSM logged SUBNET UP.
start_opensm() {
	local name=$1 engine=$2 d=$T/$1 kv
	shift 2
	mkdir -p "$d"
	opensm -c "$d/osm.conf" >/dev/null 2>&1 ||
		fail "opensm -c failed"
	sed -i "s#^dump_files_dir .*#dump_files_dir $d/#;
		s#^log_file .*#log_file $d/opensm.log#;
		s#^routing_engine .*#routing_engine $engine#" "$d/osm.conf"
	for kv in "$@"; do
		sed -i "s#^${kv%% *} .*#$kv#" "$d/osm.conf"
	done
	OSM_CACHE_DIR=$d SIM_HOST=H1 sim opensm -F "$d/osm.conf" -d2 \
		>"$d/opensm.out" 2>&1 &
	OSM_PID=$!
	for _ in $(seq 600); do
		grep -q "SUBNET UP" "$d/opensm.log" 2>/dev/null && return 0
		kill -0 "$OSM_PID" 2>/dev/null ||
			fail "$name: OpenSM exited: $(tail -3 "$d/opensm.out")"
		sleep 0.1
	done
	fail "$name: OpenSM did not bring the subnet up"
}

stop_opensm() {
	[ -n "${OSM_PID:-}" ] || return 0
	killtree "$OSM_PID"
	wait "$OSM_PID" 2>/dev/null
	OSM_PID=
}

# read_vl_back DIR: the topology and LFTs (read_back), every CA pair's
# PathRecord SL from the SA (sa_paths, one process), and every switch's
# SL2VL tables to each switch-to-switch output port (smpquery sl2vl).
read_vl_back() {
	local d=$1 lids lid port
	read_back "$d"
	lids=$(awk '$1 == "CA" { print $2 } $8 == "CA" { print $9 }' \
		"$d/netdisc" | sort -un | paste -sd,)
	[ -n "$lids" ] || fail "no CA LIDs in $d/netdisc"
	SIM_HOST=H1 sim "$SA_PATHS" -l "$lids" >"$d/paths" 2>"$d/paths.err" ||
		fail "sa_paths failed: $(tail -2 "$d/paths.err"; grep -m2 ' - ' "$d/paths")"
	mkdir -p "$d/sl2vl"
	awk '$1 == "SW" && $8 == "SW" { print $2, $3 }' "$d/netdisc" | sort -u |
		while read -r lid port; do
			sim smpquery sl2vl "$lid" "$port" \
				>"$d/sl2vl/$lid-$port" 2>>"$d/sl2vl.err" ||
				fail "smpquery sl2vl $lid $port failed"
		done
}
