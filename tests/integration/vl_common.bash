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

# read_vl_back DIR [LMC]: the topology and LFTs (read_back), every CA
# pair's PathRecord SL from the SA (sa_paths, one process; with LMC, from
# every base LID to every LID of each other range), and every switch's
# SL2VL tables to each switch-to-switch output port (smpquery sl2vl).
read_vl_back() {
	local d=$1 lmc=${2:-0} lids lid port
	read_back "$d"
	lids=$(awk '$1 == "CA" { print $2 } $8 == "CA" { print $9 }' \
		"$d/netdisc" | sort -un | paste -sd,)
	[ -n "$lids" ] || fail "no CA LIDs in $d/netdisc"
	trace_unread_lids "$d" "$lids"
	if [ "$lmc" = 0 ]; then
		SIM_HOST=H1 sim "$SA_PATHS" -l "$lids" >"$d/paths" 2>"$d/paths.err"
	else
		awk -v l="$lids" -v n=$((1 << lmc)) 'BEGIN {
			k = split(l, v, ",")
			for (i = 1; i <= k; i++) for (j = 1; j <= k; j++)
				if (i != j) for (o = 0; o < n; o++) print v[i], v[j] + o
		}' | SIM_HOST=H1 sim "$SA_PATHS" >"$d/paths" 2>"$d/paths.err"
	fi || fail "sa_paths failed: $(tail -2 "$d/paths.err"; grep -m2 ' - ' "$d/paths")"
	mkdir -p "$d/sl2vl"
	awk '$1 == "SW" && $8 == "SW" { print $2, $3 }' "$d/netdisc" | sort -u |
		while read -r lid port; do
			sim smpquery sl2vl "$lid" "$port" \
				>"$d/sl2vl/$lid-$port" 2>>"$d/sl2vl.err" ||
				fail "smpquery sl2vl $lid $port failed"
		done
}

# trace_unread_lids DIR LIDS: ibroute never reads the LFT block that holds
# LinearFDBTop when LinearFDBTop is a multiple of 64 (infiniband-diags
# dump_unicast_tables: endblock = ALIGN(top, 64) / 64, blocks below it
# only), so a CA LID there (128 when 64 switches and 64 hosts take LIDs
# 1..128) has no entry in DIR/lft.  ibtracert reads the block of its
# DLID: a trace to that LID from every other CA port of LIDS (comma
# separated) adds the entries of the switches on the way, which are all
# a walk from the CAs uses.
trace_unread_lids() {
	local d=$1 lids=$2 dl sl
	for dl in ${lids//,/ }; do
		grep -qs "^0x$(printf %04x "$dl") " "$d"/lft/* && continue
		for sl in ${lids//,/ }; do
			[ "$sl" = "$dl" ] && continue
			SIM_HOST=H1 sim ibtracert "$sl" "$dl" \
				2>>"$d/ibtracert.err" >"$d/trace" ||
				fail "ibtracert $sl $dl failed: $(tail -2 "$d/ibtracert.err")"
			# "[OUT] -> switch port {GUID}[IN] lid L-L ..." follows
			# the hop that left the previous switch by port OUT
			awk -v dl="$dl" -v dir="$d/lft" '
				/^\[[0-9]+\] -> / {
					out = substr($1, 2, length($1) - 2)
					if (sw != "")
						printf "0x%04x %03d : (ibtracert)\n", dl, out >> (dir "/" sw)
					sw = ""
					if ($3 == "switch") { split($7, l, "-"); sw = l[1] }
				}' "$d/trace"
		done
	done
}
