#!/bin/bash
# Event subscriptions at the SA (InformInfo, IBA 13.4.8.3) and the reports
# that follow them.  Host H3 subscribes to traps 64-67 (tests/sim/
# sa_inform, holding issm: ibsim gives unsolicited requests only to such a
# client) and must get, exactly once each: 66 and 67 when H5 creates and
# leaves a group (with its MGID), 65 when H7's link goes down and 64 when
# it comes back (with H7's port GID), each from the SM's LID.  saquery
# IIR lists the subscriptions; they survive a SIGKILL and restart
# (informs.state); a subscriber that no longer answers reports loses its
# subscriptions, with a log line.  With partitions (the hosts only
# limited members of the default one, H3 and H5 full members of 0x0002),
# H3 hears of H5's link going down and up, and nothing of H7's.
. "${TOP:-.}/tests/integration/mcast_common.bash"
SUB="$O/tests/sim/sa_inform"
[ -x "$SUB" ] || skip "tests/sim/sa_inform not built"
"$O/ibsmgen" fattree2 --hosts 16 -o "$T/ft.net" || fail "ibsmgen"
mc_start "$T/ft.net"
sim ibnetdiscover >"$T/topo" 2>/dev/null
guid() { sed -n "s/.*\"H-[0-9a-f]*\"\\[1\\](\\([0-9a-f]*\\)).*# \"$1\".*/\\1/p" "$T/topo" | head -1; }
gid_of() { printf 'fe80::%x:%x\n' $((0x$1 >> 16 & 0xffff)) $((0x$1 & 0xffff)); }
g3=$(guid H3); g7=$(guid H7)
[ -n "$g3" ] && [ -n "$g7" ] || fail "no port GUIDs for H3/H7"
# H7's switch end, to link it again
read -r sw swport < <(awk '/^Hca/ && /"H7"/ { h = 1; next } h && /^\[1\]/ { split($0, a, "\""); p = $2; sub(/.*\[/, "", p); sub(/\].*/, "", p); print a[2], p; exit }' "$T/ft.net")
[ -n "$sw" ] || fail "H7's switch not found in the net file"

sim_at H3 "$SUB" 15 64,65,66,67 >"$T/sub.out" 2>"$T/sub.err" &
SP=$!
for _ in $(seq 50); do [ "$(grep -c '^subscribed .* status 0x0000' "$T/sub.out")" = 4 ] && break; sleep 0.1; done
[ "$(grep -c '^subscribed .* status 0x0000' "$T/sub.out")" = 4 ] || { cat "$T/sub.out" "$T/sub.err"; fail "H3 could not subscribe"; }
sleep 0.5 # the subscriber holds issm and listens
sim saquery IIR >"$T/iir" 2>&1 || { cat "$T/iir"; fail "saquery IIR failed"; }
grep -q "SubscriberGID.*$(gid_of "$g3")" "$T/iir" || { cat "$T/iir"; fail "saquery IIR does not list H3's subscriptions"; }
echo "saquery IIR lists H3's subscriptions"

MG=ff12:601b:ffff::e:1
sa_at H5 join $MG | grep -q '^status 0x0000' || fail "H5's join"
sa_at H5 leave $MG | grep -q '^status 0x0000' || fail "H5's leave"
ibsim_cmd "Unlink \"H7\"[1]"
heavy_sweep
ibsim_cmd "Link \"H7\"[1] \"$sw\"[$swport]"
heavy_sweep
sleep 1
killtree "$SP"; wait "$SP"
cat "$T/sub.out"
smlid=$(field sm_lid < <(ctl status))
expect() { # expect TRAP GID: exactly one such report, from the SM
	local n
	n=$(grep -c "^report $1 $2 $smlid\$" "$T/sub.out")
	[ "$n" = 1 ] || fail "$n reports of trap $1 for $2 (expected 1)"
}
expect 66 $MG
expect 67 $MG
expect 65 "$(gid_of "$g7")"
expect 64 "$(gid_of "$g7")"
[ "$(grep -c '^report ' "$T/sub.out")" = 4 ] || fail "reports other than the four expected"

# Acknowledged subscriptions are durable.
kill -9 "$IBSMD_PID"; wait "$IBSMD_PID" 2>/dev/null
mc_ibsmd
# ibsim hands the first request for the SM's node to the killed client,
# whose slot it frees only when that write fails: ask again (design.md,
# ibsim limits)
for _ in 1 2 3; do sim saquery IIR >"$T/iir2" 2>&1 && break; done
grep -q "SubscriberGID.*$(gid_of "$g3")" "$T/iir2" || { cat "$T/iir2"; fail "H3's subscriptions lost across SIGKILL and restart"; }
echo "subscriptions kept across SIGKILL and restart"

# H3 no longer answers: the next report fails and its subscriptions go.
sa_at H5 join ff12:601b:ffff::e:2 | grep -q '^status 0x0000' || fail "H5's second join"
for _ in $(seq 50); do grep -q "answered no report" "$T/ibsmd.log" && break; sleep 0.2; done
grep "answered no report" "$T/ibsmd.log" || fail "no log line for the subscriber that stopped answering"
sim saquery IIR >"$T/iir3" 2>&1
grep -q "SubscriberGID.*$(gid_of "$g3")" "$T/iir3" && fail "the silent subscriber's subscriptions were kept"
kill -0 "$IBSMD_PID" || fail "ibsmd died"

# Partitions: a subscriber hears only of ports it shares one with.
kill "$IBSMD_PID"; wait "$IBSMD_PID" 2>/dev/null
cat >"$T/parts.yaml" <<'Y'
partitions:
  - name: default
    pkey: 0x7fff
    members: switches
    limited: hosts
  - name: pair
    pkey: 0x0002
    members: [H3, H5]
Y
mc_ibsmd -c "$T/parts.yaml"
for _ in 1 2 3; do sim saquery -N >/dev/null 2>&1 && break; done # the dead slot
sim_at H3 "$SUB" 15 64,65 >"$T/sub2.out" 2>"$T/sub2.err" &
SP=$!
for _ in $(seq 50); do [ "$(grep -c "^subscribed .* status 0x0000" "$T/sub2.out" 2>/dev/null)" = 2 ] && break; sleep 0.1; done
[ "$(grep -c '^subscribed .* status 0x0000' "$T/sub2.out")" = 2 ] || { cat "$T/sub2.out" "$T/sub2.err"; fail "H3 could not subscribe with partitions"; }
sleep 0.5
read -r sw5 swport5 < <(awk '/^Hca/ && /"H5"/ { h = 1; next } h && /^\[1\]/ { split($0, a, "\""); p = $2; sub(/.*\[/, "", p); sub(/\].*/, "", p); print a[2], p; exit }' "$T/ft.net")
for h in "H7 $sw $swport" "H5 $sw5 $swport5"; do
	set -- $h
	ibsim_cmd "Unlink \"$1\"[1]"
	heavy_sweep
	ibsim_cmd "Link \"$1\"[1] \"$2\"[$3]"
	heavy_sweep
done
sleep 1
killtree "$SP"; wait "$SP"
cat "$T/sub2.out"
g5=$(guid H5)
smlid=$(field sm_lid < <(ctl status))
for tr in 65 64; do
	[ "$(grep -c "^report $tr $(gid_of "$g5") $smlid\$" "$T/sub2.out")" = 1 ] ||
		fail "H3 did not hear trap $tr of H5, with whom it shares partition 0x0002"
done
grep -q "^report .* $(gid_of "$g7") " "$T/sub2.out" && fail "H3 heard of H7, with whom it shares no partition"
echo "PASS: traps 64-67 reported once each to the subscriber; subscriptions durable; a silent subscriber dropped; partitions respected"
