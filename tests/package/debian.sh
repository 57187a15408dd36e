#!/bin/bash
# The Debian package, end to end, as a site would build and install it.
# .ci/run runs it after the suite (it builds the package with the whole
# `make check` in dh_auto_test and bootstraps Debian 12 twice: too long
# for scripts/check, docs/design.md §2.1).  Needs root (debootstrap,
# chroot) and Debian's package registry; debian.sh -h lists the knobs.
#
#  1. build: dpkg-buildpackage -us -uc -b in a clean clone of HEAD, the
#     project's tests in dh_auto_test;
#  2. lintian on the .changes: no error, no warning (overrides carry their
#     reason in debian/ibsmd.lintian-overrides);
#  3. contents: every file with its path, mode and owner; the conffile;
#     the unit, the configuration and the man pages byte for byte as in
#     the tree; `make install DESTDIR` from a clone without Debian's tools
#     installs the same files;
#  4. a minimal Debian 12 (debootstrap --variant=minbase): dpkg -i, then
#     apt-get -f install pulls the dependencies; ibsmd --check-config on
#     the conffile, ibsmd --version, man ibsmd, systemd-analyze verify,
#     the unit enabled and nothing started, /var/lib/ibsmd 0750 root;
#     dpkg -r leaves only the conffile, the state directory and systemd's
#     record of the unit being enabled, dpkg -P leaves nothing;
#  5. beside OpenSM: with opensm.service enabled, ibsmd installs, says in
#     one line how to switch and leaves ibsmd.service disabled;
#  6. -Pnocheck: in another minimal Debian 12 with only the Build-Depends
#     that are not <!nocheck>, the package builds, to the same files.
set -u -o pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SELF=$TOP/tests/package/debian.sh
CACHE=${IBSM_PKG_CACHE:-/var/cache/ibsmd-pkgtest}
SUITE=bookworm
export LC_ALL=C # one collation for sort and comm

fail() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; }

usage() {
	cat <<EOF
usage: tests/package/debian.sh
  IBSM_PKG_CACHE=DIR   cached base system and .debs (default $CACHE)
  IBSM_PKG_NOCHECK=1   build without dh_auto_test (only while working on
                       this script: the full run is the one that counts)
  KEEP=1               keep the scratch directory
EOF
}

# ---- inside a private mount namespace (unshare -m): the chroot steps ----

# in_root ROOT CMD...: CMD in the chroot, with a clean environment.
in_root() {
	local r=$1; shift
	chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

# mount_root ROOT: /proc, and apt's archive directory from the cache (so a
# second run downloads nothing).  The namespace drops the mounts at exit.
mount_root() {
	mount -t proc proc "$1/proc" || fail "cannot mount /proc in $1"
	mkdir -p "$CACHE/apt"
	mount --bind "$CACHE/apt" "$1/var/cache/apt/archives" ||
		fail "cannot mount the apt cache in $1"
	cp /etc/resolv.conf "$1/etc/resolv.conf" 2>/dev/null
}

# Paths with a component named ibsm* (libsmartcols also holds "ibsm").
OURS='/ibsm[^/]*(/|$)'

# snap ROOT FILE: every path of the system, without the package managers'
# own records and caches, /srv (where the .deb waits) and the pseudo
# file systems.
snap() {
	(cd "$1" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev \
		-o -path ./run -o -path ./tmp -o -path ./srv -o -path ./var/cache \
		-o -path ./var/log -o -path ./var/lib/dpkg -o -path ./var/lib/apt \
		-o -path ./etc/ld.so.cache -o -path ./root \) -prune -o -print) |
		sed 's|^\.||; /^$/d' | sort >"$2"
}

chroot_install() {
	local r=$1 deb=$2 src=$3 w=$4 out
	mount_root "$r"
	mkdir -p "$r/srv" && cp "$deb" "$r/srv/" || fail "cannot copy the .deb"
	deb=/srv/$(basename "$deb")
	in_root "$r" apt-get update -q >"$w/apt-update.log" 2>&1 ||
		{ tail "$w/apt-update.log"; fail "apt-get update in the chroot"; }
	snap "$r" "$w/s0"

	# dpkg -i alone cannot configure it: its libraries are missing.
	in_root "$r" dpkg -i "$deb" >"$w/dpkg-i.log" 2>&1 &&
		fail "dpkg -i succeeded on a minimal system: are the Depends empty?"
	grep -q "dependency problems - leaving unconfigured" "$w/dpkg-i.log" ||
		{ cat "$w/dpkg-i.log"; fail "dpkg -i failed for another reason than its dependencies"; }
	in_root "$r" apt-get -f install -y -q >"$w/apt-f.log" 2>&1 ||
		{ tail -20 "$w/apt-f.log"; fail "apt-get -f install"; }
	[ "$(in_root "$r" dpkg-query -W -f='${Status}' ibsmd)" = "install ok installed" ] ||
		fail "ibsmd is not installed after apt-get -f install"
	ok "dpkg -i, then apt-get -f install pulled: $(sed -n 's/^Setting up \([^ ]*\) .*/\1/p' "$w/apt-f.log" | grep -v '^ibsmd' | tr '\n' ' ')"
	grep -q "opensm.service is enabled" "$w/dpkg-i.log" "$w/apt-f.log" &&
		fail "the OpenSM notice was printed without OpenSM"

	# What was installed and how.
	for f in usr/sbin/ibsmd usr/sbin/ibsmctl usr/bin/ibsmroute usr/bin/ibsmgen usr/bin/ibsmpattern; do
		[ "$(stat -c '%a %U:%G' "$r/$f")" = "755 root:root" ] || fail "/$f: $(stat -c '%a %U:%G' "$r/$f")"
	done
	[ "$(stat -c '%F %a %U:%G' "$r/var/lib/ibsmd")" = "directory 750 root:root" ] ||
		fail "/var/lib/ibsmd: $(stat -c '%F %a %U:%G' "$r/var/lib/ibsmd" 2>&1)"
	cmp -s "$r/etc/ibsmd/ibsmd.yaml" "$src/conf/ibsmd.yaml" || fail "/etc/ibsmd/ibsmd.yaml is not conf/ibsmd.yaml"
	in_root "$r" dpkg-query -W -f='${Conffiles}\n' ibsmd | grep -q '^ /etc/ibsmd/ibsmd.yaml ' ||
		fail "/etc/ibsmd/ibsmd.yaml is not a conffile"
	ok "programs 0755, /var/lib/ibsmd 0750 root:root, /etc/ibsmd/ibsmd.yaml a conffile equal to conf/ibsmd.yaml"

	# Enabled for boot, not started (there is no systemd running here).
	[ "$(readlink "$r/etc/systemd/system/multi-user.target.wants/ibsmd.service")" = /lib/systemd/system/ibsmd.service ] ||
		fail "ibsmd.service is not enabled"
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$r" ] &&
			fail "a process runs in the chroot: $(tr '\0' ' ' <"$p/cmdline")"
	done
	ok "ibsmd.service enabled (multi-user.target), nothing started in the chroot"

	out=$(in_root "$r" ibsmd --check-config /etc/ibsmd/ibsmd.yaml 2>&1) ||
		fail "ibsmd --check-config /etc/ibsmd/ibsmd.yaml: $out"
	[ "$out" = "$(in_root "$r" ibsmd -c /dev/null --check-config 2>&1)" ] ||
		fail "the shipped configuration is not the built-in defaults"
	out=$(in_root "$r" ibsmd --version) || fail "ibsmd --version"
	[ "$out" = "ibsmd $(cat "$src/VERSION")" ] || fail "ibsmd --version: $out"
	ok "ibsmd --check-config /etc/ibsmd/ibsmd.yaml passes (the defaults); $out"

	# man and systemd-analyze come with their packages.
	in_root "$r" apt-get install -y -q man-db systemd >"$w/apt-tools.log" 2>&1 ||
		{ tail "$w/apt-tools.log"; fail "apt-get install man-db systemd"; }
	in_root "$r" env MANPAGER=cat MANWIDTH=80 man ibsmd >"$w/man.txt" 2>&1 ||
		{ head "$w/man.txt"; fail "man ibsmd"; }
	grep -q "ibsmd - InfiniBand subnet manager daemon" "$w/man.txt" || fail "man ibsmd shows: $(head -3 "$w/man.txt")"
	for m in "8 ibsmctl" "5 ibsmd.yaml" "1 ibsmroute" "1 ibsmgen" "1 ibsmpattern"; do
		in_root "$r" env MANPAGER=cat man $m 2>&1 | grep -q "^NAME" || fail "man $m"
	done
	out=$(in_root "$r" systemd-analyze verify /lib/systemd/system/ibsmd.service 2>&1) ||
		fail "systemd-analyze verify: $out"
	[ -z "$out" ] || fail "systemd-analyze verify says: $out"
	[ "$(in_root "$r" systemctl is-enabled ibsmd.service 2>&1)" = enabled ] || fail "systemctl is-enabled ibsmd"
	ok "man ibsmd (and the 5 other pages), systemd-analyze verify ibsmd.service: clean"

	# Remove: the conffile and the state directory stay (with what the
	# daemon left there: a stand-in), and systemd's record that the unit
	# is enabled, which debhelper keeps so that a reinstall keeps the
	# administrator's choice.  Nothing else.
	in_root "$r" dpkg -L ibsmd | sort >"$w/ibsmd.list"
	touch "$r/var/lib/ibsmd/guid2lid"
	snap "$r" "$w/s1"
	in_root "$r" dpkg -r ibsmd >"$w/dpkg-r.log" 2>&1 || { cat "$w/dpkg-r.log"; fail "dpkg -r"; }
	snap "$r" "$w/s2"
	comm -13 "$w/s1" "$w/s2" | grep . && fail "dpkg -r made the paths above"
	cat >"$w/left.want" <<EOF
/etc/ibsmd
/etc/ibsmd/ibsmd.yaml
/etc/systemd/system/multi-user.target.wants/ibsmd.service
/var/lib/ibsmd
/var/lib/ibsmd/guid2lid
/var/lib/systemd/deb-systemd-helper-enabled/ibsmd.service.dsh-also
/var/lib/systemd/deb-systemd-helper-enabled/multi-user.target.wants/ibsmd.service
EOF
	{ grep -E "$OURS" "$w/s2"; comm -12 "$w/ibsmd.list" "$w/s2" | while read -r p; do
		[ -d "$r$p" ] && grep -qx "$p" "$w/s0" || echo "$p"; done; } | sort -u >"$w/left"
	diff "$w/left.want" "$w/left" >"$w/left.diff" ||
		{ cat "$w/left.diff"; fail "dpkg -r left other files than the conffile, the state directory and the unit's enabled record"; }
	cmp -s "$r/etc/ibsmd/ibsmd.yaml" "$src/conf/ibsmd.yaml" || fail "dpkg -r changed the conffile"
	ok "dpkg -r leaves $(grep -c . "$w/left") paths: $(tr '\n' ' ' <"$w/left")"

	in_root "$r" dpkg -P ibsmd >"$w/dpkg-p.log" 2>&1 || { cat "$w/dpkg-p.log"; fail "dpkg -P"; }
	snap "$r" "$w/s3"
	comm -13 "$w/s1" "$w/s3" | grep . && fail "dpkg -P made the paths above"
	grep -E "$OURS" "$w/s3" && fail "dpkg -P left the paths above"
	# What went: ibsmd's paths, and directories left empty by them.
	comm -23 "$w/s1" "$w/s3" >"$w/gone"
	grep -vE "$OURS" "$w/gone" | grep -vxFf "$w/ibsmd.list" | while read -r p; do
		grep -qE "^$p/(.*/)?ibsm" "$w/gone" || echo "$p"
	done | grep . && fail "dpkg -P removed the paths above, which were not ibsmd's"
	[ -z "$(in_root "$r" dpkg-query -W -f='${Status}' ibsmd 2>/dev/null)" ] ||
		fail "dpkg still knows ibsmd after purge: $(in_root "$r" dpkg-query -W -f='${Status}' ibsmd)"
	ok "dpkg -P leaves nothing: the system is as before ibsmd, with its dependencies"

	# Beside OpenSM: its package enables opensm.service.
	in_root "$r" apt-get install -y -q opensm >"$w/apt-opensm.log" 2>&1 ||
		{ tail "$w/apt-opensm.log"; fail "apt-get install opensm"; }
	[ "$(in_root "$r" systemctl is-enabled opensm.service 2>&1)" = enabled ] ||
		fail "opensm.service is not enabled by its package"
	in_root "$r" dpkg -i "$deb" >"$w/dpkg-i2.log" 2>&1 || { cat "$w/dpkg-i2.log"; fail "dpkg -i beside opensm"; }
	[ "$(grep -c 'opensm.service is enabled' "$w/dpkg-i2.log")" = 1 ] ||
		{ cat "$w/dpkg-i2.log"; fail "no one-line notice beside an enabled opensm.service"; }
	grep -q "ibsmd: opensm.service is enabled, so ibsmd.service is left disabled; to switch: systemctl disable --now opensm.service [&][&] systemctl enable --now ibsmd.service (README.Debian)" "$w/dpkg-i2.log" ||
		fail "the notice does not say how to switch"
	[ "$(in_root "$r" systemctl is-enabled ibsmd.service 2>&1)" = disabled ] ||
		fail "ibsmd.service is $(in_root "$r" systemctl is-enabled ibsmd.service 2>&1) beside an enabled opensm.service"
	[ "$(in_root "$r" systemctl is-enabled opensm.service 2>&1)" = enabled ] || fail "opensm.service was disabled"
	grep -q "systemctl disable --now opensm.service" "$r/usr/share/doc/ibsmd/README.Debian" ||
		fail "README.Debian does not say how to switch"
	ok "beside an enabled opensm.service: installed, ibsmd.service left disabled, one line: $(grep 'opensm.service is enabled' "$w/dpkg-i2.log")"
}

chroot_build() {
	local r=$1 src=$2 w=$3 p
	mount_root "$r"
	mkdir -p "$r/build" && git clone -q "$src" "$r/build/ibsmd" || fail "cannot clone into the build chroot"
	git -C "$r/build/ibsmd" checkout -q "$(git -C "$src" rev-parse HEAD)" || fail "checkout"
	in_root "$r" apt-get update -q >"$w/apt-update-b.log" 2>&1 || fail "apt-get update in the build chroot"
	in_root "$r" apt-get build-dep -y -q -P nocheck /build/ibsmd >"$w/build-dep.log" 2>&1 ||
		{ tail -20 "$w/build-dep.log"; fail "apt-get build-dep -P nocheck"; }
	for p in $(sed -n 's/^ *\([a-z0-9.+-]*\) <!nocheck>,*$/\1/p' "$src/debian/control"); do
		[ "$(in_root "$r" dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] &&
			fail "$p (<!nocheck>) is installed in the -Pnocheck build chroot"
	done
	in_root "$r" env DEB_BUILD_OPTIONS=nocheck sh -c 'cd /build/ibsmd && dpkg-buildpackage -us -uc -b -Pnocheck' \
		>"$w/build-nocheck.log" 2>&1 ||
		{ tail -30 "$w/build-nocheck.log"; fail "dpkg-buildpackage -Pnocheck without the test packages"; }
	ok "dpkg-buildpackage -Pnocheck with none of the $(grep -c '<!nocheck>' "$src/debian/control") <!nocheck> packages installed"
}

case "${1:-}" in
-h | --help) usage; exit 0 ;;
in-ns-install) shift; chroot_install "$@"; exit ;;
in-ns-build) shift; chroot_build "$@"; exit ;;
"") ;;
*) usage >&2; exit 2 ;;
esac

# ---- the host's part ----
start=$(date +%s)
step() { echo "== $* ($(($(date +%s) - start)) s)"; }
[ "$(id -u)" -eq 0 ] || fail "needs root (debootstrap, chroot)"
for t in git dpkg-buildpackage dpkg-deb dh lintian debootstrap unshare chroot make autoreconf; do
	command -v "$t" >/dev/null || fail "$t not found: scripts/deps installs it"
done
mkdir -p "$CACHE/debs" "$CACHE/apt" || fail "cannot make $CACHE"
W=$(mktemp -d /var/tmp/ibsmd-pkg.XXXXXX) || fail "mktemp"
# Mounts live only in unshare's namespaces, so nothing below is mounted.
trap '[ -n "${KEEP:-}" ] && echo "kept $W" || rm -rf "$W"' EXIT
head=$(git -C "$TOP" rev-parse HEAD) || fail "$TOP is not a git work tree"
[ -z "$(git -C "$TOP" status --porcelain --untracked-files=no)" ] ||
	echo "note: uncommitted changes in $TOP are not in the package (it is built from commit ${head:0:12})"

clean_clone() {
	git clone -q --no-local "$TOP" "$1" && git -C "$1" checkout -q "$head" ||
		fail "cannot clone $TOP into $1"
}

step "1. dpkg-buildpackage -us -uc -b in a clean clone of ${head:0:12}"
SRC=$W/src/ibsmd
clean_clone "$SRC"
opts=()
[ -n "${IBSM_PKG_NOCHECK:-}" ] && { opts=(-Pnocheck); export DEB_BUILD_OPTIONS=nocheck; echo "note: IBSM_PKG_NOCHECK: no dh_auto_test"; }
# parallel: the tests' programs build on every core (the tests themselves
# run one after the other, as in make check).
(cd "$SRC" && DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:+$DEB_BUILD_OPTIONS }parallel=$(nproc)" \
	dpkg-buildpackage -us -uc -b "${opts[@]}") >"$W/build.log" 2>&1 ||
	{ tail -40 "$W/build.log"; fail "dpkg-buildpackage -us -uc -b"; }
unset DEB_BUILD_OPTIONS
V=$(cat "$SRC/VERSION")
DEB=$W/src/ibsmd_${V}_amd64.deb
[ -f "$DEB" ] || fail "no $DEB: $(ls "$W/src")"
if [ -z "${IBSM_PKG_NOCHECK:-}" ]; then
	grep -q '^   dh_auto_test' "$W/build.log" || fail "dh_auto_test did not run"
	t=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$W/build.log" | tail -1)
	[ -n "$t" ] || fail "dh_auto_test printed no summary"
	ok "built $(basename "$DEB"); dh_auto_test (make check): $t"
else
	ok "built $(basename "$DEB") without its tests"
fi

step "2. lintian"
lintian -I -E --pedantic --show-overrides --fail-on error,warning \
	"$W/src/ibsmd_${V}_amd64.changes" >"$W/lintian.out" 2>&1
lrc=$?
grep -v '^N:' "$W/lintian.out" | grep -v 'running with root privileges' | sed 's/^/    /'
count() { grep -c "^$1: " "$W/lintian.out"; }
echo "lintian: $(count E) errors, $(count W) warnings, $(count I) info, $(count P) pedantic, $(count O) overridden"
[ $lrc -eq 0 ] && [ "$(count E)" -eq 0 ] && [ "$(count W)" -eq 0 ] || fail "lintian (exit $lrc)"
ok "lintian: no error, no warning"

step "3. contents"
dpkg-deb -c "$DEB" | awk '{ print $1, $2, $6 }' | sort -k3 >"$W/contents"
sed 's/^/    /' "$W/contents"
grep -v '^drwxr-xr-x root/root ' "$W/contents" | grep '^d' && fail "directories above are not 0755 root/root"
grep -v '^d' "$W/contents" | sed 's|^\([^ ]*\) \([^ ]*\) \./|\1 \2 /|' >"$W/files"
cat >"$W/files.want" <<EOF
-rw-r--r-- root/root /etc/ibsmd/ibsmd.yaml
-rw-r--r-- root/root /lib/systemd/system/ibsmd.service
-rwxr-xr-x root/root /usr/bin/ibsmgen
-rwxr-xr-x root/root /usr/bin/ibsmpattern
-rwxr-xr-x root/root /usr/bin/ibsmroute
-rwxr-xr-x root/root /usr/sbin/ibsmctl
-rwxr-xr-x root/root /usr/sbin/ibsmd
-rw-r--r-- root/root /usr/share/doc/ibsmd/README.Debian
-rw-r--r-- root/root /usr/share/doc/ibsmd/README.md.gz
-rw-r--r-- root/root /usr/share/doc/ibsmd/changelog.gz
-rw-r--r-- root/root /usr/share/doc/ibsmd/copyright
-rw-r--r-- root/root /usr/share/lintian/overrides/ibsmd
-rw-r--r-- root/root /usr/share/man/man1/ibsmgen.1.gz
-rw-r--r-- root/root /usr/share/man/man1/ibsmpattern.1.gz
-rw-r--r-- root/root /usr/share/man/man1/ibsmroute.1.gz
-rw-r--r-- root/root /usr/share/man/man5/ibsmd.yaml.5.gz
-rw-r--r-- root/root /usr/share/man/man8/ibsmctl.8.gz
-rw-r--r-- root/root /usr/share/man/man8/ibsmd.8.gz
EOF
diff "$W/files.want" "$W/files" || fail "the package's files differ from the list above (-: missing, +: extra)"
[ "$(dpkg-deb -f "$DEB" Package Version Architecture | tr '\n' ' ')" = "Package: ibsmd Version: $V Architecture: amd64 " ] ||
	fail "control fields: $(dpkg-deb -f "$DEB" Package Version Architecture)"
[ "$(dpkg-deb --ctrl-tarfile "$DEB" | tar -xOf - ./conffiles)" = /etc/ibsmd/ibsmd.yaml ] ||
	fail "conffiles: $(dpkg-deb --ctrl-tarfile "$DEB" | tar -xOf - ./conffiles)"
dpkg-deb -x "$DEB" "$W/x" || fail "dpkg-deb -x"
cmp "$W/x/etc/ibsmd/ibsmd.yaml" "$SRC/conf/ibsmd.yaml" || fail "ibsmd.yaml is not conf/ibsmd.yaml"
cmp "$W/x/lib/systemd/system/ibsmd.service" "$SRC/systemd/ibsmd.service" || fail "the unit is not systemd/ibsmd.service"
cmp "$W/x/usr/share/doc/ibsmd/README.Debian" "$SRC/debian/README.Debian" || fail "README.Debian"
for m in "$W"/x/usr/share/man/man*/*.gz; do
	zcat "$m" | cmp -s - "$SRC/man/$(basename "$m" .gz)" || fail "$(basename "$m") is not man/$(basename "$m" .gz)"
done
ok "$(wc -l <"$W/files") files, paths, modes and owners as listed; conffile; unit, configuration, man pages as in the tree"

# make install DESTDIR, from a clone that no Debian tool has touched.
MI=$W/mi/ibsmd
clean_clone "$MI"
(cd "$MI" && autoreconf -fi && ./configure -q --prefix=/usr && make -j2 progs &&
	make install DESTDIR="$W/destdir") >"$W/make-install.log" 2>&1 ||
	{ tail -20 "$W/make-install.log"; fail "make install DESTDIR"; }
(cd "$W/destdir" && find . -type f -printf '%m /%P\n' | sort) >"$W/mi.files"
grep -v ' /usr/share/doc/\| /usr/share/lintian/' "$W/files" |
	awk '{ m = $1 ~ /^-rwx/ ? 755 : 644; sub(/\.gz$/, "", $3); print m, $3 }' | sort >"$W/deb.files"
diff "$W/deb.files" "$W/mi.files" || fail "make install DESTDIR and the package install different files"
ok "make install DESTDIR (autoreconf, configure, make): the package's $(wc -l <"$W/mi.files") files, same modes"

step "4. a minimal Debian 12: install, check, remove, purge; 5. beside OpenSM"
BASE=$CACHE/$SUITE-minbase.tar
if [ ! -s "$BASE" ]; then
	mirror=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' |
		awk -v s="$SUITE" '$2 == s { print $1; exit }')
	[ -n "$mirror" ] || fail "no $SUITE source in this host's apt configuration"
	unshare -m -- debootstrap --variant=minbase --cache-dir="$CACHE/debs" "$SUITE" \
		"$W/base" "$mirror" >"$W/debootstrap.log" 2>&1 ||
		{ tail -20 "$W/debootstrap.log"; fail "debootstrap $SUITE"; }
	tar -C "$W/base" -cf "$BASE.tmp" . && mv "$BASE.tmp" "$BASE" || fail "cannot save $BASE"
	rm -rf "$W/base"
	echo "made $BASE"
fi
fresh() { mkdir -p "$1" && tar -C "$1" -xf "$BASE" || fail "cannot unpack $BASE"; }
fresh "$W/root-i"
mkdir -p "$W/ci"
unshare -m -- bash "$SELF" in-ns-install "$W/root-i" "$DEB" "$SRC" "$W/ci" || exit 1
rm -rf "$W/root-i"

step "6. dpkg-buildpackage -Pnocheck in a minimal Debian 12 without the test packages"
fresh "$W/root-b"
mkdir -p "$W/cb"
unshare -m -- bash "$SELF" in-ns-build "$W/root-b" "$SRC" "$W/cb" || exit 1
dpkg-deb -c "$W/root-b/build/ibsmd_${V}_amd64.deb" | awk '{ print $1, $2, $6 }' | sort -k3 >"$W/contents-b"
diff "$W/contents" "$W/contents-b" || fail "the -Pnocheck package holds other files"
ok "the -Pnocheck package holds the same files"
rm -rf "$W/root-b"

step "done"
echo "PASS: the Debian package ($(($(date +%s) - start)) s)"
