#!/bin/bash
# Port-group probes on a fabric where no switch has port groups (ibsim
# implements none of the vendor attributes, and no tests/sim/pg_agent is
# attached): each switch is asked PortGroupInfo once, while discovery
# still runs (in a capture of what ibsmd hands to libibumad, every
# PortGroupInfo Get comes before the first Set of the sweep), so CONFIGURE
# and ACTIVATE wait for none of them; the expected "not implemented"
# answers are no timeout and no loss in the SMP summary; the log names
# them in one summary line (count and the first few), not one per switch.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bringup_common.bash"
need ibsim python3
MADTAP=$O/tests/tap/libmadtap.so
[ -f "$MADTAP" ] || fail "$MADTAP not built"

NET=$TOP/tests/data/ft3-small.net
nsw=$(grep -c '^Switch' "$NET")
start_sim "$NET"
cap=$T/once.cap
MADTAP_FILE=$cap LD_PRELOAD=$MADTAP sim "$IBSMD" --once --state-dir "$T/st" \
	-o log.level=info >"$T/ibsmd.log" 2>&1 ||
	{ tail -5 "$T/ibsmd.log"; fail "ibsmd --once exited $?"; }
python3 "$TOP/tests/integration/madtap.py" "$cap" >"$T/smps"

probes=$(awk '$1 == "get" && $2 == "0xff30"' "$T/smps" | wc -l)
[ "$probes" = "$nsw" ] || fail "want one PortGroupInfo Get per switch ($nsw), saw $probes"
# line numbers of the last probe and the first Set of any kind
last_probe=$(awk '$1 == "get" && $2 == "0xff30" { n = NR } END { print n }' "$T/smps")
first_set=$(awk '$1 == "set" { print NR; exit }' "$T/smps")
[ -n "$first_set" ] || fail "no Set in the capture"
[ "$last_probe" -lt "$first_set" ] ||
	fail "a PortGroupInfo probe was sent after the sweep's first Set (SMP $last_probe, first Set $first_set): not overlapped with discovery"

summary=$(grep 'SMPs: .* sent' "$T/ibsmd.log" | tail -1)
echo "$summary"
echo "$summary" | grep -q " 0 lost, 0 timeouts; $nsw probes answered unsupported" ||
	fail "want 0 lost, 0 timeouts and $nsw probes answered unsupported: $summary"

lines=$(grep -c 'port groups: .*PortGroupInfo' "$T/ibsmd.log")
[ "$lines" = 1 ] || fail "want one port-group summary line, got $lines: $(grep 'PortGroupInfo' "$T/ibsmd.log" | head -3)"
grep -q "port groups: $nsw switches answer PortGroupInfo with .*: S[0-9]*, S[0-9]*, S[0-9]*, S[0-9]* and $((nsw - 4)) more;" "$T/ibsmd.log" ||
	fail "the summary does not give the count and the first names: $(grep 'PortGroupInfo' "$T/ibsmd.log")"
echo "ok: $nsw probes during discovery, no timeout, one summary line"
