#!/bin/bash
# ibsmroute --port-groups on the bundled fabrics, checked by a program that
# shares none of our code (pgroups_check.py: links from subnet.lst, LFT
# ports from lfts.dump, its own BFS): every group inside the min-hop ports
# (minhop) and holding each LID's LFT port, ids by use, and on fat trees
# every multi-path (switch, LID) pair covered.  The JSON report must agree
# with the dump.  No ibsim needed.
. "$(dirname "$0")/lib.sh"
need python3

CHECK="$TOP/tests/integration/pgroups_check.py"
for net in "$TOP"/tests/data/*.net; do
	name=$(basename "$net" .net)
	for r in minhop updown; do
		for cap in 255 4; do
			d="$T/$name-$r-$cap"
			"$O/ibsmroute" "$net" --routing "$r" --port-groups \
				--pg-cap "$cap" --dump-dir "$d" --json "$d.json" \
				>"$d.out" 2>&1 || fail "ibsmroute $name $r: $(cat "$d.out")"
			args=(--cap "$cap")
			[ "$r" = minhop ] && args+=(--minhop)
			case "$name" in ft*|default) args+=(--full-coverage) ;; esac
			out=$(python3 "$CHECK" "$d" "${args[@]}") || fail "$name $r cap $cap: $out"
			echo "$name $r cap $cap: $out"
			python3 - "$d.json" "$d/port-groups.dump" "$cap" <<'PY' || fail "$name $r cap $cap: JSON disagrees with the dump"
import json, sys
pg = json.load(open(sys.argv[1]))["port_groups"]
groups = sum(1 for l in open(sys.argv[2]) if l.split()[1] == "pg")
lids = sum(1 for l in open(sys.argv[2]) if l.split()[1] == "lid")
assert pg["groups"] == groups, (pg, groups)
assert pg["covered_pairs"] == lids, (pg, lids)
assert pg["max_groups_per_switch"] <= int(sys.argv[3])
assert 0 <= pg["coverage"] <= 1
PY
		done
	done
done
# The same fabric gives the same dump whatever the thread count.
"$O/ibsmroute" "$TOP/tests/data/random-small.net" --port-groups --pg-cap 4 \
	--threads 1 --dump-dir "$T/t1" >/dev/null 2>&1 || fail "threads 1"
"$O/ibsmroute" "$TOP/tests/data/random-small.net" --port-groups --pg-cap 4 \
	--threads 3 --dump-dir "$T/t3" >/dev/null 2>&1 || fail "threads 3"
cmp -s "$T/t1/port-groups.dump" "$T/t3/port-groups.dump" || fail "port-groups.dump differs between 1 and 3 threads"
"$O/ibsmroute" "$TOP/tests/data/default.net" --pg-cap 0 --port-groups >/dev/null 2>&1 && \
	fail "--pg-cap 0 accepted"
echo "PASS"
