#!/bin/bash
# The SMI device: ibsmd opens its port with umad_open_smi_port() when
# libibumad has it (rdma-core 53 and later, for kernels >= 6.11), else
# with umad_open_port().  Debian 12's libibumad (rdma-core 44) has no such
# function, so this run uses it (ibsmctl status: "sm_port ... umad");
# with tests/tap/libsmiopen.so preloaded, which provides the function as
# rdma-core 53 does, ibsmd finds it at run time and opens the port with it
# ("smi"), on the port it chose.  The choice itself (InfiniBand, not
# SM-disabled, ACTIVE first) is unit-tested in test_port_select.c.
. "${TOP:-.}/tests/integration/lib.sh"
. "$TOP/tests/integration/bringup_common.bash"
. "$TOP/tests/integration/sm_common.bash"
SMIOPEN=$O/tests/tap/libsmiopen.so
[ -f "$SMIOPEN" ] || fail "$SMIOPEN not built"
start_sim "$TOP/tests/data/default.net"

ibsmd_start a H1
wait_for 60 st_ge a heavy_sweeps 1 || { tail "$T/ibsmd-a.out"; fail "no heavy sweep"; }
read -r _ port how < <("$IBSMCTL" -s "$T/a.sock" status | grep '^sm_port ')
if python3 -c 'import ctypes; ctypes.CDLL("libibumad.so.3").umad_open_smi_port' 2>/dev/null; then
	[ "$how" = smi ] || fail "libibumad has umad_open_smi_port, ibsmd used $how"
else
	[ "$how" = umad ] || fail "libibumad has no umad_open_smi_port, yet status says $how"
fi
echo "this libibumad: sm_port $port $how"
ibsmd_stop a

SMIOPEN_FILE=$T/smi.calls LD_PRELOAD=$SMIOPEN ibsmd_start b H1
wait_for 60 st_ge b heavy_sweeps 1 || { tail "$T/ibsmd-b.out"; fail "no heavy sweep (b)"; }
read -r _ port how < <("$IBSMCTL" -s "$T/b.sock" status | grep '^sm_port ')
[ "$how" = smi ] || fail "with umad_open_smi_port provided, sm_port says $how"
[ "$(cat "$T/smi.calls" 2>/dev/null)" = "${port%/*} ${port#*/}" ] ||
	fail "umad_open_smi_port called with '$(cat "$T/smi.calls" 2>/dev/null)', sm_port is $port"
grep -q "umad_open_smi_port" "$T/ibsmd-b.out" || fail "the log does not say umad_open_smi_port"
ibsmd_stop b
echo "with umad_open_smi_port: sm_port $port smi, called once for that port"
