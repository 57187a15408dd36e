#!/bin/bash
# Timeouts of collective groups (docs/design.md §4.2): a group missing a member
# stays in ReceivingJoinReq until multicast.join_timeout_ms, then goes to
# Destroying and is removed; a Ready group whose members do not all leave
# goes from ReceivingLeaveReq to Destroying after multicast.leave_timeout_ms
# and its color and MFT entries are free again (mcg stats, ibroute -M).
. "${TOP:-.}/tests/integration/mcast_common.bash"
"$O/ibsmgen" fattree2 --hosts 16 -o "$T/ft.net" || fail "ibsmgen"
mc_start "$T/ft.net" -o multicast.join_timeout_ms=1500 \
	-o multicast.leave_timeout_ms=1500
J=ff12:601b:ffff::71 L=ff12:601b:ffff::72

# join timeout: 2 of 3 members
for h in H1 H9; do
	grep -q "^mlid 0x0000" <<<"$(sa_at $h join $J --member-count 3)" ||
		fail "a collective join before Ready must answer MLID 0"
done
[ "$(field state < <(sa_at H1 mcg-state $J))" = ReceivingJoinReq ] ||
	fail "incomplete group not in ReceivingJoinReq"
sleep 2
grep -q "ERR_NO_RECORDS" <<<"$(sa_at H1 mcg-state $J)" ||
	fail "group still there after the join timeout: $(ctl mcg show $J)"
grep -q "mcg $J: ReceivingJoinReq -> Destroying (join timeout" "$T/ibsmd.log" ||
	fail "no Destroying transition logged"

# leave timeout: Ready, one member leaves, the other stays
for h in H2 H10; do sa_at $h join $L --member-count 2 >/dev/null; done
for _ in $(seq 30); do
	[ "$(field state < <(sa_at H2 mcg-state $L))" = Ready ] && break
	sleep 0.1
done
[ "$(field state < <(sa_at H2 mcg-state $L))" = Ready ] || fail "$L not Ready"
[ "$(field colors_used < <(ctl mcg stats))" = 1 ] || fail "no color in use for $L"
sa_at H2 leave $L >/dev/null
out=$(sa_at H10 mcg-state $L)
[ "$(field state <<<"$out")" = ReceivingLeaveReq ] && [ "$(field left <<<"$out")" = 1 ] ||
	fail "after the first leave: $out"
[ "$(field mlid <<<"$out")" != 0x0000 ] || fail "routes dropped before every member left"
sleep 2
grep -q "ERR_NO_RECORDS" <<<"$(sa_at H10 mcg-state $L)" || fail "group still there after the leave timeout"
ctl mcg stats >"$T/stats"
[ "$(field colors_used <"$T/stats")" = 0 ] && [ "$(field trees <"$T/stats")" = 0 ] ||
	fail "color not freed: $(cat "$T/stats")"
mc_walk /dev/null >/dev/null
[ "$(grep -c '^0x' "$T/mfts.txt")" = 0 ] || fail "MFT entries left: $(grep -B3 '^0x' "$T/mfts.txt")"
grep -q "ReceivingLeaveReq -> Destroying (leave timeout" "$T/ibsmd.log" || fail "leave timeout not logged"
echo "PASS: join and leave timeouts destroy the groups and free their color"
