#!/bin/bash
# Layered routing against its peers.  Per fabric: the busiest directed
# switch-to-switch link over all CA pairs and the worst over the shift
# permutations, average and maximum hops (links CA to CA), the VLs used,
# whether the (link, VL) dependency graph is acyclic, and routing time,
# for ibsmd minhop, updown and layered (max_vls 8; and 1..7 for the
# deadlock-free and better-or-equal checks) and for OpenSM 3.3.23 nue
# (nue_max_num_vls 8), dfsssp, lash (all three with qos TRUE, which they
# need to write SL2VL tables) and updn under ibsim.  Every figure comes
# from tables read back and walked by tests/integration/vl_check.py:
# OpenSM's LFTs with ibroute, SLs from its SA's PathRecords, SL2VL with
# smpquery; ibsmd's from ibsmroute's dumps (VL = SL).  ibsmd times are the
# median of --runs ibsmroute runs (CPU-seconds of the routing, checks
# excluded); OpenSM's from its log, "building routing" to "tables
# configured" (one run).  --scale adds the 30x20x20 torus with 2 hosts
# per switch (12,000 switches): ibsmroute only, CPU time and peak RSS.
#
#   O=build tests/bench/layered.sh [--runs N] [--no-opensm] [--scale]
#                                  [--only NAME]...
set -u
O=${O:-build}
TOP=$(pwd)
runs=3 opensm=1 scale=0 only=()
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift ;;
	--no-opensm) opensm=0 ;;
	--scale) scale=1 ;;
	--only) only+=("$2"); shift ;;
	*) echo "usage: $0 [--runs N] [--no-opensm] [--scale] [--only NAME]..." >&2
	   exit 2 ;;
	esac
	shift
done
W=$(mktemp -d "${TMPDIR:-/tmp}/layered-bench.XXXXXX")
. "$(dirname "$0")/../procs.bash"
procs_guard '[ -n "${KEEP:-}" ] || rm -rf "$W"'
CHECK="$TOP/tests/integration/vl_check.py"
R="$O/ibsmroute"

fabrics=(
	"torus-small:tests/data/torus-small.net"
	"dragonfly-small:tests/data/dragonfly-small.net"
	"random-small:tests/data/random-small.net"
	"t55h2:torus 5 5 1 --hosts-per-switch 2"
	"t88:torus 8 8 1"
	"t444h2:torus 4 4 4 --hosts-per-switch 2"
	"t345:torus 3 4 5"
	"t666:torus 6 6 6"
	"hx44h2:hyperx 4 4 --hosts-per-switch 2"
	"hx66:hyperx 6 6"
	"df6:dragonfly --a 6 --p 3 --h 3"
	"rnd64:random --switches 64 --ports 10 --hosts-per-switch 3 --seed 2"
	"ft3:fattree3 --k 8"
)

wanted() {
	[ ${#only[@]} = 0 ] && return 0
	local o
	for o in "${only[@]}"; do [ "$o" = "$1" ] && return 0; done
	return 1
}

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# ibsmroute ENGINE VLS NET DIR: the dumps once, the time over $runs runs.
ibsmd_run() {
	local engine=$1 vls=$2 net=$3 d=$4 i
	for i in $(seq "$runs"); do
		local dump=()
		[ "$i" = 1 ] && dump=(--dump-dir "$d")
		"$R" "$net" --routing "$engine" --max-vls "$vls" --threads 1 \
			--json "$d.$i.json" "${dump[@]}" >/dev/null 2>"$d.err" ||
			{ echo "ibsmroute failed: $(tail -2 "$d.err")"; return 1; }
	done
	for i in $(seq "$runs"); do
		python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["unicast"]["cpu_seconds"])' "$d.$i.json"
	done | median >"$d.time"
}

# opensm_run ENGINE NET DIR [CONF_LINE...]: OpenSM under ibsim, tables read
# back into DIR, its routing time (s) into DIR.time.
opensm_run() {
	local engine=$1 net=$2 d=$3
	shift 3
	mkdir -p "$d"
	# its own bash, not a subshell: lib.sh's cleanup stops every
	# descendant of $$, which in a subshell is this script
	O=$(cd "$O" && pwd) TOP=$TOP bash -s "$engine" "$net" "$d" "$@" \
		>"$d.log" 2>&1 <<'SH'
set -u
engine=$1 net=$2 d=$3
shift 3
cd "$TOP"
. tests/integration/lib.sh >/dev/null
. tests/integration/vl_common.bash
. tests/integration/bringup_common.bash
start_sim "$net" >/dev/null
start_opensm osm "$engine" "log_flags 0x07" "$@"
read_vl_back "$d"
stop_opensm
cp "$T/osm/opensm.log" "$d/opensm.log"
SH
	[ $? = 0 ] || { echo "OpenSM $engine failed: $(tail -2 "$d.log")"; return 1; }
	python3 - "$d/opensm.log" >"$d.time" <<'PY'
import re, sys
t0 = t1 = None
used = "?"
for line in open(sys.argv[1]):
    m = re.match(r"\w+ +\d+ (\d+):(\d+):(\d+) (\d+)", line)
    if not m:
        continue
    t = (int(m[1]) * 60 + int(m[2])) * 60 + int(m[3]) + int(m[4]) / 1e6
    if "building routing with" in line and t0 is None:
        t0 = t
    if "tables configured on all switches" in line and t1 is None:
        t1 = t
        used = line.split("-> osm_ucast_mgr_process: ")[1].split()[0]
print("%.3f %s" % (t1 - t0 if t0 is not None and t1 is not None else -1, used))
PY
}

# figures DIR-or-FILE LABEL: one table row from vl_check's JSON.
row() {
	local label=$1 j=$2 time=$3
	python3 - "$label" "$j" "$time" <<'PY'
import json, sys
label, path, time = sys.argv[1:4]
r = json.load(open(path))
ok = "yes" if r["acyclic"] else "**no**"
if r["undelivered"] or r["no_sl"]:
    ok += " (%d undelivered, %d without SL)" % (r["undelivered"], r["no_sl"])
print("| %s | %d | %d | %.3f | %d | %d | %s | %.4g |" % (
    label, r["max_link_routes"], r["shift_max_worst"], r["avg_hops"],
    r["max_hops"], len(r["vls_used"]), ok, float(time)))
PY
}

echo "# layered benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# ibsmd times: median of $runs ibsmroute runs, CPU-s, 1 thread; OpenSM: its log, one run"
for spec in "${fabrics[@]}"; do
	name=${spec%%:*}
	wanted "$name" || continue
	src=${spec#*:}
	net=$W/$name.net
	if [ -f "$src" ]; then cp "$src" "$net"
	else
		# shellcheck disable=SC2086
		"$O/ibsmgen" $src -o "$net" || exit 1
	fi
	echo
	echo "## $name ($src)"
	echo
	echo "| engine | busiest link | shift worst | avg hops | max hops | VLs | acyclic | routing s |"
	echo "|---|---|---|---|---|---|---|---|"
	for e in minhop updown; do
		d=$W/$name-$e
		ibsmd_run "$e" 8 "$net" "$d" || continue
		python3 "$CHECK" dump "$d" --json "$d.vl" >/dev/null
		row "ibsmd $e" "$d.vl" "$(cat "$d.time")"
	done
	for vls in 8 1 2 3 4 5 6 7; do
		d=$W/$name-layered-$vls
		ibsmd_run layered "$vls" "$net" "$d" || continue
		python3 "$CHECK" dump "$d" --json "$d.vl" >/dev/null
		row "ibsmd layered, max_vls $vls" "$d.vl" "$(cat "$d.time")"
	done
	[ $opensm = 1 ] || continue
	for e in "nue:nue_max_num_vls 8:qos TRUE" "dfsssp:qos TRUE" \
		"lash:qos TRUE" "updn"; do
		IFS=: read -r eng c1 c2 <<<"$e"
		d=$W/$name-osm-$eng
		args=()
		[ -n "$c1" ] && args+=("$c1")
		[ -n "${c2:-}" ] && args+=("$c2")
		opensm_run "$eng" "$net" "$d" "${args[@]}" || continue
		python3 "$CHECK" live "$d" --json "$d.vl" >/dev/null
		read -r secs used <"$d.time"
		label="OpenSM $eng"
		[ "$used" = "$eng" ] || label="OpenSM $eng (failed: $used used)"
		row "$label" "$d.vl" "$secs"
	done
done

if [ $scale = 1 ]; then
	net=$W/t302020.net
	"$O/ibsmgen" torus 30 20 20 --hosts-per-switch 2 -o "$net" || exit 1
	echo
	echo "## torus 30x20x20, 2 hosts per switch (12,000 switches, 24,000 hosts)"
	echo
	echo "| engine | threads | routing CPU-s (median) | routing wall s | whole run user+sys s | peak RSS MB | busiest link | avg hops | acyclic |"
	echo "|---|---|---|---|---|---|---|---|---|"
	for e in minhop layered; do
		for th in 1 2; do
			for i in $(seq "$runs"); do
				/usr/bin/time -f "%U %S %M" -o "$W/time.$i" "$R" "$net" \
					--routing "$e" --threads $th --json "$W/big.$i.json" \
					>/dev/null 2>&1
			done
			python3 - "$e" "$th" "$W" "$runs" <<'PY'
import json, statistics, sys
e, th, w, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
js = [json.load(open("%s/big.%d.json" % (w, i)))["unicast"] for i in range(1, runs + 1)]
ts = [open("%s/time.%d" % (w, i)).read().split() for i in range(1, runs + 1)]
med = statistics.median
u = js[0]
print("| %s | %s | %.1f | %.1f | %.1f | %.0f | %d | %.3f | %s |" % (
    e, th, med(j["cpu_seconds"] for j in js), med(j["seconds"] for j in js),
    med(float(t[0]) + float(t[1]) for t in ts),
    med(float(t[2]) for t in ts) / 1024, u["max_link_routes"], u["avg_hops"],
    {True: "yes", False: "no", None: "-"}[u["cdg_acyclic"]]))
PY
		done
	done
fi
echo
echo "# load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
