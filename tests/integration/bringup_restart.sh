#!/bin/bash
# Restart keeps every LID.  ibsmd --once brings a fabric up; then ibsim is
# restarted (every LID in the fabric is gone) and ibsmd starts from another
# host, where a fresh breadth-first assignment would number ports
# differently: with the state directory's guid2lid every port must get its
# old LID back.  Without guid2lid (control) the LIDs must differ, which
# shows the check can fail.  Also: a second --once on the running fabric
# keeps the LIDs and sends no PortInfo Set.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bringup_common.bash"
need ibsim ibnetdiscover python3

net=$TOP/tests/data/default.net
[ -f "$net" ] || fail "missing $net"
st=$BASE_T/state

# "guid lid" of every port, from the fabric itself.
lids() {
	sim "$@" ibnetdiscover -p 2>/dev/null |
		awk '$7 == "-" { print $4, $2; print $11, $9 }' | sort -u
}

start_sim "$net"
sim "$IBSMD" --once --state-dir "$st" >"$T/run1.log" 2>&1 ||
	{ tail -5 "$T/run1.log"; fail "first --once failed"; }
lids >"$BASE_T/lids1"
[ -s "$BASE_T/lids1" ] || fail "no LIDs read back"

sim "$IBSMD" --once --state-dir "$st" -o log.level=info >"$T/run2.log" 2>&1 ||
	{ tail -5 "$T/run2.log"; fail "second --once failed"; }
lids >"$BASE_T/lids2"
cmp -s "$BASE_T/lids1" "$BASE_T/lids2" || fail "LIDs changed on a running fabric"
grep -q "0 ports armed, 0 activated" "$T/run2.log" ||
	fail "second --once re-armed ports: $(grep 'subnet up' "$T/run2.log")"

# Fresh ibsim, SM on the last host: LIDs come from guid2lid only.
other=$(awk '/^Hca/ { h = $3 } END { gsub(/"/, "", h); print h }' "$net")
start_sim "$net"
sim_at "$other" "$IBSMD" --once --state-dir "$st" -o log.level=info \
	>"$T/run3.log" 2>&1 || { tail -5 "$T/run3.log"; fail "restart --once failed"; }
grep "LIDs:" "$T/run3.log"
lids >"$BASE_T/lids3"
cmp -s "$BASE_T/lids1" "$BASE_T/lids3" ||
	{ diff "$BASE_T/lids1" "$BASE_T/lids3" | head; fail "LIDs changed across a restart"; }

# Control: the same restart without the state directory renumbers.
start_sim "$net"
sim_at "$other" "$IBSMD" --once --state-dir "$BASE_T/empty" >"$T/run4.log" 2>&1 ||
	fail "control --once failed"
lids >"$BASE_T/lids4"
! cmp -s "$BASE_T/lids1" "$BASE_T/lids4" ||
	fail "control run kept the LIDs without guid2lid: the check proves nothing"
stop_sim
echo "ok: $(wc -l <"$BASE_T/lids1") ports kept their LIDs across a restart"
