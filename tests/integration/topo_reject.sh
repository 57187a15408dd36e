#!/bin/bash
# Broken topology files are refused by ibsim and by our parser alike, and
# ours says where and why: each tests/data/topo/bad/*.net starts with
# "# error: <the expected file:line: message>".
. tests/integration/lib.sh
need ibsim
[ -x "$O/ibsmgen" ] || fail "$O/ibsmgen not built"
n=0
for f in tests/data/topo/bad/*.net; do
	name=$(basename "$f")
	want=$(sed -n '1s/^# error: //p' "$f")
	[ -n "$want" ] || fail "$f has no '# error:' first line"
	cp "$f" "$T/$name"
	(cd "$T" && timeout 10 ibsim -s "$name" </dev/null >"$T/ibsim.out" 2>&1); rc=$?
	[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] ||
		fail "$name: ibsim accepted it (rc=$rc), so it is not a bad file"
	(cd "$T" && "$O/ibsmgen" dump "$name" >/dev/null 2>"$T/err"); rc=$?
	[ "$rc" -eq 1 ] || fail "$name: ibsmgen dump exit $rc, want 1"
	got=$(sed 's/^ibsmgen: //' "$T/err")
	[ "$got" = "$want" ] || fail "$name: got '$got', want '$want'"
	echo "ok $name: $got"
	n=$((n + 1))
done
[ "$n" -ge 8 ] || fail "only $n bad files"
echo PASS
