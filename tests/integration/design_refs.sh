#!/bin/bash
# The repository carries its own design: nothing refers to a document
# outside it or to issue numbers, and every "docs/design.md §N" cited in
# the code names a section that exists.
cd "${TOP:-$(dirname "$0")/../..}"
fail=0
out=$(git grep -n -e '\.\./shared' -e 'DESIGN §' -e 'DESIGN [0-9]' -e '[Ii]ssue [0-9]' \
	-- ':!tests/integration/design_refs.sh')
[ -z "$out" ] || { echo "$out"; echo "FAIL: references outside the repository or to issues"; fail=1; }
n=0
for sec in $(git grep -ohE 'design\.md §[0-9]+(\.[0-9]+)*' | sed 's/.*§//' | sort -u); do
	n=$((n + 1))
	grep -qE "^#+ $sec[. ]" docs/design.md ||
		{ echo "FAIL: docs/design.md has no section $sec"; fail=1; }
done
[ $fail -eq 0 ] && echo "PASS: no outside references; $n cited design sections exist"
exit $fail
