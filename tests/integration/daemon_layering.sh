#!/bin/bash
# The parts of daemon/ and routing/ keep to the order and the front doors
# that docs/design.md §8 lists: no dependency (include or call) of a folder
# on a folder not below it, no include of another folder's private header,
# no circle between folders, no call loop between two files or more
# (daemon_layering.py, which reads includes from the sources and calls from
# the object files).  The checker is first run on made-up trees that break
# each rule, and must fail on each.
. "${TOP:-.}/tests/integration/lib.sh"
cd "$TOP"
need python3 nm cc

# A made-up tree: lib/ below daemon/a/ below daemon/b/; $1 names the
# violation to plant.
fake_tree() {
	local d=$T/$1
	mkdir -p "$d/docs" "$d/lib" "$d/daemon/a" "$d/daemon/b" \
		"$d/build/lib" "$d/build/daemon/a" "$d/build/daemon/b"
	printf '# 8. How the parts talk\n```layers\nlib/ * base\ndaemon/a/ a.h part a\ndaemon/b/ b.h part b\n```\n' \
		>"$d/docs/design.md"
	echo 'int l(void);' >"$d/lib/l.h"
	echo '#include "lib/l.h"
int l(void) { return 1; }' >"$d/lib/l.c"
	echo 'int a(void);' >"$d/daemon/a/a.h"
	echo 'int a_inside(void);' >"$d/daemon/a/a_priv.h"
	echo '#include "daemon/a/a.h"
#include "daemon/a/a_priv.h"
#include "lib/l.h"
int a_inside(void) { return 2; }
int a(void) { return l() + a_inside(); }' >"$d/daemon/a/a.c"
	echo 'int b(void);' >"$d/daemon/b/b.h"
	echo '#include "daemon/b/b.h"
#include "daemon/a/a.h"
int b(void) { return a(); }' >"$d/daemon/b/b.c"
	case $1 in
	upward) # a calls up into b through b's front door
		echo '#include "daemon/b/b.h"
int a_up(void) { return b(); }' >"$d/daemon/a/a2.c" ;;
	private) # b reaches into a's private header
		echo '#include "daemon/a/a_priv.h"
int b2(void) { return a_inside(); }' >"$d/daemon/b/b2.c" ;;
	loop) # two files of a call each other
		echo 'int y(void); int x(int n) { return n ? y() : 0; }' >"$d/daemon/a/x.c"
		echo 'int x(int); int y(void) { return x(0); }' >"$d/daemon/a/y.c" ;;
	unplaced) # a folder the block does not list
		mkdir -p "$d/daemon/c" "$d/build/daemon/c"
		echo '#include "daemon/a/a.h"
int c(void) { return a(); }' >"$d/daemon/c/c.c" ;;
	esac
	for src in $(cd "$d" && ls lib/*.c daemon/*/*.c); do
		cc -I"$d" -c -o "$d/build/${src%.c}.o" "$d/$src" ||
			fail "cannot compile the checker's made-up tree ($1)"
	done
	python3 tests/integration/daemon_layering.py "$d" "$d/build" >"$d/out" 2>&1
}

fake_tree clean || { cat "$T/clean/out"; fail "the checker failed a clean tree"; }
for v in upward private loop unplaced; do
	fake_tree $v && { cat "$T/$v/out"; fail "the checker missed a made-up '$v' violation"; }
	case $v in
	upward) want='^UPWARD: daemon/a/a2.c includes daemon/b/b.h' ;;
	private) want='^PRIVATE: daemon/b/b2.c includes daemon/a/a_priv.h' ;;
	loop) want='^LOOP (2 files): daemon/a/x daemon/a/y' ;;
	unplaced) want='^UNPLACED: folder daemon/c/' ;;
	esac
	grep -q "$want" "$T/$v/out" || { cat "$T/$v/out"; fail "'$v' not named as such"; }
	[ $v = upward ] && { grep -q '^CIRCLE (2 folders): daemon/a daemon/b' "$T/$v/out" ||
		{ cat "$T/$v/out"; fail "the circle of '$v' not named"; }; }
	echo "ok: the checker fails a made-up '$v' violation: $(grep -m1 "$want" "$T/$v/out")"
done

python3 tests/integration/daemon_layering.py "$TOP" "$O" >"$T/tree.out" 2>&1
rc=$?
cat "$T/tree.out"
[ $rc -eq 0 ] || fail "the tree breaks the layering of docs/design.md §8 (above)"
grep -q ' 0 folder circles;.* 0 call loops$' "$T/tree.out" || fail "no summary line"
echo "PASS: every folder keeps to the order and the front doors of docs/design.md §8"
