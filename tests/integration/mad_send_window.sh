#!/bin/bash
# The loop never waits on the MAD transport (docs/design.md §3.1, the send
# window).  Eight client nodes keep 64 collective joins outstanding each
# (tests/sim/mcast_joins -w 64, proxy joins for many ports, as a job's
# processes do) while a ninth asks PathRecords 64 at a time (answered on
# the receiver thread).  Answering all of that at once is more than
# ibsim's socket holds (~300 MADs): before the send window ibsmd's loop
# blocked in libumad2sim's write with the shim's lock held, ibsim spun on
# its own failed writes, and neither moved again.  Now:
#   - `ibsmctl status` is answered throughout (ibsmctl waits forever, so
#     each try is cut after 20 s: a liveness bound, a healthy daemon
#     answers in milliseconds; none may fail);
#   - every join and every PathRecord gets its answer;
#   - answers did wait for room (answers_waited > 0: the transport was
#     backed up, so the test shows what it claims), and what ibsim held of
#     ours never went past the send window, mad.window + mad.answer_window
#     = 128 (+1 fence, +1 answer of the
#     receiver thread racing the loop).
. "${TOP:-.}/tests/integration/mcast_common.bash"
[ -x "$O/tests/sim/mcast_joins" ] && [ -x "$O/tests/sim/sa_load" ] ||
	skip "tests/sim clients not built"
CL=8
"$O/ibsmgen" fattree2 --hosts 64 -o "$T/ft.net" || fail "ibsmgen"
"$O/ibsmpattern" "$T/ft.net" random --count 2000 --size 4-8 --seed 3 \
	--members guid -o "$T/pattern" 2>/dev/null || fail "ibsmpattern"
awk '$1 == "+" { for (i = 3; i <= NF; i++) print $2, $i, NF - 2 }' \
	"$T/pattern" >"$T/coll"
mc_start "$T/ft.net"
LIDS=$(host_lids)
[ -n "$LIDS" ] || fail "no host LIDs found"
# one client's joins are whole groups: a group's members come from one node
awk -v n=$CL '$1 != last { g++; last = $1 } { print > (FILENAME ".part" (g % n)) }' "$T/coll"
total=$(wc -l <"$T/coll")

pids=()
for i in $(seq 0 $((CL - 1))); do
	sim_at "H$((i + 2))" timeout -k 5 120 "$O/tests/sim/mcast_joins" -w 64 \
		"$T/coll.part$i" >"$T/j.$i" 2>&1 &
	pids+=($!)
done
sim_at "H$((CL + 2))" timeout -k 5 120 "$O/tests/sim/sa_load" -t path -n 6000 \
	-w 64 -T 5000 -l "$LIDS" >"$T/load" 2>&1 &
pids+=($!)

tries=0 failed=0
while :; do
	alive=0
	for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
	[ $alive = 1 ] || break
	tries=$((tries + 1))
	timeout 20 "$O/ibsmctl" -s "$T/sock" status >"$T/st" 2>&1 || { failed=$((failed + 1)); echo "status try $tries: no answer"; }
	# the clients' own timeouts end them (killed 5 s after): a stalled
	# daemon fails below, it does not hang the suite
	[ "$failed" -ge 2 ] && fail "ibsmctl status went unanswered twice while the transport was backed up"
	sleep 0.2
done
for p in "${pids[@]}"; do wait "$p"; done
ctl status >"$T/st" || fail "ibsmctl status after the flood"
grep -E "^(mads_max_unconsumed|answers_waited|answers_handed_to_loop|send_fences|sa_gets_on_receiver) " "$T/st"
echo "ibsmctl status answered $((tries - failed)) of $tries times during the flood"
[ "$failed" = 0 ] || fail "ibsmctl status went unanswered $failed times while the transport was backed up"
ok=0
for i in $(seq 0 $((CL - 1))); do
	grep -E "^(ok|retries|p99_ms) " "$T/j.$i" | tr '\n' ' '; echo
	ok=$((ok + $(field ok <"$T/j.$i")))
done
cat "$T/load"
[ "$ok" = "$total" ] || fail "$ok of $total joins answered"
grep -q " 0 errors, 0 lost" "$T/load" || fail "PathRecords went unanswered during the joins"
[ "$(field answers_waited <"$T/st")" -gt 0 ] ||
	fail "no answer ever waited for room: the transport was never backed up, the test shows nothing"
sw=$(ctl status | field mads_max_unconsumed)
[ "$sw" -le $((128 + 2)) ] || fail "ibsim held $sw of our MADs, past the send window of 128"
echo "PASS: $total joins and 6000 PathRecords answered, status served throughout, at most $sw MADs in ibsim's hands"
