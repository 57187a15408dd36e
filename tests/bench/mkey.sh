#!/bin/bash
# M_Key benchmark (not a test): what keying every port costs a bring-up.
# On the same ibsim fabric, wall time of `ibsmd --once` without M_Keys,
# with per-port keys at protect 2 (every SMP carries its port's key,
# every port gets its key in its PortInfo Set, guid2mkey and neighbors
# written), and of `opensm --once` (--maxsmps 64) with and without one
# m_key; medians of N runs, each on a freshly started ibsim, runs
# interleaved so load changes hit every variant alike.  Prints the ratio
# keyed / unkeyed for each SM and ibsmd keyed / OpenSM keyed.
#
# usage: O=build tests/bench/mkey.sh [-n RUNS] [FABRIC...]
#   FABRIC: ft2:HOSTS (ibsmgen fattree2 --hosts HOSTS) or a .net file;
#   default: ft2:500 ft2:1000
set -u
O=${O:-build}
O=$(cd "$O" && pwd)
RUNS=3
if [ "${1:-}" = -n ]; then RUNS=$2; shift 2; fi
FABRICS=${*:-ft2:500 ft2:1000}
UMAD2SIM=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
W=$(mktemp -d "${TMPDIR:-/tmp}/ibsmd-bench.XXXXXX")
export IBSIM_SOCKNAME="ibsmdbench$$"
SIMPID=
cleanup() { [ -n "$SIMPID" ] && kill "$SIMPID" 2>/dev/null; wait 2>/dev/null; rm -rf "$W"; }
. "$(dirname "$0")/../procs.bash"
procs_guard cleanup
. "$(dirname "$0")/sim.bash"

gen() { # gen SPEC FILE
	case $1 in
	ft2:*) "$O/ibsmgen" fattree2 --hosts "${1#ft2:}" -o "$2" 2>/dev/null ;;
	*) cp "$1" "$2" ;;
	esac
}

# One SM under a fresh ibsim; prints seconds, or "fail".
timed() {
	local net=$1 log=$2; shift 2
	local s e rc
	start_sim "$net"
	s=$(now)
	LD_PRELOAD=$UMAD2SIM "$@" >"$log" 2>&1
	rc=$?
	e=$(now)
	stop_sim
	[ $rc -eq 0 ] || { echo fail; return; }
	echo "$e - $s" | bc
}

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { print (NR ? v[int((NR + 1) / 2)] : "n/a") }'; }

# OpenSM's configuration, keyed and not (its m_key options).
opensm -c "$W/osm-off.conf" >/dev/null 2>&1
sed -e 's/^m_key .*/m_key 0x1111222233334444/' \
	-e 's/^m_key_protection_level .*/m_key_protection_level 2/' \
	-e 's/^m_key_lease_period .*/m_key_lease_period 60/' \
	"$W/osm-off.conf" >"$W/osm-key.conf"
grep -q '^m_key 0x1111222233334444' "$W/osm-key.conf" || { echo "cannot make OpenSM's m_key config" >&2; exit 1; }

printf "%-12s %6s | %9s %9s %6s | %9s %9s %6s | %6s\n" fabric hosts \
	ibsmd_off ibsmd_key ratio osm_off osm_key ratio key_vs
for spec in $FABRICS; do
	net=$W/fabric.net
	gen "$spec" "$net" || { echo "cannot generate $spec" >&2; continue; }
	hosts=$(grep -c '^Hca' "$net")
	a=""; b=""; c=""; d=""
	for _ in $(seq "$RUNS"); do
		rm -rf "$W/st"
		a="$a $(timed "$net" "$W/off.log" "$O/ibsmd" --once --state-dir "$W/st")"
		rm -rf "$W/st"
		b="$b $(timed "$net" "$W/key.log" "$O/ibsmd" --once --state-dir "$W/st" \
			-o m_key.mode=per-port -o m_key.protect=2)"
		for cf in off key; do
			rm -rf "$W/osm"; mkdir -p "$W/osm"
			t=$(OSM_CACHE_DIR=$W/osm timed "$net" "$W/osm.log" opensm --once \
				--maxsmps 64 -F "$W/osm-$cf.conf" -f "$W/osm.file")
			[ $cf = off ] && c="$c $t" || d="$d $t"
		done
	done
	ma=$(echo "$a" | median); mb=$(echo "$b" | median)
	mc=$(echo "$c" | median); md=$(echo "$d" | median)
	printf "%-12s %6s | %9.3f %9.3f %6.2f | %9.3f %9.3f %6.2f | %6.2f\n" "$spec" "$hosts" \
		"$ma" "$mb" "$(echo "scale=3; $mb / $ma" | bc)" "$mc" "$md" \
		"$(echo "scale=3; $md / $mc" | bc)" "$(echo "scale=3; $mb / $md" | bc)"
	echo "  runs: ibsmd-off [$a ] ibsmd-key [$b ] osm-off [$c ] osm-key [$d ]" >&2
done
