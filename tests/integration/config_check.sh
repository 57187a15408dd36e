#!/bin/bash
# ibsmd's configuration from the command line, as an administrator sees it:
# --check-config with the shipped file (-c FILE or after the option)
# equals the built-in defaults, -o
# overrides show up in the canonical output, that output is itself a valid
# config giving the same result, and a bad file or override exits 2 with
# "file:line: message".
. tests/integration/lib.sh
D="$O/ibsmd"
[ -x "$D" ] || skip "ibsmd not built yet (daemon branch)"
"$D" --help 2>&1 | grep -q -- --check-config || skip "ibsmd has no --check-config yet"

"$D" -c conf/ibsmd.yaml --check-config >"$T/shipped" || fail "--check-config on conf/ibsmd.yaml"
"$D" -c /dev/null --check-config >"$T/empty" || fail "--check-config on an empty file"
diff -u "$T/empty" "$T/shipped" || fail "conf/ibsmd.yaml is not the defaults"
grep -q '^  unicast: ftree$' "$T/shipped" || fail "no routing.unicast in: $(head "$T/shipped")"

# "--check-config FILE" reads FILE, as -c FILE does (the Debian package's
# README.Debian and tests/package/debian.sh use that form).
"$D" --check-config "$T/none.yaml" >/dev/null 2>&1 && fail "--check-config FILE: a file that is not there passed"
"$D" --check-config conf/ibsmd.yaml >"$T/shipped2" || fail "--check-config conf/ibsmd.yaml"
diff -u "$T/shipped" "$T/shipped2" || fail "--check-config FILE differs from -c FILE --check-config"
"$D" -c conf/ibsmd.yaml --check-config extra >/dev/null 2>&1 && fail "-c FILE --check-config FILE2 accepted"

"$D" -c conf/ibsmd.yaml -o routing.unicast=updown -o sm.priority=9 \
	-o routing.updown.roots=S1,S2 --check-config >"$T/over" || fail "overrides rejected"
grep -q '^  unicast: updown$' "$T/over" || fail "routing.unicast override not shown"
grep -q '^  priority: 9$' "$T/over" || fail "sm.priority override not shown"
grep -q 'roots: \["S1", "S2"\]' "$T/over" || fail "roots override not shown"
"$D" -c "$T/over" --check-config >"$T/again" || fail "canonical output does not load"
diff -u "$T/over" "$T/again" || fail "canonical output is not stable"

printf 'sm:\n  priority: 99\n' >"$T/bad.yaml"
"$D" -c "$T/bad.yaml" --check-config >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 2 ] || fail "bad config: exit $rc, want 2"
grep -q "$T/bad.yaml:2: sm.priority: 99 is out of range 0..15" "$T/err" ||
	fail "bad config message: $(cat "$T/err")"

"$D" -c conf/ibsmd.yaml -o mad.windw=3 --check-config >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 2 ] || fail "unknown -o key: exit $rc, want 2"
grep -q 'unknown key "mad.windw"' "$T/err" || fail "unknown -o key message: $(cat "$T/err")"

"$D" -c "$T/missing.yaml" --check-config >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 2 ] || fail "unreadable config: exit $rc, want 2"
grep -q "missing.yaml" "$T/err" || fail "unreadable config message: $(cat "$T/err")"
# The layered engine is accepted; with qos.enable it is refused (exit 2)
# with a message naming both keys: the two would choose SLs alike.
printf 'routing:\n  unicast: layered\n' >"$T/layered.yaml"
"$D" -c "$T/layered.yaml" --check-config >"$T/out" 2>"$T/err" ||
	fail "routing.unicast: layered refused: $(cat "$T/err")"
printf 'routing:\n  unicast: layered\nqos:\n  enable: true\n' >"$T/layered-qos.yaml"
"$D" -c "$T/layered-qos.yaml" --check-config >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 2 ] || fail "layered with qos.enable: exit $rc, want 2"
grep -qF "routing.unicast: layered" "$T/err" && grep -qF "qos.enable" "$T/err" ||
	fail "layered with qos.enable: message: $(cat "$T/err")"
# Partitions: the example of ibsmd.yaml(5) prints canonically, and the
# printout is a config giving the same; a P_Key given twice or an unknown
# key in a partition is "file:line: message" and exit 2.
cat >"$T/parts.yaml" <<'EOF'
partitions:
  - name: default
    pkey: 0x7fff
    ipoib: true
    mtu: 4096
    rate: 100g
    members: all
  - name: storage
    pkey: 0x0002
    members: [H-1, 0x0002c903000a1b2c, "switches"]
    limited: [hosts]
EOF
"$D" -c "$T/parts.yaml" --check-config >"$T/parts.out" || fail "partitions example rejected"
grep -q '^    mtu: 4096$' "$T/parts.out" && grep -q '^    rate: 100g$' "$T/parts.out" &&
	grep -q '^    limited: \["hosts"\]$' "$T/parts.out" || fail "partitions not shown: $(tail -20 "$T/parts.out")"
"$D" -c "$T/parts.out" --check-config >"$T/parts.again" || fail "canonical partitions do not load"
diff -u "$T/parts.out" "$T/parts.again" || fail "canonical partitions are not stable"
printf 'partitions:\n  - name: a\n    pkey: 2\n  - name: b\n    pkey: 0x0002\n' >"$T/dup.yaml"
"$D" -c "$T/dup.yaml" --check-config >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 2 ] || fail "duplicate pkey: exit $rc, want 2"
grep -qF "$T/dup.yaml:4: partitions[1] (b): pkey 0x0002 is also partitions[0]'s (a)" "$T/err" ||
	fail "duplicate pkey message: $(cat "$T/err")"
printf 'partitions:\n  - name: a\n    pkey: 2\n    membres: all\n' >"$T/unk.yaml"
"$D" -c "$T/unk.yaml" --check-config >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 2 ] || fail "unknown partition key: exit $rc, want 2"
grep -qF "$T/unk.yaml:4: partitions[0]: unknown key \"membres\"" "$T/err" ||
	fail "unknown partition key message: $(cat "$T/err")"
echo PASS
