#!/bin/bash
# The Prometheus endpoint (metrics.listen) under ibsim: the page passes
# `promtool check metrics`; every family on it, and every metric the
# example Grafana dashboard asks for, is documented in man/ibsmd.8; the
# counters agree with what the test did (SA requests it sent, by attribute
# and status; sweeps against `ibsmctl status`); a real Prometheus server
# (Debian prometheus, on the loopback) scrapes ibsmd and its query API
# returns the sweep counter; other paths and methods get 404 and 405; a
# SIGHUP that moves metrics.listen moves the endpoint without a sweep.
# With the performance manager on (every second): every linked port has
# one sample per counter family, labelled with both ends as smpquery reads
# them; a counter set with ibsim's PerformanceSet is on the page by the
# time two rounds have ended, equal to perfquery, and Prometheus' query
# API returns it; a link over its threshold is on the page as ibsmctl
# health lists it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bringup_common.bash"
. "$TOP/tests/integration/metrics_common.bash"
need ibsim saquery promtool prometheus perfquery smpquery ibnetdiscover

start_sim "$TOP/tests/data/default.net"
SOCK=$T/ibsmd.sock
MPORT=$(free_port)
conf() { # conf PORT: metrics there, perfmgr every second, no sweeps
	printf 'metrics:\n  listen: 127.0.0.1:%s\nsm:\n  sweep_interval_ms: 0\nperfmgr:\n  enable: true\n  interval_ms: 1000\n' "$1" >"$T/ibsmd.yaml"
}
conf "$MPORT"
start_daemon -c "$T/ibsmd.yaml"
wait_heavy 0
# wait_rounds N: until perfmgr_rounds >= N; then a second so that the
# next scrape makes a new page
wait_rounds() {
	for _ in $(seq 100); do
		[ "$(field perfmgr_rounds)" -ge "$1" ] 2>/dev/null && { sleep 1.1; return 0; }
		kill -0 "$DPID" 2>/dev/null || fail "ibsmd died"
		sleep 0.1
	done
	fail "perfmgr_rounds did not reach $1 (it is $(field perfmgr_rounds))"
}
wait_rounds 1

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

# --- the port counters: every linked port once per family, both ends ---
# The fabric read back with ibnetdiscover: its links (both ends) and the
# switches' and hosts' node GUIDs by name.
sim ibnetdiscover -p >"$T/topo.p" 2>/dev/null || fail "ibnetdiscover -p"
python3 - "$T/page" "$T/topo.p" <<'PY' || fail "the port families do not match the fabric read back"
import re, sys
page, topo = sys.argv[1:]
# ibnetdiscover -p: "SW 2 3 0x... 4x SDR - CA 10 1 0x... ( 'S1' - 'H3' )";
# a CA's port GUID is on the line, its node GUID is asked of smpquery below
ends = {}
for l in open(topo):
    m = re.match(r"(SW|CA)\s+(\d+)\s+(\d+)\s+(0x[0-9a-f]+).*-\s+(SW|CA)\s+(\d+)\s+(\d+)\s+(0x[0-9a-f]+).*\(\s*'([^']*)'\s*-\s*'([^']*)'", l)
    if m:
        ends[(m.group(9), int(m.group(3)))] = (m.group(10), int(m.group(7)))
lab = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')
fams = {}
for l in open(page):
    if l.startswith("ibsmd_port_"):
        name, rest = l.split("{", 1)
        labels = dict(lab.findall(rest.rsplit("}", 1)[0]))
        fams.setdefault(name, []).append(labels)
need = {"ibsmd_port_symbol_errors_total", "ibsmd_port_link_downed_total",
        "ibsmd_port_rcv_errors_total", "ibsmd_port_xmit_data_bytes_total",
        "ibsmd_port_rcv_pkts_total", "ibsmd_port_xmit_wait_total",
        "ibsmd_port_unicast_xmit_pkts_total"}
missing = need - set(fams)
if missing:
    sys.exit("families missing: %s" % sorted(missing))
for name, samples in fams.items():
    keys = [(s["node_desc"], int(s["port"])) for s in samples]
    if len(keys) != len(set(keys)):
        sys.exit("%s: a port twice" % name)
    if set(keys) != set(ends):
        sys.exit("%s: %d ports, ibnetdiscover has %d linked ports; not on the page: %s" % (
            name, len(keys), len(ends), sorted(set(ends) - set(keys))[:5]))
    for s in samples:
        if set(s) != {"node_guid", "port", "node_desc", "remote_guid", "remote_port", "remote_desc"}:
            sys.exit("%s: labels %s" % (name, sorted(s)))
        if not re.fullmatch(r"0x[0-9a-f]{16}", s["node_guid"]) or not re.fullmatch(r"0x[0-9a-f]{16}", s["remote_guid"]):
            sys.exit("%s: GUIDs not 0x-hex: %s" % (name, s))
        if (s["remote_desc"], int(s["remote_port"])) != ends[(s["node_desc"], int(s["port"]))]:
            sys.exit("%s: %s port %s has peer %s port %s, ibnetdiscover says %s" % (
                name, s["node_desc"], s["port"], s["remote_desc"], s["remote_port"],
                ends[(s["node_desc"], int(s["port"]))]))
print("%d port families, %d ports each, peers as ibnetdiscover reads them" % (len(fams), len(ends)))
PY
# S1 port 3 leads to H3 port 1: both node GUIDs as smpquery reads them
S1LID=$(awk '$1 == "SW" && /\( .S1. - / { print $2; exit }' "$T/topo.p")
H3LID=$(awk '$1 == "CA" && /\( .H3. - / { print $2; exit }' "$T/topo.p")
ng() { printf '0x%016x' "$(sim smpquery nodeinfo "$1" 2>/dev/null | sed -n 's/^Guid:\.*//p')"; }
S1G=$(ng "$S1LID") H3G=$(ng "$H3LID")
[ "$H3G" != 0x0000000000000000 ] && [ "$S1G" != 0x0000000000000000 ] || fail "smpquery nodeinfo of S1 and H3"
S1P3="ibsmd_port_symbol_errors_total{node_guid=\"$S1G\",port=\"3\",node_desc=\"S1\",remote_guid=\"$H3G\",remote_port=\"1\",remote_desc=\"H3\"}"
[ -n "$(sample "$T/page" "$S1P3")" ] || fail "no sample $S1P3; S1 port 3 on the page: $(grep '^ibsmd_port_symbol_errors_total.*node_desc="S1",' "$T/page" | grep 'port="3"')"

# --- a counter set with PerformanceSet is there within two rounds ---
r0=$(field perfmgr_rounds)
ibsim_cmd 'PerformanceSet "S1"[3] PortCounters.SymbolErrorCounter=37'
wait_rounds $((r0 + 2))
scrape >"$T/pc"
[ "$(sample "$T/pc" "$S1P3")" = 37 ] ||
	fail "two rounds after PerformanceSet SymbolErrorCounter=37 the page has $(sample "$T/pc" "$S1P3") for S1 port 3"
pq=$(sim perfquery "$S1LID" 3 2>/dev/null | sed -n 's/^SymbolErrorCounter:\.*//p')
[ "$pq" = 37 ] || fail "perfquery reads $pq on S1 port 3"
promtool check metrics <"$T/pc" >"$T/promtool.out" 2>&1 ||
	fail "promtool check metrics on the page with port counters: $(cat "$T/promtool.out")"
echo "S1 port 3 SymbolErrorCounter 37 on the page within two rounds, as perfquery reads it; promtool clean"

# --- an unhealthy link on the page as ibsmctl health lists it ---
r0=$(field perfmgr_rounds)
ibsim_cmd 'PerformanceSet "S2"[5] PortCounters.SymbolErrorCounter=500'
wait_rounds $((r0 + 2))
"$IBSMCTL" -s "$SOCK" health >"$T/health" || fail "ibsmctl health"
grep -q 'node_desc="S2".*tripped=symbol_errors' "$T/health" ||
	grep -q 'remote_desc="S2".*tripped=symbol_errors' "$T/health" || fail "S2 port 5 is not listed: $(cat "$T/health")"
scrape >"$T/ph"
[ "$(sample "$T/ph" ibsmd_health_unhealthy_links)" = "$(awk '$1 == "unhealthy" { print $2 }' "$T/health")" ] ||
	fail "ibsmd_health_unhealthy_links $(sample "$T/ph" ibsmd_health_unhealthy_links), ibsmctl health: $(head -1 "$T/health")"
grep '^ibsmd_link_unhealthy{' "$T/ph" | grep 'desc="S2"' | grep -q 'tripped="symbol_errors",action="reported"} 1$' ||
	fail "no ibsmd_link_unhealthy sample for S2's link: $(grep '^ibsmd_link_unhealthy' "$T/ph")"
echo "the link over its threshold is on the page: $(grep '^ibsmd_link_unhealthy{' "$T/ph" | head -1)"

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
prom_start "$MPORT"
want=$(field sweeps)
got=
for _ in $(seq 150); do
	got=$(promql ibsmd_sweeps_total)
	[ -n "$got" ] && break
	kill -0 $PROM 2>/dev/null || fail "prometheus exited: $(tail -5 "$T/prometheus.log")"
	sleep 0.2
done
[ "$got" = "$want" ] || fail "Prometheus' query API: ibsmd_sweeps_total '$got', ibsmctl status sweeps $want"
q='ibsmd_port_symbol_errors_total{node_desc="S1",port="3"}'
pgot=$(promql "$q" remote_desc)
[ "$pgot" = "H3=37" ] || fail "Prometheus' query API: $q gives '$pgot', want H3=37"
up=$(promql 'up{job="ibsmd"}')
[ "$up" = 1 ] || fail "Prometheus sees the target down: $up"
echo "Prometheus on :$PPORT scraped ibsmd_sweeps_total=$got and S1 port 3's symbol errors ($pgot)"
kill $PROM; wait $PROM 2>/dev/null

# --- SIGHUP moves the endpoint, without a sweep ---
NPORT=$(free_port)
h=$(field heavy_sweeps)
conf "$NPORT"
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
