#!/bin/bash
# SIGTERM mid-operation: ibsmd is stopped with SIGTERM
# in each heavy-sweep phase (DISCOVER, CONFIGURE, ACTIVATE) and while an
# MFT programming pass has blocks in flight -- the restart's own sweep and
# a sweep of the running daemon -- and started again each time.  The
# moment is chosen with IBSMD_TEST_SIGTERM_AT (daemon/core/testpoint.c), the
# signal is an ordinary SIGTERM.  At the end every port has the LID it had,
# every group its members and MLID, the LFTs walk every host pair and the
# MFTs read back with ibroute -M deliver every group's packets.
. "$TOP/tests/integration/mcast_common.bash"
. "$TOP/tests/integration/bringup_common.bash"
cd "$T" || fail "cd"
[ -x "$O/tests/sim/mcast_joins" ] || skip "tests/sim/mcast_joins not built"
"$O/ibsmgen" fattree2 --hosts 32 -o "$T/ft.net" || fail "ibsmgen"
"$O/ibsmpattern" "$T/ft.net" random --count 24 --size 2-5 --seed 9 \
	--members desc -o "$T/pattern" 2>/dev/null || fail "ibsmpattern"
mc_start "$T/ft.net"
sim ibnetdiscover >"$T/topo0" 2>/dev/null
sed -n 's/.*"H-[0-9a-f]*"\[1\](\([0-9a-f]*\)).*# "\([^"]*\)".*/\2 \1/p' \
	"$T/topo0" >"$T/guids"
awk 'NR == FNR { g[$1] = $2; next }
     $1 == "+" { for (i = 3; i <= NF; i++) print $2, "0x" g[$i], NF - 2 }' \
	"$T/guids" "$T/pattern" >"$T/coll"
sim "$O/tests/sim/mcast_joins" --wait-ready "$T/coll" >"$T/joins" 2>/dev/null
[ "$(field ok <"$T/joins")" = "$(wc -l <"$T/coll")" ] || fail "joins refused: $(cat "$T/joins")"

# snapshot NAME: LIDs by port GUID (ibnetdiscover -p) and groups (MGID
# MLID members), once every group is Ready again
snapshot() {
	for _ in $(seq 50); do
		ctl mcg list >"$T/$1.list" 2>/dev/null && ! grep -qv "state=Ready" "$T/$1.list" &&
			[ "$(wc -l <"$T/$1.list")" -ge 24 ] && break
		sleep 0.2
	done
	awk '{ print $1, $2, $NF }' "$T/$1.list" | sort >"$T/$1.groups"
	sim ibnetdiscover -p 2>/dev/null | awk '$1 == "CA" || $1 == "SW" { print $2, $4 }' |
		sort -u >"$T/$1.lids"
	[ -s "$T/$1.lids" ] || fail "no LIDs read back ($1)"
}
snapshot before
# stopped_at POINT: start ibsmd so that it stops itself at POINT, wait for
# it to exit 0 there
stopped_at() {
	IBSMD_TEST_SIGTERM_AT=$1 LD_PRELOAD="$UMAD2SIM${LD_PRELOAD:+:$LD_PRELOAD}" \
		"$O/ibsmd" --state-dir "$T/state" -o control_socket="$T/sock" \
		-o log.level=info >>"$T/ibsmd.log" 2>&1 &
	IBSMD_PID=$!
	if [ -n "${2:-}" ]; then # a sweep of the running daemon
		for _ in $(seq 100); do ctl status 2>/dev/null | grep -q "sm_state MASTER" && break; sleep 0.1; done
		ctl sweep >/dev/null 2>&1
	fi
	for _ in $(seq 300); do kill -0 "$IBSMD_PID" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$IBSMD_PID" 2>/dev/null && { tail -20 "$T/ibsmd.log"; fail "ibsmd did not stop at $1"; }
	wait "$IBSMD_PID"; local rc=$?; IBSMD_PID=
	[ "$rc" -eq 0 ] || fail "stopped at $1: exit $rc"
	local name=$1
	[[ $name =~ ^(.*):[0-9]+$ ]] && name=${BASH_REMATCH[1]}
	grep -q "test point $name " "$T/ibsmd.log" || fail "test point $1 not reached"
	echo "stopped at $1"
}
kill "$IBSMD_PID"; wait "$IBSMD_PID"; IBSMD_PID=
for p in sweep:DISCOVER sweep:CONFIGURE sweep:ACTIVATE mft; do
	stopped_at "$p"
done
# a sweep of the running daemon, stopped in CONFIGURE and ACTIVATE
stopped_at sweep:CONFIGURE:2 resweep
stopped_at sweep:ACTIVATE:2 resweep
mc_ibsmd
snapshot after
diff "$T/before.lids" "$T/after.lids" || fail "LIDs changed across the SIGTERM restarts"
diff "$T/before.groups" "$T/after.groups" || fail "groups, MLIDs or members changed across the restarts"
check_fabric "$T/chk"
{ awk '$1 == "+" { print }' "$T/pattern" | while read -r _ mg rest; do
	echo "$mg $(awk -v g="$mg" '$1 == g { print $2 }' "$T/after.groups" | sed 's/mlid=//') $rest"
  done; } >"$T/walkgroups"
mc_walk "$T/walkgroups" || fail "MFT deliveries wrong after the restarts"
echo "PASS: LIDs, groups, MLIDs and tables survive SIGTERM in every phase"
