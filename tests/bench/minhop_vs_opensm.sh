#!/bin/bash
# Route quality of our minhop against OpenSM 3.3.23's minhop on the same
# fabrics, measured the same way: OpenSM runs once under ibsim on each
# bundled fabric (or the net files given), its guid2lid and lfts.dump are
# walked by our LFT walk (tests/bench/lft_metrics.c), and ibsmroute's
# report gives ours.  Prints one row per fabric: busiest link (CA-to-CA
# routes over a switch-to-switch link), average hops, credit loops.
#   O=build tests/bench/minhop_vs_opensm.sh [NET...]
O=${O:-build}
export O=$(cd "$O" && pwd)
TOP=$(pwd)
. tests/integration/lib.sh
. tests/integration/bringup_common.bash
. "$(dirname "$0")/../procs.bash"
procs_guard cleanup
need ibsim opensm python3
cc -std=gnu11 -O2 -I. -D_GNU_SOURCE -pthread -o "$T/lm" tests/bench/lft_metrics.c \
	"$O/libibsmrouting.a" "$O/libibsm.a" -lm || fail "cannot build lft_metrics"
nets=${*:-$(ls tests/data/*.net)}
printf "%-18s %22s %22s %14s\n" fabric "max link routes o/i" "avg hops o/i" "cdg ok o/i"
for net in $nets; do
	name=$(basename "$net" .net)
	start_sim "$net"
	mkdir -p "$T/cache" "$T/dump"
	OSM_CACHE_DIR=$T/cache sim timeout 300 opensm --once -D 0x43 \
		--dump_files_dir "$T/dump" -f "$T/osm.log" >/dev/null 2>&1 ||
		fail "$name: opensm --once failed (see $T/osm.log)"
	stop_sim
	osm=$("$T/lm" "$net" "$BASE_T/$name/cache/guid2lid" \
		"$BASE_T/$name/dump/opensm-lfts.dump") || fail "$name: cannot walk OpenSM's tables"
	ours=$("$O/ibsmroute" "$net" --json - 2>/dev/null | python3 -c '
import json, sys
u = json.load(sys.stdin)["unicast"]
print("max_link_routes=%d avg_hops=%.4f cdg_acyclic=%s" % (u["max_link_routes"],
      u["avg_hops"], str(u["cdg_acyclic"]).lower()))')
	python3 - "$name" "$osm" "$ours" <<'PY'
import sys
name, o, i = sys.argv[1], dict(kv.split("=") for kv in sys.argv[2].split()), \
    dict(kv.split("=") for kv in sys.argv[3].split())
print("%-18s %10s / %-9s %10s / %-9s %6s / %-6s" % (name,
      o["max_link_routes"], i["max_link_routes"], o["avg_hops"], i["avg_hops"],
      o["cdg_acyclic"], i["cdg_acyclic"]))
if o["unreachable_pairs"] != "0":
    print("  (OpenSM left %s pairs unreachable)" % o["unreachable_pairs"])
PY
done
