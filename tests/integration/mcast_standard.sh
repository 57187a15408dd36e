#!/bin/bash
# Standard multicast joins and leaves (MemberCount absent) under ibsim,
# answered as the IBA says: create with a zero MGID (the SA assigns one),
# joins of an existing group keep the MLID of the first join, JoinState
# bits with partial leaves (SendOnlyFullMember too), proxy joins, refused
# requests (missing components, conflicting parameters, a NonMember
# create, a bad MGID, an unknown port or group), MCGStateRecord of an
# unknown MGID, the IPoIB broadcast group present from start-up.  The
# MFTs read back with ibroute -M deliver every group's packets.
. "${TOP:-.}/tests/integration/mcast_common.bash"
"$O/ibsmgen" fattree2 --hosts 32 -o "$T/ft.net" || fail "ibsmgen"
mc_start "$T/ft.net"
sim ibnetdiscover >"$T/topo0" 2>/dev/null
pguid() { sed -n "s/.*\"H-[0-9a-f]*\"\[1\](\([0-9a-f]*\)).*# \"$1\" .*/0x\1/p" "$T/topo0" | head -1; }
expect() { # expect STATUS-WORD OUTPUT WHAT
	grep -q "^status .* $1\$" <<<"$2" || fail "$3: expected $1, got: $(head -1 <<<"$2")"
}

# the broadcast group exists before anyone joined
out=$(sa_at H2 mcg-state ff12:401b:ffff::ffff:ffff)
expect success "$out" "MCGStateRecord of the IPoIB broadcast group"
out=$(sa_at H2 join ff12:401b:ffff::ffff:ffff --qkey 0x0b1b)
expect success "$out" "join of the broadcast group"
[ "$(field mlid <<<"$out")" != 0x0000 ] || fail "broadcast join without MLID"

# create with a zero MGID: the SA assigns ff1x:a01b:<pkey>::
out=$(sa_at H1 join 0)
expect success "$out" "create with a zero MGID"
MG=$(field mgid <<<"$out"); MLID=$(field mlid <<<"$out")
case $MG in ff12:a01b:ffff::*) ;; *) fail "assigned MGID $MG";; esac
[ "$MLID" != 0x0000 ] || fail "standard create answered without an MLID"
for h in H5 H9 H17 H30 H31; do
	out=$(sa_at $h join "$MG")
	expect success "$out" "join of $h"
	[ "$(field mlid <<<"$out")" = "$MLID" ] || fail "MLID changed at $h's join: $out"
done
# a repeated join is harmless and keeps the JoinState bits
expect success "$(sa_at H5 join "$MG")" "repeated join"

# JoinState: SendOnlyFullMember creates; partial leaves keep the member
SO=ff12:601b:ffff::5
out=$(sa_at H3 join $SO --join-state 8)
expect success "$out" "SendOnlyFullMember create"
out=$(sa_at H3 join $SO --join-state 1)
[ "$(field join_state <<<"$out")" = 0x9 ] || fail "JoinState bits not merged: $out"
sa_at H12 join $SO --join-state 2 >/dev/null
out=$(sa_at H3 leave $SO --join-state 8)
expect success "$out" "partial leave"
[ "$(field join_state <<<"$out")" = 0x1 ] || fail "partial leave left $out"
ctl mcg show $SO | grep -q "join_state 0x1" || fail "member lost by a partial leave"
expect success "$(sa_at H3 leave $SO --join-state 1)" "leave"
expect success "$(sa_at H12 leave $SO --join-state 2)" "last leave"
expect ERR_NO_RECORDS "$(sa_at H3 mcg-state $SO)" "MCGStateRecord of a deleted group"
expect ERR_REQ_INVALID "$(sa_at H3 leave $SO)" "leave of a deleted group"

# proxy join: H1 joins H7's port
G7=$(pguid H7)
[ -n "$G7" ] || fail "no port GUID for H7"
out=$(sa_at H1 join "$MG" --port-guid "$G7")
expect success "$out" "proxy join"
[ "$(field proxy_join <<<"$out")" = 1 ] || fail "ProxyJoin not set: $out"
ctl mcg show "$MG" | grep -q "member $(printf '0x%016x' "$G7")" || fail "proxy member missing"

# refused requests
expect ERR_REQ_INSUFFICIENT_COMPONENTS "$(sa_at H1 join ff12:601b:ffff::6 --mask 0x10003)" \
	"create without Q_Key/P_Key/SL/FlowLabel/TClass"
expect ERR_REQ_INVALID "$(sa_at H1 join ff12:601b:ffff::6 --join-state 2)" "NonMember create"
expect ERR_REQ_INVALID "$(sa_at H1 join "$MG" --qkey 0x1234)" "join with another Q_Key"
expect ERR_REQ_INVALID "$(sa_at H1 join "$MG" --sl 3)" "join with another SL"
expect ERR_REQ_INVALID "$(sa_at H1 join "$MG" --member-count 4)" "MemberCount on a standard group"
expect ERR_REQ_INVALID_GID "$(sa_at H1 join fe80::1)" "create with a unicast GID"
expect ERR_REQ_INVALID "$(sa_at H1 join "$MG" --port-guid 0x123456)" "unknown port"
expect ERR_REQ_INVALID "$(sa_at H4 leave "$MG")" "leave of a non-member"
expect ERR_NO_RECORDS "$(sa_at H1 mcg-state ff12:601b:ffff::99)" "unknown MGID"

# mcg list / show --dot over the control socket
ctl mcg list | grep -q "^$MG mlid=$MLID state=Ready " || fail "mcg list: $(ctl mcg list)"
dot=$(ctl mcg show "$MG" --dot)
grep -q '^digraph' <<<"$dot" && [ "$(grep -c 'style=dashed' <<<"$dot")" -ge 7 ] ||
	fail "mcg show --dot: $dot"

# deliveries over the MFTs as ibroute -M reads them
members=$(ctl mcg show "$MG" | awk '$1 == "member" { print $2 }')
names=
for g in $members; do
	n=$(sed -n "s/.*\"H-[0-9a-f]*\"\[1\]($(printf '%x' "$g")).*# \"\([^\"]*\)\".*/\1/p" "$T/topo0" | head -1)
	names="$names $n"
done
[ "$(wc -w <<<"$names")" -ge 7 ] || fail "members of $MG: $names"
echo "$MG $MLID$names" >"$T/groups"
echo "ff12:401b:ffff::ffff:ffff $(field mlid < <(sa_at H2 mcg-state ff12:401b:ffff::ffff:ffff)) H2" >>"$T/groups"
mc_walk "$T/groups" || fail "MFT walk found errors"

# A join that repeats what the member has changes nothing: it is answered
# without rewriting mcgroups.state (so a port repeating joins costs the
# others no write to wait for).  A real change does rewrite it.
sleep 0.2
before=$(stat -c %Y.%N "$T/state/mcgroups.state" 2>/dev/null)
for _ in 1 2 3 4 5; do
	expect success "$(sa_at H2 join ff12:401b:ffff::ffff:ffff --qkey 0x0b1b)" "repeated join of the broadcast group"
done
sleep 0.2
[ "$(stat -c %Y.%N "$T/state/mcgroups.state")" = "$before" ] ||
	fail "repeated joins that changed nothing rewrote mcgroups.state"
expect success "$(sa_at H5 join ff12:401b:ffff::ffff:ffff --qkey 0x0b1b)" "a new member of the broadcast group"
sleep 0.2
[ "$(stat -c %Y.%N "$T/state/mcgroups.state")" != "$before" ] ||
	fail "a new member did not rewrite mcgroups.state: the check above could not fail"
echo "PASS: standard joins, leaves, partial leaves, proxy join and refusals"
