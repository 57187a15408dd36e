# Shared by the metrics_*.sh and topology_*.sh tests (sourced after lib.sh
# and bringup_common.bash): a free loopback port, the daemon with its
# Prometheus endpoint, scrapes and the value of one sample.
need curl python3

# A TCP port free on the loopback now (the kernel's choice).
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_daemon ARGS...: ibsmd under ibsim with its control socket at
# $SOCK and its log at $T/ibsmd.log; DPID is its pid.
start_daemon() {
	LD_PRELOAD="$UMAD2SIM${LD_PRELOAD:+:$LD_PRELOAD}" "$IBSMD" \
		--state-dir "$T/state" -o control_socket="$SOCK" "$@" \
		>>"$T/ibsmd.log" 2>&1 &
	DPID=$!
}

status() { "$IBSMCTL" -s "$SOCK" status 2>/dev/null; }
field() { status | awk -v k="$1" '$1 == k { print $2 }'; }

# Waits until heavy sweep number > $1 has finished (IDLE again).
wait_heavy() {
	local before=$1 h
	for _ in $(seq 200); do
		h=$(field heavy_sweeps)
		[ "${h:-0}" -gt "$before" ] && [ "$(field sweep_state)" = IDLE ] && return 0
		kill -0 "$DPID" 2>/dev/null || { tail "$T/ibsmd.log"; fail "ibsmd died"; }
		sleep 0.1
	done
	tail -20 "$T/ibsmd.log"
	fail "no heavy sweep after $before within 20 s"
}

# scrape [URL]: the page into stdout (fails the test when it does not answer).
scrape() {
	curl -sS --max-time 10 "${1:-http://127.0.0.1:$MPORT/metrics}" ||
		fail "no answer from ${1:-http://127.0.0.1:$MPORT/metrics}"
}

# sample FILE 'NAME{LABELS}': the value of one sample of a page (empty
# when the page has none).
sample() {
	awk -v k="$2" '$1 == k { print $2 }' "$1"
}

# prom_start TARGET_PORT [INTERVAL]: a real Prometheus server (Debian
# prometheus, on the loopback) scraping ibsmd's /metrics at that port
# every INTERVAL (default 1s); PPORT is its own port, PROM its pid.
prom_start() {
	PPORT=$(free_port)
	cat >"$T/prometheus.yml" <<YML
global:
  scrape_interval: ${2:-1s}
  scrape_timeout: ${2:-1s}
scrape_configs:
  - job_name: ibsmd
    static_configs:
      - targets: ['127.0.0.1:$1']
YML
	prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/prom" \
		--web.listen-address="127.0.0.1:$PPORT" >"$T/prometheus.log" 2>&1 &
	PROM=$!
}

# promql QUERY [LABEL]: Prometheus' answer to an instant query, one line
# per series, sorted: "LABEL_VALUE=VALUE", or VALUE alone without LABEL;
# empty when it has none (or does not answer yet).
promql() {
	curl -s -G "http://127.0.0.1:$PPORT/api/v1/query" --data-urlencode "query=$1" |
		python3 -c 'import json, sys
label = sys.argv[1]
r = json.load(sys.stdin)["data"]["result"]
print("\n".join(sorted((x["metric"].get(label, "") + "=" if label else "") + x["value"][1] for x in r)))' "${2:-}" 2>/dev/null
}
