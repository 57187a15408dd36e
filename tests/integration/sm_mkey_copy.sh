#!/bin/bash
# Per-port M_Keys survive a failover: master A and standby B share
# sm.sm_key 0x55 and run m_key.mode per-port.  B copies A's guid2mkey,
# neighbors and mkey.secret (served only to a requester with the SM_Key)
# and, once A is killed, takes them over: its files equal A's, mode 0600,
# and B's status shows the same keys.  A third ibsmd C without an SM_Key
# standing by gets none of these files.  (ibsim does not enforce M_Key,
# design.md's ibsim limits; mkey_wire.sh shows the keys on the wire.)
. "${TOP:-.}/tests/integration/lib.sh"
. "$TOP/tests/integration/bringup_common.bash"
. "$TOP/tests/integration/sm_common.bash"
NET=$TOP/tests/data/default.net
start_sim "$NET"
K="-o sm.sm_key=0x55 -o m_key.mode=per-port"

ibsmd_start a H1 -o sm.priority=10 $K
wait_for 60 st_ge a heavy_sweeps 1 || { tail "$T/ibsmd-a.out"; fail "A did not bring the subnet up"; }
[ -s "$T/state-a/guid2mkey" ] && [ -s "$T/state-a/mkey.secret" ] || fail "A wrote no guid2mkey or mkey.secret"
ibsmd_start b H2 -o sm.priority=1 $K
ibsmd_start c H3 -o sm.priority=0 -o m_key.mode=per-port
wait_for 30 st_is b sm_role STANDBY || fail "B is $(st b sm_role), not STANDBY"
for f in mkeys_copy mkey_nbrs_copy mkey_secret_copy; do
	wait_for 30 st_is b $f current || fail "B holds no current $f: $(st b $f)"
done
sleep 1
[ "$(st c mkeys_copy)" = none ] && [ "$(st c mkey_secret_copy)" = none ] ||
	fail "C, without the SM_Key, got M_Key files: $(st c mkeys_copy) $(st c mkey_secret_copy)"
ls "$T/state-c/"*replica 2>/dev/null | grep -q mkey && fail "C holds a copy of an M_Key file"
cp "$T/state-a/guid2mkey" "$T/g2m.a"
cp "$T/state-a/mkey.secret" "$T/secret.a"
ibsmd_stop c
ibsmd_stop a
wait_for 30 st_is b sm_role MASTER || { tail "$T/ibsmd-b.out"; fail "B did not take over"; }
wait_for 30 st_ge b heavy_sweeps 1 || fail "B did not complete a sweep"
cmp "$T/secret.a" "$T/state-b/mkey.secret" || fail "B's mkey.secret is not A's"
# every key A held, B holds (B may add ports it learned since)
sort "$T/g2m.a" >"$T/a.sorted"; sort "$T/state-b/guid2mkey" >"$T/b.sorted"
[ -z "$(comm -23 "$T/a.sorted" "$T/b.sorted")" ] || { comm -23 "$T/a.sorted" "$T/b.sorted" | head; fail "keys of A missing at B"; }
for f in guid2mkey mkey.secret; do
	[ "$(stat -c %a "$T/state-b/$f")" = 600 ] || fail "B's $f has mode $(stat -c %a "$T/state-b/$f")"
done
grep -q "port M_Keys taken over" "$T/ibsmd-b.out" || fail "B did not log taking the keys over"
ibsmd_stop b
echo "PASS: per-port M_Keys and their secret copied to the SM_Key standby and taken over; none to a standby without the key"
