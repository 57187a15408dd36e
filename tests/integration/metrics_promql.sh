#!/bin/bash
# The port counters through a real Prometheus, as a user would check them:
# ibsmd with metrics.listen and the performance manager (every 2 s) under
# ibsim, a Prometheus server (Debian prometheus, on the loopback) scraping
# it every half second.  Errors set with ibsim's PerformanceSet on both
# ends of one link (S1 port 3, a switch port read through its switch's
# AllPortSelect sum, SymbolErrorCounter 37; H3 port 1, a host port,
# PortXmitDiscards 12) are, within two perfmgr intervals:
#   - Prometheus' answers to PromQL queries naming the port (by node and
#     port, with the link's other end as a label), equal to perfquery;
#   - the only answers to an alert-style query (`... > 0`) over every
#     port of the fabric.
# Then a reload without metrics.listen closes the endpoint while the
# rounds go on, and one with it back serves the counters again.
# "Within two intervals" is counted in rounds, not seconds: the values
# must be in Prometheus before the third round that started after the
# set has ended (the second reads them; its page is scraped within the
# third).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bringup_common.bash"
. "$TOP/tests/integration/metrics_common.bash"
need ibsim prometheus perfquery ibnetdiscover

start_sim "$TOP/tests/data/default.net"
SOCK=$T/ibsmd.sock
MPORT=$(free_port)
printf 'metrics:\n  listen: 127.0.0.1:%s\nsm:\n  sweep_interval_ms: 0\nperfmgr:\n  enable: true\n  interval_ms: 2000\n' \
	"$MPORT" >"$T/ibsmd.yaml"
start_daemon -c "$T/ibsmd.yaml"
wait_heavy 0
prom_start "$MPORT" 500ms

# Prometheus has every linked port's counters (the first rounds').
sim ibnetdiscover -p >"$T/topo.p" 2>/dev/null || fail "ibnetdiscover -p"
linked=$(awk '$1 == "SW" || $1 == "CA" { print $2, $3; for (i = 4; i < NF; i++) if ($i == "-") { print $(i + 2), $(i + 3); break } }' \
	"$T/topo.p" | sort -u | wc -l)
n=
for _ in $(seq 200); do
	n=$(promql 'count(ibsmd_port_symbol_errors_total)')
	[ "$n" = "$linked" ] && break
	kill -0 $PROM 2>/dev/null || fail "prometheus exited: $(tail -5 "$T/prometheus.log")"
	kill -0 $DPID 2>/dev/null || fail "ibsmd died"
	sleep 0.1
done
[ "$n" = "$linked" ] || fail "Prometheus has ${n:-no} ports' symbol errors, ibnetdiscover $linked linked ports"
[ -z "$(promql 'ibsmd_port_symbol_errors_total > 0')" ] ||
	fail "symbol errors before any were set: $(promql 'ibsmd_port_symbol_errors_total > 0' node_desc)"

QS='ibsmd_port_symbol_errors_total{node_desc="S1",port="3"}'
QD='ibsmd_port_xmit_discards_total{node_desc="H3",port="1"}'
r0=$(field perfmgr_rounds)
ibsim_cmd 'PerformanceSet "S1"[3] PortCounters.SymbolErrorCounter=37'
ibsim_cmd 'PerformanceSet "H3"[1] PortCounters.PortXmitDiscards=12'
s= d= r=
while :; do
	r=$(field perfmgr_rounds)
	s=$(promql "$QS" remote_desc) d=$(promql "$QD" remote_desc)
	[ "$s" = H3=37 ] && [ "$d" = S1=12 ] && break
	[ "$r" -ge $((r0 + 3)) ] 2>/dev/null &&
		fail "$((r - r0)) rounds after PerformanceSet Prometheus answers $QS: '$s' (want H3=37), $QD: '$d' (want S1=12)"
	kill -0 $DPID 2>/dev/null || fail "ibsmd died"
	kill -0 $PROM 2>/dev/null || fail "prometheus exited: $(tail -5 "$T/prometheus.log")"
	sleep 0.1
done
echo "Prometheus answers $QS = 37 and $QD = 12 at most $((r - r0)) rounds after the set"

# perfquery reads the same on the fabric.
S1LID=$(awk '$1 == "SW" && /\( .S1. - / { print $2; exit }' "$T/topo.p")
H3LID=$(awk '$1 == "CA" && /\( .H3. - / { print $2; exit }' "$T/topo.p")
pq() { sim perfquery "$1" "$2" 2>/dev/null | sed -n "s/^$3:\.*//p"; }
[ "$(pq "$S1LID" 3 SymbolErrorCounter)" = 37 ] || fail "perfquery reads $(pq "$S1LID" 3 SymbolErrorCounter) on S1 port 3"
[ "$(pq "$H3LID" 1 PortXmitDiscards)" = 12 ] || fail "perfquery reads $(pq "$H3LID" 1 PortXmitDiscards) on H3 port 1"

# An alert over the whole fabric names exactly those ports.
a=$(promql 'ibsmd_port_symbol_errors_total > 0' node_desc)
[ "$a" = S1=37 ] || fail "ibsmd_port_symbol_errors_total > 0 gives '$a', want S1 port 3 only"
a=$(promql 'ibsmd_port_xmit_discards_total > 0' node_desc)
[ "$a" = H3=12 ] || fail "ibsmd_port_xmit_discards_total > 0 gives '$a', want H3 port 1 only"
# Both ends of the link, each with its errors of either kind.
a=$(promql 'ibsmd_port_symbol_errors_total + ibsmd_port_xmit_discards_total > 0' node_desc | tr '\n' ' ')
[ "$a" = "H3=12 S1=37 " ] || fail "the link's errors by end: '$a', want H3=12 S1=37"
[ "$(promql 'up{job="ibsmd"}')" = 1 ] || fail "Prometheus sees the target down"

# A reload without metrics.listen closes the endpoint; the rounds go on
# (the port families' block is dropped, on the sanitizer build without
# a report), and a reload with it back serves the counters again.
printf 'sm:\n  sweep_interval_ms: 0\nperfmgr:\n  enable: true\n  interval_ms: 2000\n' >"$T/ibsmd.yaml"
kill -HUP $DPID
r0=$(field perfmgr_rounds)
for _ in $(seq 100); do [ "$(field perfmgr_rounds)" -ge $((r0 + 2)) ] && break; sleep 0.1; done
[ "$(field perfmgr_rounds)" -ge $((r0 + 2)) ] || fail "no rounds after the reload without metrics.listen"
curl -s --max-time 2 "http://127.0.0.1:$MPORT/metrics" >/dev/null && fail "the endpoint still answers without metrics.listen"
printf 'metrics:\n  listen: 127.0.0.1:%s\nsm:\n  sweep_interval_ms: 0\nperfmgr:\n  enable: true\n  interval_ms: 2000\n' \
	"$MPORT" >"$T/ibsmd.yaml"
kill -HUP $DPID
v=
for _ in $(seq 100); do
	v=$(curl -s --max-time 2 "http://127.0.0.1:$MPORT/metrics" |
		awk '/^ibsmd_port_symbol_errors_total\{.*port="3",node_desc="S1",/ { print $2 }')
	[ "$v" = 37 ] && break
	sleep 0.1
done
[ "$v" = 37 ] || fail "after metrics.listen came back the page has '$v' for $QS"
kill -TERM $DPID; wait $DPID; rc=$?
[ $rc -eq 0 ] || fail "ibsmd exited $rc on SIGTERM"
echo "PASS: PerformanceSet counters of both ends of a link in Prometheus within two intervals, as perfquery reads them"
