#!/bin/bash
# ibsmgen: every family at the papers' sizes parses back with the right
# numbers of hosts, switches and links; the first node is a host; a seed
# always gives the same random network and another seed another one; and
# each generator takes well under the time budget (seconds).
. tests/integration/lib.sh
G="$O/ibsmgen"
[ -x "$G" ] || fail "$G not built"

# family args | hosts switches links
check() {
	local want_h=$1 want_s=$2 want_l=$3; shift 3
	local s e
	s=$(date +%s%N)
	"$G" "$@" -o "$T/x.net" || fail "ibsmgen $* failed"
	e=$(date +%s%N)
	"$G" dump "$T/x.net" >"$T/x.dump" || fail "ibsmgen $*: output does not parse"
	local hdr; hdr=$(head -1 "$T/x.dump")
	local nodes=$((want_h + want_s))
	[ "$hdr" = "# $nodes nodes, $want_s switches, $want_l links" ] ||
		fail "ibsmgen $*: got '$hdr', want $nodes nodes, $want_s switches, $want_l links"
	grep -m1 -E '^(Hca|Switch)' "$T/x.net" | grep -q '^Hca' ||
		fail "ibsmgen $*: first node is not a host"
	# the time is printed for the record, never asserted (a loaded
	# machine makes any bound flake)
	echo "ok $* : $hdr ($(( (e - s) / 1000000 )) ms)"
}

# k=40 fat tree: 16,000 hosts, 2,000 switches, 3 x 16,000 links
check 16000 2000 48000 fattree3 --k 40
check 128 80 384 fattree3 --k 8
check 32 12 64 fattree2 --hosts 32 --radix 8
# 2-level pruned: 12 hosts and 4 uplinks per 16-port leaf, 8 leaves, 4 spines
check 96 12 $((96 + 8 * 4)) fattree2 --hosts 96 --radix 16 --uplinks 4
# 30x20x20 torus, 2 hosts each: 24,000 hosts, 3 links per switch
check 24000 12000 60000 torus 30 20 20 --hosts-per-switch 2
# dragonfly a=18 p=h=9: 163 groups, 26,406 hosts,
# links = hosts + 163*C(18,2) local + C(163,2) global
check 26406 2934 $((26406 + 163 * 153 + 163 * 162 / 2)) dragonfly --a 18 --p 9 --h 9
# random: 2,048 switches, 20 host ports and 20 switch ports each
check 40960 2048 $((40960 + 2048 * 20 / 2)) random --switches 2048 --ports 40 --hosts-per-switch 20 --seed 1
# pruned trees of the papers' machines (radix 64): 8 pods x 34 leaves x 32
# hosts with 8 middles per pod and 64-34 = 30 tops; 32 pods x 40 leaves with
# 2 middles per pod and 24 tops
check 8704 $((272 + 8 * 8 + 30)) $((8704 + 272 * 8 + 64 * 30)) pruned --hosts 8704 --radix 64 --uplinks 8
check 40960 $((1280 + 32 * 2 + 24)) $((40960 + 1280 * 2 + 64 * 24)) pruned --hosts 40960 --radix 64 --uplinks 2
# 3-level pruned trees: P pods of L leaves (H hosts each) under M middles,
# middles trunked to T tops with U uplinks each:
# switches P*L + P*M + T, links P*L*H + P*L*M + P*M*U
check $((2 * 4 * 3)) $((8 + 4 + 4)) $((24 + 16 + 8)) pruned3 --pods 2 --leaves 4 --hosts-per-leaf 3 --middles 2 --tops 4 --uplinks 2
check $((8 * 34 * 32)) $((272 + 32 + 16)) $((8704 + 272 * 4 + 32 * 8)) pruned3 --pods 8 --leaves 34 --hosts-per-leaf 32 --middles 4 --tops 16 --uplinks 8

"$G" random --switches 64 --ports 12 --hosts-per-switch 4 --seed 5 >"$T/a.net"
"$G" random --switches 64 --ports 12 --hosts-per-switch 4 --seed 5 >"$T/b.net"
"$G" random --switches 64 --ports 12 --hosts-per-switch 4 --seed 6 >"$T/c.net"
cmp -s "$T/a.net" "$T/b.net" || fail "random: same seed gave different files"
cmp -s "$T/a.net" "$T/c.net" && fail "random: different seeds gave the same file"

# A random network is connected: ibnetdiscover under ibsim from the first
# host finds every node.
need ibnetdiscover
start_ibsim "$T/a.net" $("$G" ibsim-args "$T/a.net")
found=$(sim ibnetdiscover 2>/dev/null | grep -cE '^(Switch|Ca)')
[ "$found" -eq $((64 + 256)) ] || fail "random: ibnetdiscover found $found of 320 nodes"

# Bad arguments exit 2 with a message.
"$G" fattree2 --hosts 5000 --radix 8 2>"$T/err" && fail "oversized fattree2 accepted"
grep -q "raise --radix" "$T/err" || fail "no hint in: $(cat "$T/err")"
"$G" fattree2 --hosts 32 --radix 8 --uplinks 8 2>"$T/err" && fail "fattree2 with no host port accepted"
grep -q "uplinks < radix" "$T/err" || fail "no reason in: $(cat "$T/err")"
echo PASS
