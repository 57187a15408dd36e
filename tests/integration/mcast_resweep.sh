#!/bin/bash
# A link goes down under Ready groups: the heavy sweep that follows builds
# a new engine context over the new model and routes every group again;
# the MFTs read back with ibroute -M still deliver every member's packets
# to every other member exactly once, loop-free, and no MFT entry uses the
# dead link.  MFT blocks go out only where a switch's table changes: none
# while no group has a member (the IPoIB group alone), and after the
# link goes down exactly the (block, port position) units that differ
# between the MFTs read back before and after.
. "${TOP:-.}/tests/integration/mcast_common.bash"
"$O/ibsmgen" fattree2 --hosts 16 -o "$T/ft.net" || fail "ibsmgen"
mc_start "$T/ft.net"
blocks() { field mft_blocks_sent < <(ctl mcg stats); }
sleep 0.5 # a pass would start within 10 ms of the first sweep
[ "$(blocks)" = 0 ] ||
	fail "MFT blocks sent with no group member: $(blocks) (no table differs from an empty one)"
C1=ff12:601b:ffff::b1 C2=ff12:601b:ffff::b2 S1=ff12:601b:ffff::b3
for h in H1 H2 H6 H11; do sa_at $h join $C1 --member-count 4 >/dev/null; done
for h in H3 H8 H16; do sa_at $h join $C2 --member-count 3 >/dev/null; done
for h in H4 H7 H9 H15; do sa_at $h join $S1 >/dev/null; done
wait_ready() {
	for _ in $(seq 50); do
		ok=1
		for g in $C1 $C2 $S1; do
			[ "$(field state < <(sa_at H1 mcg-state $g))" = Ready ] || ok=
		done
		[ -n "$ok" ] && return 0
		sleep 0.1
	done
	fail "groups not Ready"
}
groups() {
	for g in "$C1 H1 H2 H6 H11" "$C2 H3 H8 H16" "$S1 H4 H7 H9 H15"; do
		set -- $g
		echo "$1 $(field mlid < <(sa_at H1 mcg-state $1)) ${*:2}"
	done >"$T/groups"
}
wait_ready
groups
mc_walk "$T/groups" || fail "deliveries before the link went down"
cp "$T/mfts.txt" "$T/mfts-before.txt"
b0=$(blocks)
# take down an uplink of leaf S1 that a tree uses (ports 5..8 go up)
port=$(mft_port_users "$T/mfts.txt" S1 5 | awk '{ print $1; exit }')
[ -n "$port" ] || fail "no tree uses an uplink of S1"
echo "unlinking S1 port $port (used by a tree)"
h=$(field heavy_sweeps < <(ctl status))
ibsim_cmd "Unlink \"S1\"[$port]"
ctl sweep >/dev/null
for _ in $(seq 100); do
	[ "$(field heavy_sweeps < <(ctl status))" -gt "$h" ] &&
		[ "$(field sweep_state < <(ctl status))" = IDLE ] && break
	sleep 0.1
done
[ "$(field heavy_sweeps < <(ctl status))" -gt "$h" ] || fail "no heavy sweep after the unlink"
sleep 0.3
wait_ready
groups
mc_walk "$T/groups" || fail "deliveries after the link went down"
sent=$(( $(blocks) - b0 ))
# Units of 32 MLIDs x 16 ports whose read-back contents changed.
changed=$(python3 - "$T/mfts-before.txt" "$T/mfts.txt" <<'PY'
import sys, re
def units(path):
    out, sw, base = {}, None, None
    for line in open(path):
        m = re.match(r'Multicast mlids .* of switch Lid \d+ guid (0x[0-9a-f]+)', line)
        if m:
            sw = m.group(1); continue
        if 'Ports:' in line:
            base = line.index('Ports:') + 7; continue
        if sw and line.startswith('0x') and base:
            mlid = int(line.split()[0], 16)
            for i, ch in enumerate(line.rstrip()):
                if ch == 'x' and i >= base and (i - base) % 2 == 0:
                    p = (i - base) // 2
                    key = (sw, (mlid - 0xC000) // 32, p // 16)
                    out.setdefault(key, set()).add((mlid, p))
    return out
a, b = units(sys.argv[1]), units(sys.argv[2])
print(sum(1 for k in set(a) | set(b) if a.get(k) != b.get(k)))
PY
)
echo "MFT blocks sent after the unlink: $sent; units changed on the switches: $changed"
[ "$changed" -gt 0 ] || fail "no MFT unit changed: the check could not fail"
[ "$sent" -eq "$changed" ] ||
	fail "sent $sent MFT blocks after the unlink for $changed changed units"
echo "PASS: groups re-routed around a dead link, deliveries verified"
