#!/bin/bash
# The SA handler's own throughput (no transport, one core): builds
# tests/bench/sa_handle.c against the build's archives and runs it on the
# bundled small fat tree and on a 3-level fat tree generated at scale.
#   O=build tests/bench/sa_handle.sh [K]    (K: ibsmgen fattree3 --k K, default 24)
set -eu
O=${O:-build}
K=${1:-24}
TMP=$(mktemp -d)
. "$(dirname "$0")/../procs.bash"
procs_guard 'rm -rf "$TMP"'
[ -f "$O/libibsmdaemon.a" ] && [ -x "$O/ibsmgen" ] || { echo "build first (make)"; exit 1; }
cc -std=gnu11 -O2 -I. -D_GNU_SOURCE -pthread -o "$TMP/sah" tests/bench/sa_handle.c \
	"$O/libibsmdaemon.a" "$O/libibsmrouting.a" "$O/libibsmmad.a" "$O/libibsm.a" \
	$(pkg-config --libs yaml-0.1) -lm
"$TMP/sah" tests/data/ft2-small.net 1
"$O/ibsmgen" fattree3 --k "$K" -o "$TMP/ft3.net"
"$TMP/sah" "$TMP/ft3.net" 1
