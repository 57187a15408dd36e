#!/bin/bash
# M_Key on the wire and across restarts, under ibsim.  ibsim 0.10 neither
# checks M_Key nor keeps it (a PortInfo Set's M_Key, protect bits and
# lease are dropped; its TODO lists "MKey support"), so what ibsmd sends
# is read from a capture of every MAD it hands to libibumad
# (tests/tap/libmadtap.so) and the protection logic itself is unit-tested
# on a model of the ports' check (tests/unit/test_daemon_mkey.c).
#  1. per-port keys, protect 2: every CA port and switch is given its own
#     key, SipHash-2-4 of its GUID under state_dir/mkey.secret (checked
#     here with an independent SipHash), with protect 2 and the lease, and
#     guid2mkey (0600) lists exactly those keys;
#  2. a restart reads guid2mkey and neighbors first: every SMP of its
#     sweep, the first NodeInfo behind each link included, carries the
#     key of the port it goes to;
#  3. fixed keys, changed between two runs: the second run qualifies every
#     SMP with the old key it finds in guid2mkey and installs the new one,
#     which guid2mkey then lists;
#  4. the daemon reports it (ibsmctl status mkey_*), and counts a trap 256
#     and reads the port that sent it with its key;
#  5. SIGHUP turning per-port keys on: the secret is made and the next
#     heavy sweep keys every port.
. "${TOP:-.}/tests/integration/lib.sh"
. "$TOP/tests/integration/bringup_common.bash"
. "$TOP/tests/integration/sm_common.bash"
need python3 smpquery
MADTAP=$O/tests/tap/libmadtap.so
[ -f "$MADTAP" ] || fail "$MADTAP not built"
NET=$TOP/tests/data/default.net
start_sim "$NET"
CHECK="python3 $TOP/tests/integration/mkey_check.py"

once() { # NAME STATE-DIR ibsmd-args...: --once with a capture
	local name=$1 st=$2; shift 2
	MADTAP_FILE=$T/$name.cap LD_PRELOAD=$MADTAP sim_at H1 "$IBSMD" --once \
		--state-dir "$st" "$@" >"$T/$name.log" 2>&1 ||
		{ tail -5 "$T/$name.log"; fail "$name: ibsmd --once exited $?"; }
	python3 "$TOP/tests/integration/madtap.py" "$T/$name.cap" >"$T/$name.smps"
}

# 1. per-port keys
st=$T/pp
once pp1 "$st" -o m_key.mode=per-port -o m_key.protect=2 -o m_key.lease_s=90
[ "$(wc -l <"$st/guid2mkey")" -gt 0 ] || fail "guid2mkey empty"
want=$(( $(grep -c '^Switch' "$NET") + $(awk '/^Hca/ { n += $2 } END { print n }' "$NET") ))
have=$(wc -l <"$st/guid2mkey")
[ "$have" = "$want" ] || fail "guid2mkey lists $have ports, want $want (every switch and CA port)"
[ "$(stat -c %a "$st/guid2mkey")" = 600 ] || fail "guid2mkey mode $(stat -c %a "$st/guid2mkey")"
[ "$(stat -c %a "$st/mkey.secret")" = 600 ] || fail "mkey.secret mode $(stat -c %a "$st/mkey.secret")"
[ "$(sort -u -k2 "$st/guid2mkey" | wc -l)" = "$have" ] || fail "two ports share a key"
$CHECK derive "$st" || fail "per-port keys"
$CHECK sets "$T/pp1.smps" "$st" 2 90 || fail "per-port Sets"

# 2. the restart: every SMP with its port's key, none with 0
cp "$st/guid2mkey" "$T/guid2mkey.1"
once pp2 "$st" -o m_key.mode=per-port -o m_key.protect=2 -o m_key.lease_s=90
grep -q "port keys read from" "$T/pp2.log" || fail "the restart did not read guid2mkey"
$CHECK headers "$T/pp2.smps" "$st" || fail "restart: an SMP without its port's key"
cmp -s "$T/guid2mkey.1" "$st/guid2mkey" || fail "the restart changed the keys"
ni=$(awk '$2 == "0x0011"' "$T/pp2.smps" | wc -l)
echo "restart: $ni NodeInfo Gets, each with the key of the port behind the link"

# 3. a changed fixed key
st=$T/fx
A=0x1111222233334444 B=0x5555666677778888
once fx1 "$st" -o m_key.mode=fixed -o m_key.key=$A
$CHECK headers "$T/fx1.smps" "$st" || fail "fixed: an SMP without key A"
$CHECK sets "$T/fx1.smps" "$st" 1 60 || fail "fixed: Sets of key A"
once fx2 "$st" -o m_key.mode=fixed -o m_key.key=$B
$CHECK sets "$T/fx2.smps" "$st" 1 60 $A || fail "key change: Sets must carry the old key A and install B"
$CHECK headers "$T/fx2.smps" "$st" $A || fail "key change: an SMP with neither key"
[ "$(awk '{ print $2 }' "$st/guid2mkey" | sort -u)" = "$B" ] || fail "guid2mkey does not list only the new key"
echo "key change: old key A qualifies, new key B installed and recorded"

# What ibsim shows (it keeps no M_Key): if a future ibsim does, it must be ours.
shown=$(sim_at H2 smpquery -K -y $B -D portinfo 0 2>/dev/null | sed -n 's/^Mkey:\.*//p')
guid=$(sim_at H2 smpquery -D nodeinfo 0 2>/dev/null | sed -n 's/^PortGuid:\.*//p')
case $shown in
"" ) fail "smpquery portinfo printed no Mkey" ;;
0x0000000000000000 | 0x0 ) echo "ibsim shows M_Key $shown (it keeps none: ibsim limit)" ;;
*) grep -qi "^$guid $shown\$" "$st/guid2mkey" || fail "port $guid shows M_Key $shown, not guid2mkey's" ;;
esac

# 4. the daemon, and a trap 256 (Bad M_Key) from H5: counted, and H5 is
# read with its key (a LID-routed PortInfo Get, modifier 0), which stops
# its lease timer.
MADTAP_FILE=$T/d.cap LD_PRELOAD=$MADTAP ibsmd_start a H1 -o m_key.mode=fixed -o m_key.key=$B
wait_for 60 st_ge a heavy_sweeps 1 || { tail "$T/ibsmd-a.out"; fail "no heavy sweep"; }
[ "$(st a mkey_mode)" = fixed ] || fail "mkey_mode $(st a mkey_mode)"
[ "$(st a mkey_ports_known)" = "$want" ] || fail "mkey_ports_known $(st a mkey_ports_known), want $want"
sim_at H5 "$O/tests/sim/trap_flood" 1 256 >/dev/null || fail "trap_flood failed"
wait_for 20 st_ge a mkey_violations 1 || fail "trap 256 not counted (mkey_violations $(st a mkey_violations))"
grep -q "M_Key: trap 256 from LID" "$T/ibsmd-a.out" || fail "trap 256 not logged"
refresh_seen() {
	python3 "$TOP/tests/integration/madtap.py" "$T/d.cap" |
		grep -q "^get 0x0015 0x00000000 $(printf 0x%016x $B)\$"
}
wait_for 10 refresh_seen || fail "no PortInfo Get with the key after the trap"
ibsmd_stop a
echo "daemon: mkey_mode fixed, $want ports known; trap 256 counted and the port read with its key"

# 5. SIGHUP: m_key.mode off -> per-port
printf 'm_key:\n  mode: off\n' >"$T/k.yaml"
ibsmd_start h H1 -c "$T/k.yaml"
wait_for 60 st_ge h heavy_sweeps 1 || { tail "$T/ibsmd-h.out"; fail "no heavy sweep (h)"; }
[ -e "$T/state-h/mkey.secret" ] && fail "mkey.secret made with m_key.mode off"
[ "$(st h mkey_keys_set)" = 0 ] || fail "keys set with m_key.mode off"
heavy=$(st h heavy_sweeps)
printf 'm_key:\n  mode: per-port\n  protect: 1\n' >"$T/k.yaml"
# ibsmd_start may run ibsmd in a subshell: signal the daemon, its child
pid=$(ps -o pid= --ppid "$IBSMD_PID_h" | head -1)
kill -HUP ${pid:-$IBSMD_PID_h}
wait_for 60 st_ge h heavy_sweeps $((heavy + 1)) || fail "no heavy sweep after SIGHUP"
wait_for 20 st_ge h mkey_keys_set "$want" || fail "after SIGHUP $(st h mkey_keys_set) keys set, want $want"
[ "$(stat -c %a "$T/state-h/mkey.secret")" = 600 ] || fail "no mkey.secret after SIGHUP"
wait_for 10 test -s "$T/state-h/guid2mkey" || fail "no guid2mkey after SIGHUP"
$CHECK derive "$T/state-h" || fail "keys after SIGHUP"
ibsmd_stop h
echo "SIGHUP to per-port: $want ports keyed, guid2mkey written"
