#!/bin/bash
# SM_Key on the SA and a requester's own records, under ibsim with
# ibsmctl sa and saquery:
#  - sa.proxy_join: trusted: a join or leave for another port is refused
#    (ERR_REQ_INVALID) unless the SA header carries sm.sm_key; a port
#    joins and leaves for itself without it;
#  - sa.proxy_join: partition (the default): a proxy join is allowed, but
#    a membership the port made for itself is left only by it (or a
#    trusted requester);
#  - an SA request whose SM_Key is neither 0 nor the SM's gets no answer
#    (C15-0.1.5), the right one makes a trusted requester: only it is
#    given P_KeyTableRecords.
. "${TOP:-.}/tests/integration/lib.sh"
. "$TOP/tests/integration/bringup_common.bash"
. "$TOP/tests/integration/sm_common.bash"
need saquery smpquery
NET=$TOP/tests/data/default.net
start_sim "$NET"
KEY=0x00000000c0ffee11
G=ff12:601b:ffff::77
guid_of() { sim_at "$1" smpquery -D nodeinfo 0 2>/dev/null | sed -n 's/^PortGuid:\.*//p'; }
G3=$(guid_of H3)
[ -n "$G3" ] || fail "no port GUID for H3"
sa() { # HOST ARGS...: ibsmctl sa at HOST; prints its status line
	sim_at "$1" "$IBSMCTL" sa "${@:2}" 2>&1 | awk '/^status/ { print $3; exit }'
}

ibsmd_start a H1 -o sm.sm_key=$KEY -o sa.proxy_join=trusted
wait_for 60 st_ge a heavy_sweeps 1 || { tail "$T/ibsmd-a.out"; fail "no heavy sweep"; }
LID=$(st a sm_lid)

r=$(sa H2 join $G --port-guid "$G3")
[ "$r" = ERR_REQ_INVALID ] || fail "untrusted proxy join for H3 from H2: $r"
grep -q "refused (ERR_REQ_INVALID): a proxy join or leave needs the SM_Key" "$T/ibsmd-a.out" ||
	fail "the refusal is not logged"
r=$(sa H2 --sm-key "$KEY" join $G --port-guid "$G3")
[ "$r" = success ] || fail "trusted proxy join: $r"
r=$(sa H2 leave $G --port-guid "$G3")
[ "$r" = ERR_REQ_INVALID ] || fail "untrusted proxy leave: $r"
r=$(sa H3 leave $G)
[ "$r" = success ] || fail "H3 leaving for itself: $r"
r=$(sa H3 join $G)
[ "$r" = success ] || fail "H3 joining for itself: $r"
echo "proxy_join trusted: refused without the SM_Key, done with it; own joins and leaves free"

# SM_Key on SA queries: wrong one dropped, right one trusted.
if sim_at H2 timeout 20 saquery --smkey 0x9999 -t 300 PKeyTableRecord >"$T/pk.bad" 2>&1 &&
	grep -q "PKey\|pkey" "$T/pk.bad"; then
	fail "a wrong SM_Key was answered: $(head -3 "$T/pk.bad")"
fi
grep -q "dropped request from LID .*: SM_Key in the SA header is not the SM's" "$T/ibsmd-a.out" ||
	fail "the request with a wrong SM_Key was not dropped (log)"
sim_at H2 saquery PKeyTableRecord >"$T/pk.untrusted" 2>&1 &&
	fail "P_KeyTableRecords given to an untrusted requester"
sim_at H2 saquery --smkey "$KEY" PKeyTableRecord >"$T/pk.trusted" 2>&1 ||
	fail "trusted PKeyTableRecord query failed: $(tail -2 "$T/pk.trusted")"
grep -qi "pkey" "$T/pk.trusted" || fail "no P_Key table for the trusted requester: $(head -5 "$T/pk.trusted")"
echo "SM_Key: a wrong one gets no answer, the right one P_KeyTableRecords"
ibsmd_stop a

# The default, partition: proxy joins allowed, not over a port's own.
ibsmd_start b H1
wait_for 60 st_ge b heavy_sweeps 1 || { tail "$T/ibsmd-b.out"; fail "no heavy sweep (b)"; }
G4=$(guid_of H4)
r=$(sa H2 join $G --port-guid "$G4")
[ "$r" = success ] || fail "proxy join (partition): $r"
r=$(sa H2 leave $G --port-guid "$G4")
[ "$r" = success ] || fail "leave of a proxy membership: $r"
r=$(sa H3 join $G)
[ "$r" = success ] || fail "own join: $r"
r=$(sa H2 leave $G --port-guid "$G3")
[ "$r" = ERR_REQ_INVALID ] || fail "leave of H3's own membership from H2: $r"
ibsmd_stop b
echo "proxy_join partition: proxy joins and their leaves allowed, another port's own membership kept"
