#!/bin/bash
# The metrics endpoint under attack (also run on the sanitizer build by
# scripts/check): thousands of malformed requests (http_fuzz.py
# malformed), then more slow clients than the endpoint has slots,
# dripping headers or reading the page a byte a second (http_fuzz.py
# slow), all on the loopback, while the test asks the SA for records and
# watches the sweeps.  The daemon never exits, keeps sweeping (light
# sweeps every 200 ms go on), answers every SA query, closes the slow
# clients after its idle timeout, and afterwards serves a page that
# promtool accepts; SIGTERM ends it with status 0 and no sanitizer report.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bringup_common.bash"
. "$TOP/tests/integration/metrics_common.bash"
need ibsim saquery promtool
fuzz=$TOP/tests/integration/http_fuzz.py

start_sim "$TOP/tests/data/default.net"
SOCK=$T/ibsmd.sock
MPORT=$(free_port)
start_daemon -o metrics.listen=127.0.0.1:$MPORT -o sm.sweep_interval_ms=200
wait_heavy 0

# SA queries in the background for as long as the attack lasts: one
# NodeRecord GetTable every 0.3 s; every one must be answered.
sa_loop() {
	local ok=0 bad=0
	while [ ! -e "$T/stop" ]; do
		if sim saquery -N >/dev/null 2>&1; then ok=$((ok + 1)); else bad=$((bad + 1)); fi
		sleep 0.3
	done
	echo "$ok $bad" >"$T/sa.counts"
}
sa_loop &
SAPID=$!

s0=$(field sweeps)
python3 "$fuzz" malformed "$MPORT" 1200 7 >"$T/malformed.out" 2>&1 ||
	fail "fuzzer failed: $(tail -3 "$T/malformed.out")"
cat "$T/malformed.out"
kill -0 $DPID 2>/dev/null || fail "ibsmd died under malformed requests: $(tail -5 "$T/ibsmd.log")"
s1=$(field sweeps)
[ "${s1:-0}" -gt "${s0:-0}" ] || fail "no sweep during the malformed requests ($s0 -> $s1)"

# more slow clients than slots (256), for longer than the idle timeout
python3 "$fuzz" slow "$MPORT" 300 25 >"$T/slow.out" 2>&1 || fail "slow clients failed: $(cat "$T/slow.out")"
cat "$T/slow.out"
kill -0 $DPID 2>/dev/null || fail "ibsmd died under slow clients: $(tail -5 "$T/ibsmd.log")"
s2=$(field sweeps)
[ "${s2:-0}" -gt "${s1:-0}" ] || fail "no sweep during the slow clients ($s1 -> $s2)"
closed=$(sed -n 's/.* \([0-9]*\) closed by the server.*/\1/p' "$T/slow.out")
[ "${closed:-0}" -ge 300 ] || fail "the endpoint did not close the slow clients: $(cat "$T/slow.out")"

touch "$T/stop"; wait $SAPID
read -r ok bad <"$T/sa.counts"
echo "SA during the attack: $ok answered, $bad failed"
[ "${ok:-0}" -ge 20 ] && [ "${bad:-1}" -eq 0 ] || fail "the SA did not answer throughout: $ok answered, $bad failed"

scrape >"$T/page"
promtool check metrics <"$T/page" >"$T/promtool.out" 2>&1 || fail "promtool after the attack: $(cat "$T/promtool.out")"
scrapes=$(sample "$T/page" ibsmd_metrics_scrapes_total)
echo "after the attack: page of $(wc -c <"$T/page") bytes, $scrapes scrapes answered, $(field sweeps) sweeps"
kill -TERM $DPID; wait $DPID; rc=$?
[ $rc -eq 0 ] || fail "ibsmd exited $rc on SIGTERM"
grep -E 'ERROR: (Address|Leak|Undefined)Sanitizer|runtime error:' "$T/ibsmd.log" && fail "sanitizer report"
echo "metrics endpoint survived the fuzz"
