#!/bin/bash
# Churn: CYCLES (default 5000) join/leave cycles of standard groups by
# proxy joins from one simulated node (tests/sim/mcast_churn.c), with
# FullMember, SendOnlyFullMember and both (a port holding both leaves the
# SendOnlyFullMember bit first: the partial leave that leaks MLIDs in
# OpenSM 3.3.23).  Every answer is checked as it comes.  Afterwards nothing
# is left: no group but the IPoIB broadcast group in MCGStateRecord, no
# engine group, tree or color in use, and no MFT entry on any switch as
# ibroute -M reads them.
. "${TOP:-.}/tests/integration/mcast_common.bash"
CYCLES=${MC_CYCLES:-5000}
[ -x "$O/tests/sim/mcast_churn" ] || skip "tests/sim/mcast_churn not built"
"$O/ibsmgen" fattree2 --hosts 32 -o "$T/ft.net" || fail "ibsmgen"
mc_start "$T/ft.net"
guids=$(sim ibnetdiscover 2>/dev/null |
	sed -n 's/.*"H-[0-9a-f]*"\[1\](\([0-9a-f]*\)).*/0x\1/p' | sort -u)
[ "$(echo $guids | wc -w)" -ge 32 ] || fail "host port GUIDs: $guids"
out=$(sim_at H1 "$O/tests/sim/mcast_churn" "$CYCLES" 24 $guids 2>&1 | grep -v ibwarn) ||
	fail "churn: $out"
echo "$out"
grep -q "^cycles $CYCLES " <<<"$out" || fail "churn ran short: $out"
sleep 0.5 # the last MFT pass
ctl mcg stats >"$T/stats"
cat "$T/stats"
for k in engine_groups trees colors_used routing_queue; do
	[ "$(field $k <"$T/stats")" = 0 ] || fail "$k left after churn: $(cat "$T/stats")"
done
[ "$(field groups <"$T/stats")" = 1 ] || fail "groups left after churn: $(ctl mcg list)"
out=$(sa_at H3 mcg-state)
[ "$(grep -c '^mgid' <<<"$out")" = 1 ] && grep -q "^mgid ff12:401b:ffff::ffff:ffff" <<<"$out" ||
	fail "MCGStateRecord table after churn: $out"
mc_walk /dev/null >/dev/null
n=$(grep -c '^0x' "$T/mfts.txt")
[ "$n" = 0 ] || { grep -B4 '^0x' "$T/mfts.txt" | head; fail "$n MFT entries left on the switches"; }
[ "$(grep -c '^Multicast mlids' "$T/mfts.txt")" -gt 0 ] || fail "no MFT read back"
echo "PASS: $CYCLES join/leave cycles, nothing left (groups, colors, MFT entries)"
