#!/bin/bash
# daemon/ has no call loop larger than a file and its own header: the
# cross-file call graph is read from the object files (nm) and every
# strongly connected component spanning two files or more is listed.
# The loop reaches the SA, the multicast manager and the other parts only
# through events (docs/design.md, "How the parts talk").
. "${TOP:-.}/tests/integration/lib.sh"
cd "$TOP"
python3 tests/integration/daemon_layering.py "$O" || fail "daemon/ has call loops (above)"
echo "PASS: no call loop between daemon files"
