#!/bin/bash
# Bounded libFuzzer run of the SA request decoder/handler (tests/fuzz/
# sa_fuzz.c): builds the target with clang (-fsanitize=fuzzer,address,
# undefined) from the SA sources and runs it from the seed corpus for
# SA_FUZZ_SECONDS (default 60).  Any crash, sanitizer report, leak or
# timeout fails the test; the crashing input is kept in the log directory.
. "${TOP:-.}/tests/integration/lib.sh"
need clang
cd "$TOP"
bin="$T/sa_fuzz"
# The SA files and the codecs they use go into an archive and the linker
# takes what sa_handle needs: the SA proper (daemon/sa/) never calls the
# daemon glue (daemon/sa_daemon/) nor the multicast manager's join
# handlers (daemon/mcast/), which tests/integration/daemon_layering.sh
# keeps true.
mkdir -p "$T/obj"
for src in mad/sa_*.c mad/smp*.c mad/fields.c daemon/sa/*.c lib/fabric.c lib/log.c \
	lib/speed.c lib/pkeys.c lib/qos.c; do
	o="$T/obj/$(echo "$src" | tr / _).o"
	clang -std=gnu11 -g -O1 -I. -D_GNU_SOURCE -fsanitize=fuzzer-no-link,address,undefined \
		-fno-sanitize-recover=undefined -c -o "$o" "$src" 2>>"$T/build.log" ||
		{ cat "$T/build.log"; fail "could not compile $src for the SA fuzz target"; }
done
ar rcs "$T/libsa.a" "$T"/obj/*.o
clang -std=gnu11 -g -O1 -I. -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -o "$bin" tests/fuzz/sa_fuzz.c "$T/libsa.a" 2>>"$T/build.log" ||
	{ cat "$T/build.log"; fail "could not build the SA fuzz target (libFuzzer and ASan runtimes: Debian package libclang-rt-14-dev)"; }
mkdir -p "$T/corpus"
cp tests/fuzz/corpus/sa/* "$T/corpus/"
art="${O}/tests/fuzz-artifacts/"
mkdir -p "$art"
secs=${SA_FUZZ_SECONDS:-60}
echo "fuzzing sa_handle for ${secs}s from $(ls tests/fuzz/corpus/sa | wc -l) seeds"
ASAN_OPTIONS=detect_leaks=1 "$bin" -max_total_time="$secs" -timeout=5 \
	-rss_limit_mb=1024 -artifact_prefix="$art" -print_final_stats=1 \
	"$T/corpus" >"$T/fuzz.log" 2>&1
rc=$?
tail -25 "$T/fuzz.log"
[ $rc -eq 0 ] || fail "fuzzer found a problem (rc=$rc), inputs in $art"
grep -q "Done [0-9]* runs" "$T/fuzz.log" || fail "fuzzer did not finish its run"
echo "PASS: $(grep -o 'Done [0-9]* runs' "$T/fuzz.log") without a crash"
