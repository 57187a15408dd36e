#!/bin/bash
# Every benchmark and the demo guard their processes (tests/procs.bash):
# whatever they start is stopped at exit, daemons before ibsim, and a run
# that leaves something behind says so.  Integration tests get the same
# from tests/run-integration and tests/integration/lib.sh.
cd "${TOP:-$(dirname "$0")/../..}"
fail=0
for f in tests/bench/*.sh scripts/demo; do
	grep -q '^procs_guard' "$f" || { echo "FAIL: $f does not call procs_guard"; fail=1; }
done
# procs_guard itself: a child left running is found and stopped.
out=$(bash -c '. tests/procs.bash; procs_guard; sleep 300 & sleep 30 & exit 0' 2>&1)
echo "$out"
echo "$out" | grep -q "stopping 2 process(es)" || { echo "FAIL: procs_guard did not find its children"; fail=1; }
[ $fail -eq 0 ] && echo "PASS: every benchmark guards its processes"
exit $fail
