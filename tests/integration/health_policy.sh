#!/bin/bash
# health.policy report, the cut-off rule, and disable, under ibsim (a
# 3-level fat tree, perfmgr every second).
#   - report: a link over its threshold round after round is listed with
#     the action "reported" and logged once per episode; routing does not
#     change; after health.recover_s quiet seconds it recovers (listed no
#     more, a "recovered" event), and the next crossing is a new episode,
#     logged again.
#   - isolate on a host's only link: the link is kept (action "kept"),
#     since without it the host would be cut off; every pair still goes.
#   - disable: the switch end reads back PortPhysicalState Disabled with
#     smpquery, no LFT routes a pair over the link, every pair is
#     delivered; `health clear` sets it Polling again (ibsim does not
#     train links: the test relinks it, as the hardware would come up)
#     and it carries routes again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bringup_common.bash"
. "$TOP/tests/integration/health_common.bash"
hd_fabric
unhealthy_lines() { grep -c "is unhealthy" "$T/ibsmd.log"; }

# report
hd_start -o health.recover_s=4
wait_count heavy_sweeps 1
wait_count perfmgr_rounds 1
A=$(guid_of S1):3
heavy=$(field heavy_sweeps)
for v in 500 1000 1500; do
	ibsim_cmd "PerformanceSet \"S1\"[3] PortCounters.SymbolErrorCounter=$v"
	rounds 2
done
wait_listed 1
ctl health | grep -q "tripped=symbol_errors value=500 .* action=reported$" ||
	{ ctl health; fail "not listed as reported"; }
[ "$(unhealthy_lines)" = 1 ] || fail "an episode of three crossings logged $(unhealthy_lines) times"
[ "$(field heavy_sweeps)" = "$heavy" ] || fail "report changed the routing (a sweep ran)"
read_tables "$T/report"
walk "$T/report" "in:$A" || fail "report: a pair is not delivered"
[ "$(walk_field "$T/report" held_uses)" -gt 0 ] || fail "report: the link carries no route"
wait_listed 0 # four quiet seconds
events health >"$T/ev"
grep -q '"change": "recovered"' "$T/ev" || fail "no recovered event"
ibsim_cmd "PerformanceSet \"S1\"[3] PortCounters.SymbolErrorCounter=3000"
wait_listed 1
[ "$(unhealthy_lines)" = 2 ] || fail "the second episode was not logged"
ctl health clear >/dev/null || fail "health clear"
wait_listed 0

# isolate on H3's only link: kept, with the host reachable.
hd_stop
hd_start -o health.policy=isolate
wait_count heavy_sweeps 1
wait_count perfmgr_rounds 1
H3PORT=$(awk '$1 == "SW" && $0 ~ /\( .S2. - .H3. \)/ { print $3; exit }' "$T/topo.p")
[ -n "$H3PORT" ] || fail "H3's switch port"
heavy=$(field heavy_sweeps)
ibsim_cmd "PerformanceSet \"S2\"[$H3PORT] PortCounters.PortRcvErrors=900"
wait_listed 1
ctl health | grep -q "tripped=rcv_errors .* action=kept$" || { ctl health; fail "H3's link not kept"; }
sleep 1
[ "$(field heavy_sweeps)" = "$heavy" ] || fail "a kept link changed the routing"
read_tables "$T/kept"
walk "$T/kept" "in:$(guid_of S2):$H3PORT" || fail "with H3's link kept a pair is not delivered"
ctl health clear >/dev/null
wait_listed 0

# disable
hd_stop
hd_start -o health.policy=disable
wait_count heavy_sweeps 1
wait_count perfmgr_rounds 1
D=$(guid_of S5):3
set -- $(peer_of S5 3); DP=$1 DPP=$2
[ "$(phys S5 3)" = LinkUp ] || fail "S5 port 3 is $(phys S5 3) before"
ibsim_cmd "PerformanceSet \"S5\"[3] PortCounters.PortRcvErrors=500"
wait_listed 1
ctl health | grep -q "tripped=rcv_errors value=500 .* action=disabled$" || { ctl health; fail "not listed as disabled"; }
for _ in $(seq 20); do [ "$(phys S5 3)" = Disabled ] && break; sleep 0.1; done
[ "$(phys S5 3)" = Disabled ] || fail "S5 port 3 reads back $(phys S5 3), not Disabled"
wait_count heavy_sweeps 1
read_tables "$T/disabled"
walk "$T/disabled" "$D" || fail "with the link disabled a pair is not delivered"
grep -q "is down" "$T/disabled/walk" || echo "  (ibnetdiscover still shows the disabled link)"
[ "$(walk_field "$T/disabled" held_uses)" = 0 ] || fail "the LFTs route pairs over the disabled link"
[ "$(walk_field "$T/disabled" mft_uses)" = 0 ] || fail "an MFT uses the disabled link"
events health >"$T/ev"
grep -q '"action": "disabled"' "$T/ev" || fail "no disabled event"
heavy=$(field heavy_sweeps)
ctl health clear "$(guid_of S5)" 3 >/dev/null || fail "health clear GUID PORT"
wait_listed 0
for _ in $(seq 20); do [ "$(phys S5 3)" = Polling ] && break; sleep 0.1; done
[ "$(phys S5 3)" = Polling ] || fail "after clear S5 port 3 reads back $(phys S5 3), not Polling"
ibsim_cmd "Unlink \"S5\"[3]"
ibsim_cmd "ReLink \"S5\"[3]"
wait_count heavy_sweeps $((heavy + 1))
sleep 1.5 # the link back up: the next light sweep sees it
read_tables "$T/back"
walk "$T/back" "in:$D" || fail "after clear a pair is not delivered"
[ "$(walk_field "$T/back" held_uses)" -gt 0 ] || fail "after clear and relink the link carries no route"
echo "PASS: report logs once per episode and recovers; a host's only link is kept; disable reads back Disabled, routed around, back on clear"
