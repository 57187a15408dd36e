#!/bin/bash
# A damaged guid2lid does not cost every port its LID.  ibsmd --once brings
# default.net up; one line of the state directory's guid2lid is then
# damaged (as a hand edit or a disk error would) and ibsim restarted (every
# LID gone); ibsmd --once from another host, where a fresh assignment
# numbers ports differently (bringup_restart.sh shows it), must warn naming
# the file and line, and give every other port its old LID back.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bringup_common.bash"
need ibsim ibnetdiscover

net=$TOP/tests/data/default.net
st=$BASE_T/state
lids() {
	sim "$@" ibnetdiscover -p 2>/dev/null |
		awk '$7 == "-" { print $4, $2; print $11, $9 }' | sort -u
}

start_sim "$net"
sim "$IBSMD" --once --state-dir "$st" >"$T/run1.log" 2>&1 ||
	{ tail -5 "$T/run1.log"; fail "first --once failed"; }
lids >"$BASE_T/lids1"
n=$(grep -c '^0x' "$st/guid2lid")
[ "$n" -ge 10 ] || fail "guid2lid has $n entries"
# line 5 (counting blank lines) becomes garbage; remember whose it was
bad=$(sed -n 5p "$st/guid2lid" | awk '{ print $1 }')
[ -n "$bad" ] || fail "line 5 of guid2lid is empty: $(head -6 "$st/guid2lid")"
sed -i '5s/.*/0x00zz1 garbage \x01/' "$st/guid2lid"

other=$(awk '/^Hca/ { h = $3 } END { gsub(/"/, "", h); print h }' "$net")
start_sim "$net"
sim_at "$other" "$IBSMD" --once --state-dir "$st" -o log.level=info \
	>"$T/run2.log" 2>&1 || { tail -5 "$T/run2.log"; fail "--once with a damaged guid2lid failed"; }
grep -q "guid2lid:5: .*line skipped" "$T/run2.log" ||
	{ grep -i guid2lid "$T/run2.log"; fail "no warning naming guid2lid line 5"; }
lids >"$BASE_T/lids2"
# every port but the damaged line's keeps its LID
grep -v -i "^$bad " "$BASE_T/lids1" >"$BASE_T/want"
grep -v -i "^$bad " "$BASE_T/lids2" >"$BASE_T/got"
[ "$(wc -l <"$BASE_T/want")" -ge $((n - 1)) ] || fail "read back only $(wc -l <"$BASE_T/want") ports"
cmp -s "$BASE_T/want" "$BASE_T/got" ||
	{ diff "$BASE_T/want" "$BASE_T/got" | head; fail "ports lost their LIDs because of one damaged line"; }
stop_sim
echo "ok: guid2lid line 5 skipped with a warning, $(wc -l <"$BASE_T/want") other ports kept their LIDs"
