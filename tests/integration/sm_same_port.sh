#!/bin/bash
# ibsmd started on the port where another subnet manager already runs
# (OpenSM 3.3.23 on ibsim, default.net, both at H1) exits 1 with a message
# that names the cause and the way out, and disturbs nothing:
#  1. under ibsim, which lets two SMs share a port, ibsmd (daemon and
#     --once) sees IsSM set on its port and OpenSM answering SMInfo there;
#  2. where a kernel refuses the second SM's agents (EINVAL, which
#     libibumad reports as EPERM) or its issm device (EAGAIN), as
#     tests/tap/libsmbusy.so answers in its place, ibsmd says that, not a
#     bare registration error, and does not wait for the device;
#  3. OpenSM stays master and no LID or LFT/MFT block moves;
#  4. OpenSM killed with SIGKILL leaves IsSM set under ibsim: ibsmd finds
#     no SM answering, starts and becomes master.
. "${TOP:-.}/tests/integration/lib.sh"
. "$TOP/tests/integration/bringup_common.bash"
. "$TOP/tests/integration/sm_common.bash"
SMBUSY=$O/tests/tap/libsmbusy.so
[ -f "$SMBUSY" ] || fail "$SMBUSY not built (make)"
NET=$TOP/tests/data/default.net
start_sim "$NET"

osm_up a H1 0
snap_fabric 0

# refused NAME HOST PRELOAD [VAR=VALUE...] [-- ibsmd args]: ibsmd at HOST
# with LD_PRELOAD=PRELOAD exits 1 within 20 s, saying that another SM runs
# on ibsim0 port 1 and how to get out of it.
refused() {
	local name=$1 host=$2 preload=$3 vars=() rc
	shift 3
	while [ $# -gt 0 ] && [ "$1" != -- ]; do vars+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	mkdir -p "$T/state-$name"
	env SIM_HOST="$host" LD_PRELOAD="$preload" "${vars[@]}" timeout 20 "$IBSMD" \
		--state-dir "$T/state-$name" -o control_socket="$T/$name.sock" "$@" \
		>"$T/$name.out" 2>&1
	rc=$?
	[ $rc -eq 1 ] || { cat "$T/$name.out"; fail "$name: ibsmd exited $rc (want 1; 124: it waited)"; }
	grep -q "another subnet manager runs on ibsim0 port 1; ibsmd does not start beside it: stop it (OpenSM: systemctl stop opensm.service), or run ibsmd on another port (port.guid, or port.ca and port.num) or on another node" "$T/$name.out" ||
		{ cat "$T/$name.out"; fail "$name: no message naming the other SM and the way out"; }
	grep -q "SM state" "$T/$name.out" && { cat "$T/$name.out"; fail "$name: ibsmd started its SM role"; }
	echo "$name: $(grep -m1 'error' "$T/$name.out")"
}

# 1. What ibsim really does: both would run; ibsmd asks before it starts.
refused daemon H1 "$UMAD2SIM"
grep -q "ibsim0 port 1: a subnet manager already answers there (GUID 0x[0-9a-f]*, MASTER, priority 0)" "$T/daemon.out" ||
	fail "the daemon does not say which SM answers on its port"
refused once H1 "$UMAD2SIM" -- --once

# 2. What a kernel does, answered by libsmbusy.so (it comes before
# libumad2sim.so, whose ioctl and open it wraps): the SMI and SA agents
# OpenSM holds are refused ...
refused kernel-agents H1 "$SMBUSY:$UMAD2SIM" SMBUSY_CLASSES=1,81,3
grep -q "umad: the kernel refused to register class 0x0[13] version 1 requests on ibsim0 port 1: another process already receives them there" "$T/kernel-agents.out" ||
	fail "the kernel's refusal of the SMI agents is not named"
grep -q "Operation not permitted" "$T/kernel-agents.out" && fail "a bare EPERM is reported"
# ... and the issm device is held, on a host whose port has no IsSM, so
# that nothing but the device tells (H2 runs no SM).
refused issm H2 "$SMBUSY:$UMAD2SIM" SMBUSY_ISSM=1
grep -q "/dev/infiniband/issm0 is held by another process: a subnet manager runs on ibsim0 port 1" "$T/issm.out" ||
	{ cat "$T/issm.out"; fail "issm held: the message does not say so"; }

# 3. Nothing moved.
sminfo_has "SMINFO_MASTER" || fail "no master after the refused starts: $(sminfo_of)"
[ "$(sminfo_of | sed -n 's/^sminfo: sm lid [0-9]* sm guid \(0x[0-9a-f]*\).*/\1/p')" = 0x100001 ] ||
	fail "the master is no longer OpenSM at H1: $(sminfo_of)"
snap_fabric 1
diff "$T/lids0" "$T/lids1" >/dev/null || fail "LIDs changed"
diff "$T/tables0" "$T/tables1" >"$T/tables.diff" || { head "$T/tables.diff"; fail "LFT/MFT blocks changed"; }
echo "OpenSM is still master; LIDs and tables unchanged"

# 4. A killed SM's IsSM, left set by ibsim, does not stop ibsmd.
kill -9 $(descendants "$OSM_PID_a") "$OSM_PID_a"; wait "$OSM_PID_a" 2>/dev/null; OSM_PID_a=
ibsmd_start b H1
wait_for 30 st_is b sm_role MASTER || { tail "$T/ibsmd-b.out"; fail "ibsmd did not start after OpenSM was killed"; }
grep -q "ibsim0 port 1: IsSM is set but no subnet manager answers there" "$T/ibsmd-b.out" ||
	{ head "$T/ibsmd-b.out"; fail "the stale IsSM was not noticed"; }
ibsmd_stop b
echo "after SIGKILL of OpenSM: stale IsSM noticed, ibsmd master"
