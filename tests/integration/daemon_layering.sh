#!/bin/bash
# daemon/ has no call loop larger than a file and its own header: the
# cross-file call graph is read from the object files (nm) and every
# strongly connected component spanning two files or more is listed.
# The loop reaches the SA, the multicast manager and the other parts only
# through events (docs/design.md, "How the parts talk").
. "${TOP:-.}/tests/integration/lib.sh"
cd "$TOP"
# First the checker itself, on two made-up files: a loop must be found,
# a one-way call must not be.
mkdir -p "$T/loop/daemon" "$T/oneway/daemon"
echo 'int b(void); int a(void) { return b(); }' >"$T/a.c"
echo 'int a(void); int b(void) { return a(); }' >"$T/b.c"
echo 'int b(void) { return 1; }' >"$T/b1.c"
cc -c -o "$T/loop/daemon/a.o" "$T/a.c" && cc -c -o "$T/loop/daemon/b.o" "$T/b.c" &&
	cp "$T/loop/daemon/a.o" "$T/oneway/daemon/" && cc -c -o "$T/oneway/daemon/b.o" "$T/b1.c" ||
	fail "cannot compile the checker's self-test"
python3 tests/integration/daemon_layering.py "$T/loop" 2 >"$T/loop.out"
[ $? -eq 1 ] && grep -q "LOOP (2 files): a b" "$T/loop.out" ||
	{ cat "$T/loop.out"; fail "the checker missed a two-file loop"; }
python3 tests/integration/daemon_layering.py "$T/oneway" 2 >"$T/oneway.out" ||
	{ cat "$T/oneway.out"; fail "the checker saw a loop in a one-way call"; }
python3 tests/integration/daemon_layering.py "$O" || fail "daemon/ has call loops (above)"
echo "PASS: no call loop between daemon files"
