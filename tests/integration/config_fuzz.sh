#!/bin/bash
# Bounded libFuzzer run of the configuration parser (tests/fuzz/
# config_fuzz.c), seeded with every tests/data/config/*.in and the
# example conf/ibsmd.yaml, for CONFIG_FUZZ_SECONDS (default 30): a crash,
# a sanitizer report, a leak, an error that names no place, or a
# canonical printout that does not read back fails the test.
. "${TOP:-.}/tests/integration/lib.sh"
need clang
cd "$TOP"
bin="$T/config_fuzz"
flags="-std=gnu11 -g -O1 -I. -D_GNU_SOURCE -fno-sanitize-recover=undefined"
flags="$flags $(pkg-config --cflags yaml-0.1 2>/dev/null)"
# shellcheck disable=SC2086
clang $flags -fsanitize=fuzzer,address,undefined -o "$bin" \
	tests/fuzz/config_fuzz.c lib/config.c lib/config_yaml.c lib/config_doc.c \
	lib/qos.c lib/config_partitions.c lib/log.c lib/listen.c $(pkg-config --libs yaml-0.1 2>/dev/null || echo -lyaml) \
	2>"$T/build.log" ||
	{ cat "$T/build.log"; fail "could not build the config fuzz target (libFuzzer and ASan runtimes: Debian package libclang-rt-14-dev)"; }
mkdir -p "$T/corpus"
cp tests/data/config/*.in "$T/corpus/"
cp conf/ibsmd.yaml "$T/corpus/example.yaml"
art="${O}/tests/fuzz-artifacts/config-"
mkdir -p "$(dirname "$art")"
secs=${CONFIG_FUZZ_SECONDS:-30}
echo "fuzzing the configuration parser for ${secs}s from $(ls "$T/corpus" | wc -l) seeds"
ASAN_OPTIONS=detect_leaks=1 "$bin" -max_total_time="$secs" -timeout=5 \
	-rss_limit_mb=1024 -max_len=4096 -artifact_prefix="$art" \
	-print_final_stats=1 "$T/corpus" >"$T/fuzz.log" 2>&1
rc=$?
tail -15 "$T/fuzz.log"
[ $rc -eq 0 ] || fail "fuzzer found a problem (rc=$rc), inputs in ${art%/*}"
grep -q "Done [0-9]* runs" "$T/fuzz.log" || fail "fuzzer did not finish its run"
echo "PASS: $(grep -o 'Done [0-9]* runs' "$T/fuzz.log") without a crash"
