#!/bin/bash
# The Prometheus endpoint (metrics.listen) under ibsim: the page passes
# `promtool check metrics`; every family on it, and every metric the
# example Grafana dashboard asks for, is documented in man/ibsmd.8; the
# counters agree with what the test did (SA requests it sent, by attribute
# and status; sweeps against `ibsmctl status`); a real Prometheus server
# (Debian prometheus, on the loopback) scrapes ibsmd and its query API
# returns the sweep counter; other paths and methods get 404 and 405; a
# SIGHUP that moves metrics.listen moves the endpoint without a sweep.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bringup_common.bash"
. "$TOP/tests/integration/metrics_common.bash"
need ibsim saquery promtool prometheus

start_sim "$TOP/tests/data/default.net"
SOCK=$T/ibsmd.sock
MPORT=$(free_port)
printf 'metrics:\n  listen: 127.0.0.1:%s\nsm:\n  sweep_interval_ms: 0\n' "$MPORT" >"$T/ibsmd.yaml"
start_daemon -c "$T/ibsmd.yaml"
wait_heavy 0

# --- the page is valid exposition text, and documented ---
scrape >"$T/page"
promtool check metrics <"$T/page" >"$T/promtool.out" 2>&1 ||
	fail "promtool check metrics: $(cat "$T/promtool.out")"
fams=$(awk '$1 == "#" && $2 == "TYPE" { print $3 }' "$T/page")
[ "$(echo "$fams" | wc -l)" -ge 30 ] || fail "only $(echo "$fams" | wc -l) families on the page"
manpage=$(sed -n '/^\.SH METRICS/,/^\.SH /p' "$TOP/man/ibsmd.8")
for f in $fams; do
	grep -q "\b$f\b" <<<"$manpage" || fail "family $f is not documented in man/ibsmd.8, METRICS"
done
# the dashboard's expressions name only documented families
python3 - "$TOP/conf/grafana-ibsmd.json" <<'PY' >"$T/dash.names" || fail "conf/grafana-ibsmd.json is not a dashboard"
import json, re, sys
d = json.load(open(sys.argv[1]))
names = set()
for p in d["panels"]:
    for t in p["targets"]:
        for m in re.findall(r"\bibsmd_[a-z0-9_]+", t["expr"]):
            names.add(re.sub(r"_(bucket|sum|count)$", "", m))
print("\n".join(sorted(names)))
PY
[ -s "$T/dash.names" ] || fail "the dashboard names no ibsmd metric"
while read -r f; do
	grep -q "\b$f\b" <<<"$manpage" || fail "the dashboard uses $f, not documented in man/ibsmd.8"
done <"$T/dash.names"

# --- the SA counters count what the SA was asked ---
# PathRecord Gets answered, and requests the IBA answers with an error
# (tests/sim/sa_raw): a NodeRecord Get matching nothing, one matching
# every node, an attribute the SA does not have; and one it drops.
sleep 1.1 # the page of the last second is shared
scrape >"$T/p0"
for i in 1 2 3 4 5; do
	sim saquery -p --slid 1 --dlid $((i + 1)) >/dev/null 2>&1 ||
		fail "saquery PathRecord 1 -> $((i + 1)) failed"
done
sim "$O/tests/sim/sa_raw" get_none get_many unknown_attr bad_class_version >"$T/sa_raw.out" 2>&1 ||
	fail "sa_raw failed: $(cat "$T/sa_raw.out")"
sleep 1.1
scrape >"$T/p1"
delta() { # NAME: its growth from p0 to p1
	local a b
	a=$(sample "$T/p0" "$1"); b=$(sample "$T/p1" "$1")
	echo $(( ${b:-0} - ${a:-0} ))
}
for want in 'ibsmd_sa_requests_total{attribute="PathRecord",status="success"} 5' \
	'ibsmd_sa_requests_total{attribute="NodeRecord",status="no_records"} 1' \
	'ibsmd_sa_requests_total{attribute="NodeRecord",status="too_many_records"} 1' \
	'ibsmd_sa_requests_total{attribute="other",status="unsupported"} 1' \
	'ibsmd_sa_requests_dropped_total 1' \
	'ibsmd_sa_request_duration_seconds_count{attribute="PathRecord"} 5'; do
	set -- $want
	[ "$(delta "$1")" = "$2" ] || fail "$1 grew by $(delta "$1"), the test sent $2 (sa_raw: $(tr '\n' ';' <"$T/sa_raw.out"))"
done

# --- sweeps as ibsmctl status counts them ---
"$IBSMCTL" -s "$SOCK" sweep >/dev/null || fail "ibsmctl sweep failed"
wait_heavy 1
sleep 1.1
scrape >"$T/p2"
[ "$(sample "$T/p2" ibsmd_sweeps_total)" = "$(field sweeps)" ] ||
	fail "ibsmd_sweeps_total $(sample "$T/p2" ibsmd_sweeps_total), ibsmctl status sweeps $(field sweeps)"
[ "$(sample "$T/p2" 'ibsmd_sweeps_adopted_total{kind="discovery"}')" = 2 ] ||
	fail "two heavy sweeps, page says $(grep adopted "$T/p2")"
[ "$(sample "$T/p2" 'ibsmd_sweep_phase_duration_seconds_count{phase="discover"}')" = 2 ] ||
	fail "two discoveries, page says $(grep 'phase="discover"' "$T/p2" | tail -2)"
[ "$(sample "$T/p2" 'ibsmd_sm_state{state="master"}')" = 1 ] || fail "not master on the page"
[ "$(sample "$T/p2" 'ibsmd_fabric_nodes{type="ca"}')" = 32 ] || fail "32 hosts, page: $(grep fabric_nodes "$T/p2")"

# --- other paths and methods ---
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$MPORT/nope")" = 404 ] || fail "no 404 for /nope"
[ "$(curl -s -o /dev/null -w '%{http_code}' -X POST -d x=1 "http://127.0.0.1:$MPORT/metrics")" = 405 ] ||
	fail "no 405 for POST"
curl -sI "http://127.0.0.1:$MPORT/metrics" | grep -qi '^content-type: text/plain; version=0.0.4' ||
	fail "no exposition content type"

# --- a real Prometheus server scrapes it ---
PPORT=$(free_port)
cat >"$T/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: ibsmd
    static_configs:
      - targets: ['127.0.0.1:$MPORT']
YML
prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/prom" \
	--web.listen-address="127.0.0.1:$PPORT" >"$T/prometheus.log" 2>&1 &
PROM=$!
want=$(field sweeps)
got=
for _ in $(seq 150); do
	got=$(curl -s "http://127.0.0.1:$PPORT/api/v1/query?query=ibsmd_sweeps_total" |
		python3 -c 'import json,sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if r else "")' 2>/dev/null)
	[ -n "$got" ] && break
	kill -0 $PROM 2>/dev/null || fail "prometheus exited: $(tail -5 "$T/prometheus.log")"
	sleep 0.2
done
[ "$got" = "$want" ] || fail "Prometheus' query API: ibsmd_sweeps_total '$got', ibsmctl status sweeps $want"
up=$(curl -s "http://127.0.0.1:$PPORT/api/v1/query?query=up%7Bjob%3D%22ibsmd%22%7D" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["result"][0]["value"][1])')
[ "$up" = 1 ] || fail "Prometheus sees the target down: $up"
echo "Prometheus on :$PPORT scraped ibsmd_sweeps_total=$got"
kill $PROM; wait $PROM 2>/dev/null

# --- SIGHUP moves the endpoint, without a sweep ---
NPORT=$(free_port)
h=$(field heavy_sweeps)
printf 'metrics:\n  listen: 127.0.0.1:%s\nsm:\n  sweep_interval_ms: 0\n' "$NPORT" >"$T/ibsmd.yaml"
kill -HUP $DPID
for _ in $(seq 50); do curl -s "http://127.0.0.1:$NPORT/metrics" >/dev/null && break; sleep 0.1; done
scrape "http://127.0.0.1:$NPORT/metrics" >"$T/p3"
grep -q '^ibsmd_sweeps_total ' "$T/p3" || fail "no page on the new address"
curl -s --max-time 2 "http://127.0.0.1:$MPORT/metrics" >/dev/null && fail "the old address still answers"
sleep 0.5
[ "$(field heavy_sweeps)" = "$h" ] || fail "moving the endpoint started a sweep"

kill -TERM $DPID; wait $DPID; rc=$?
[ $rc -eq 0 ] || fail "ibsmd exited $rc on SIGTERM"
echo "metrics endpoint: $(echo "$fams" | wc -l) families, promtool clean, Prometheus scraped it"
