#!/bin/bash
# One version everywhere: the file VERSION (its one source), what
# configure.ac's AC_INIT gives autoconf, what `ibsmd --version` prints, and
# the newest entry of debian/changelog (a native package: no Debian
# revision) must all be the same, else a user reads three versions.
. "${TOP:-.}/tests/integration/lib.sh"
need autoconf dpkg-parsechangelog
cd "$TOP" || fail "no $TOP"
[ -s VERSION ] || fail "the file VERSION is missing or empty"
v=$(cat VERSION)
[ "$(wc -l <VERSION)" -eq 1 ] && printf '%s\n' "$v" | grep -qE '^[0-9]+\.[0-9]+\.[0-9]+$' ||
	fail "VERSION is not one line MAJOR.MINOR.PATCH: '$v'"
ac=$(autoconf --force --trace='AC_INIT:$2' configure.ac 2>"$T/autoconf.err") ||
	fail "autoconf --trace failed: $(cat "$T/autoconf.err")"
bin=$("$O/ibsmd" --version) || fail "ibsmd --version failed"
deb=$(dpkg-parsechangelog -l debian/changelog -S Version) ||
	fail "debian/changelog does not parse"
bad=0
[ "$ac" = "$v" ] || { echo "configure.ac AC_INIT gives '$ac', VERSION says '$v'"; bad=1; }
[ "$bin" = "ibsmd $v" ] || { echo "ibsmd --version prints '$bin', VERSION says '$v'"; bad=1; }
[ "$deb" = "$v" ] || { echo "debian/changelog's newest entry is '$deb', VERSION says '$v'"; bad=1; }
# Every entry is a version of its own, newest first.
dpkg-parsechangelog -l debian/changelog --all -S Version >/dev/null ||
	fail "debian/changelog's older entries do not parse"
vs=$(sed -n 's/^ibsmd (\([^)]*\)).*/\1/p' debian/changelog)
[ "$(printf '%s\n' $vs | sort -rV)" = "$(printf '%s\n' $vs)" ] &&
	[ "$(printf '%s\n' $vs | sort -u | wc -l)" -eq "$(printf '%s\n' $vs | wc -l)" ] ||
	{ echo "debian/changelog versions are not strictly decreasing: $vs"; bad=1; }
[ $bad -eq 0 ] || fail "the versions disagree"
echo "PASS: version $v in VERSION, configure.ac, ibsmd --version and debian/changelog ($(printf '%s ' $vs)entries)"
