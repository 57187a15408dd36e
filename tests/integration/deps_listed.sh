#!/bin/bash
# Every program that the build, the scripts and the tests call must come
# from a package that scripts/deps installs (or from one that every Debian
# system has): this machine has everything installed, a fresh one does not,
# so a forgotten package shows up here and not on a new user's first run.
#
# Programs are found by scanning the words of the build files, scripts and
# test scripts for names of installed executables; each is mapped to its
# Debian package with dpkg -S.  A package counts as installed by
# scripts/deps when it is listed there, is a dependency (two levels) of a
# listed package, or is Essential or Priority required (debootstrap's
# minbase installs those).
set -u
cd "${TOP:-$(dirname "$0")/../..}"
command -v dpkg-query >/dev/null || { echo "not a Debian system: dpkg-query missing"; exit 77; }

listed=$(sed -n '/^pkgs=(/,/^)/p' scripts/deps | sed '1d;$d' | tr -s ' \t' '\n' | grep -v '^$')
[ -n "$listed" ] || { echo "FAIL: no package list found in scripts/deps"; exit 1; }

depends_of() { # packages -> their Depends (names only)
	for p in "$@"; do
		dpkg-query -W -f='${Pre-Depends},${Depends}\n' "$p" 2>/dev/null
	done | tr ',|' '\n\n' | sed 's/([^)]*)//g; s/:any//g; s/^ *//; s/ *$//' | grep -v '^$' | sort -u
}
level1=$(depends_of $listed)
covered=$(printf '%s\n' $listed $level1 $(depends_of $level1) | sort -u)

files=$(git ls-files scripts Makefile configure.ac .ci 'tests/*.sh' 'tests/*.bash' \
	tests/run-all tests/run-unit tests/run-integration)
pyfiles=$(git ls-files 'tests/*.py')
# Words in command position: at a line's start, after | ; & ( $( or a
# shell keyword, or the first item of a Python argument list.
words=$( (cat $files | grep -v '^\s*#' \
	| sed -E 's/\b(then|do|else|exec|time|timeout +[0-9a-z.$]+|setsid|xargs|env|sudo|nohup|need_tool)[[:space:]]+/;/g' \
	| grep -oE "(^|[|;&(\`]|\\\$\()[[:space:]]*[a-z][a-z0-9_.+-]{1,30}" \
	| grep -oE "[a-z][a-z0-9_.+-]*$"
	cat $pyfiles | grep -oE "\[[[:space:]]*[\"'][a-z][a-z0-9_.+-]{1,30}[\"']" | grep -oE "[a-z][a-z0-9_.+-]*"
	) | sort -u)

# The package owning a path ("diversion by dash from: /usr/bin/sh" names
# none: such lines are skipped).
owner() { dpkg -S "$1" 2>/dev/null | grep -v '^diversion by ' | head -1 | cut -d: -f1; }

fail=0; checked=0
for w in $words; do
	path=$(command -v "$w" 2>/dev/null) || continue
	case "$path" in /*) ;; *) continue ;; esac # builtins, functions
	pkg=$(owner "$path")
	[ -n "$pkg" ] || pkg=$(owner "$(readlink -f "$path")")
	# usrmerge: dpkg knows /bin/ps, PATH finds /usr/bin/ps
	[ -n "$pkg" ] || pkg=$(owner "${path#/usr}")
	[ -n "$pkg" ] || continue # not from a package (pyenv, /usr/local): nothing to install
	pkg=${pkg%%,*}
	checked=$((checked + 1))
	grep -qx -- "$pkg" <<<"$covered" && continue
	[ "$(dpkg-query -W -f='${Essential}' "$pkg" 2>/dev/null)" = yes ] && continue
	[ "$(dpkg-query -W -f='${Priority}' "$pkg" 2>/dev/null)" = required ] && continue
	echo "FAIL: '$w' ($path) comes from package $pkg, which scripts/deps does not install"
	fail=1
done
echo "$checked programs checked against scripts/deps"
[ "$checked" -gt 10 ] || { echo "FAIL: found only $checked programs; the scan is broken"; exit 1; }
exit $fail
