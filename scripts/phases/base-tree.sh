#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Phase "base": provide a pristine, cached copy of the base kernel tree.
#
# Default: the Debian package of BASE (lib.sh's table: linux-source-7.3 for
# mainline, linux-source-6.12 for 6.12), fetched with a private apt sources
# list and lists directory under $OUT/cache/apt (the system's apt
# configuration is never read or changed), checked against the pinned
# sha256, and its tarball unpacked once into $OUT/cache/base/deb-<sha>/linux.
# No root needed. BASE_DEB=file: that package file instead of a download
# (same pin), for a host without network.
# KERNEL_SRC=/path: any kernel tree (plain or git checkout). It is copied into
# the cache and never modified in place.
#
# Each unpacked base gets a manifest (sha256 of every file) made at unpack
# time: scripts/phases/base-verify.sh compares the cache against it.
#
# Writes $STATE/base.env (sourced by later phases) with BASE_DIR, BASE_ID,
# BASE_KIND, BASE_VERSION, BASE_ORIGIN, BASE_SHA256, BASE_PKG_VERSION (the
# package version used), BASE_PKG_PINNED, BASE_PIN_NOTE (empty unless the
# pin was replaced: see fetch_deb) and BASE_DEB_FILE.
. "$(dirname "$0")/../lib/lib.sh"
phase_start base

mkdir -p "$OUT/cache/base" "$STATE"
# One preparation of a base at a time: make test's two lanes may both ask
# for it (scripts/test.sh, "Two lanes").
exec 7>"$OUT/cache/base/.lock-$BASE_NS"
flock 7

# fetch_deb: the package of BASE into $OUT/cache/apt/debs; prints its path.
# The pinned version when the suite has it: apt verifies the download
# against the signed index, the pin verifies that the index still serves the
# same file. When the suite has dropped it: the newest version of the same
# upstream series (BASE_SERIES) there, verified by apt's signed index alone,
# with one warning line; the choice is kept in debs/fallback-$BASE.env (so
# that later runs use the same file, offline too) and reported by
# base_pin_note. Another series is refused.
fetch_deb() {
	local apt=$OUT/cache/apt deb fb ver versions
	# BASE_DEB=file: a host without network (a lab server, make
	# hw-emulated's guest) is given the package file; the pin still holds.
	# A newer package of the same series is taken when its sha256 is given
	# too (BASE_DEB_SHA256=, as the machine that fetched it recorded it:
	# base.pin_fallback in its metadata.json, debs/fallback-<base>.env).
	if [ -n "${BASE_DEB:-}" ]; then
		[ -f "$BASE_DEB" ] || die "BASE_DEB=$BASE_DEB is not a file" \
			"copy ${BASE_PACKAGE}_${BASE_PACKAGE_VERSION}_all.deb from a machine with network (out/cache/apt/debs/ after make run) and name it"
		local have
		have=$(sha256_file "$BASE_DEB")
		if [ "$have" != "$BASE_DEB_SHA256" ]; then
			[ -n "$BASE_DEB_SHA256_GIVEN" ] && [ "$have" = "$BASE_DEB_SHA256_GIVEN" ] &&
				[ "$(dpkg-deb -f "$BASE_DEB" Package 2>/dev/null)" = "$BASE_PACKAGE" ] &&
				[ "$(upstream_series "$(dpkg-deb -f "$BASE_DEB" Version)")" = "$BASE_SERIES" ] ||
				die "BASE_DEB=$BASE_DEB has sha256 $have, the base table pins $BASE_DEB_SHA256" \
					"give ${BASE_PACKAGE}_${BASE_PACKAGE_VERSION}_all.deb (BASE=$BASE), or a newer $BASE_PACKAGE $BASE_SERIES.y with BASE_DEB_SHA256=<its sha256>"
		fi
		echo "$BASE_DEB"
		return
	fi
	deb=$apt/debs/${BASE_PACKAGE}_${BASE_PACKAGE_VERSION}_all.deb
	if [ -f "$deb" ] && [ "$(sha256_file "$deb")" = "$BASE_DEB_SHA256" ]; then
		echo "$deb"
		return
	fi
	fb=$apt/debs/fallback-$BASE.env
	if [ -f "$fb" ]; then
		local FB_VERSION="" FB_SHA256="" FB_SUITE=""
		# shellcheck disable=SC1090
		. "$fb"
		if [ "$FB_SUITE" = "$BASE_SUITE" ] && [ -f "$apt/debs/${BASE_PACKAGE}_${FB_VERSION}_all.deb" ] &&
		   [ "$(sha256_file "$apt/debs/${BASE_PACKAGE}_${FB_VERSION}_all.deb")" = "$FB_SHA256" ]; then
			echo "$apt/debs/${BASE_PACKAGE}_${FB_VERSION}_all.deb"
			return
		fi
		rm -f "$fb"
	fi
	need_tools apt-get apt-cache dpkg
	[ -f "$BASE_KEYRING" ] || die "no keyring $BASE_KEYRING to verify ${BASE_SUITE#* }'s index" \
		"install debian-archive-keyring (make deps), or name the suite's keyring in BASE_APT_KEYRING"
	private_apt "$BASE" "deb [signed-by=$BASE_KEYRING] $BASE_SUITE main"
	local o=("${APT_OPTS[@]}" -o "Dir::Cache=$apt" -o APT::Sandbox::User=root -q)
	info "fetching $BASE_PACKAGE=$BASE_PACKAGE_VERSION from ${BASE_SUITE#* } (private apt lists in $apt)" >&2
	# apt-get update fails on an index whose signature does not verify.
	run_logged "$apt/update.log" apt-get "${o[@]}" update >&2 ||
		die "apt-get update of ${BASE_SUITE#* } failed (log: $apt/update.log)" \
			"$(log_fix "$apt/update.log" "check the network and ${BASE_SUITE%% *}")"
	mapfile -t versions < <(apt-cache "${o[@]}" madison "$BASE_PACKAGE" 2>/dev/null |
		awk -F'|' '{ gsub(/ /, "", $2); if ($2 != "") print $2 }' | sort -u)
	ver=$(pick_version "$BASE_PACKAGE_VERSION" "$BASE_SERIES" "${versions[@]}")
	[ -n "$ver" ] || die "${BASE_SUITE#* } has no $BASE_PACKAGE $BASE_PACKAGE_VERSION any more, and no other $BASE_SERIES.y (it has: ${versions[*]:-nothing})" \
			"a different upstream series is a different base: port the series and update scripts/lib/lib.sh's base table"
	(cd "$apt/debs" && run_logged "$apt/download.log" apt-get "${o[@]}" download "$BASE_PACKAGE=$ver") >&2 ||
		die "cannot download $BASE_PACKAGE=$ver (log: $apt/download.log)" \
			"$(log_fix "$apt/download.log" "see the log's last lines: the network, or the archive changed between update and download")"
	deb=$apt/debs/${BASE_PACKAGE}_${ver}_all.deb
	[ -f "$deb" ] || die "apt-get download wrote no $deb" "see $apt/download.log"
	if [ "$ver" = "$BASE_PACKAGE_VERSION" ]; then
		[ "$(sha256_file "$deb")" = "$BASE_DEB_SHA256" ] ||
			die "$deb has sha256 $(sha256_file "$deb"), the base table pins $BASE_DEB_SHA256" \
				"the archive serves another file under this version: check it, then update the pin in scripts/lib/lib.sh"
	else
		FB_VERSION=$ver FB_SHA256=$(sha256_file "$deb") FB_SUITE=$BASE_SUITE
		write_env "$fb" FB_VERSION FB_SHA256 FB_SUITE
	fi
	echo "$deb"
}

# base_pin_note <deb>: empty for the pinned package; else the one line that
# says which version replaced the pin and how it was verified.
base_pin_note() {
	local v
	v=$(dpkg-deb -f "$1" Version)
	[ "$v" = "$BASE_PACKAGE_VERSION" ] && return 0
	echo "the pinned $BASE_PACKAGE $BASE_PACKAGE_VERSION is gone from ${BASE_SUITE#* }: using $v, the newest $BASE_SERIES.y there, verified by apt against the suite's signed index (not the pinned sha256)"
}

if [ -n "${KERNEL_SRC:-}" ]; then
	validate_tree_inputs
	src=$(cd "$KERNEL_SRC" && pwd)
	# Identify the tree without hashing 1.5 GB: a git checkout by its commit
	# and its local changes, a plain tree by its file list, sizes and mtimes.
	if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
	   [ "$(git -C "$src" rev-parse --show-toplevel)" = "$src" ]; then
		kind=git
		head=$(git -C "$src" rev-parse HEAD)
		dirty=$({ git -C "$src" diff HEAD; git -C "$src" status --porcelain; } | sha256sum | cut -c1-12)
		origin="git:$head"
		[ -n "$(git -C "$src" status --porcelain)" ] && origin="$origin (with local changes $dirty)"
		id=git-$(echo "$head $dirty" | sha256sum | cut -c1-16)
	else
		kind=tree
		id=tree-$(cd "$src" && find . -path ./.git -prune -o -type f -printf '%P %s %T@\n' |
			LC_ALL=C sort | sha256sum | cut -c1-16)
		origin="tree:$src"
	fi
	sha=""
	pkgver=""
	pin_note=""
else
	deb=$(fetch_deb) || exit 2
	kind=debian
	pkgver=$(dpkg-deb -f "$deb" Version) || die "$deb is not a Debian package" "remove it and rerun (it is fetched again)"
	pin_note=$(base_pin_note "$deb")
	[ -n "$pin_note" ] && warn "$pin_note"
	origin="$BASE_PACKAGE $pkgver"
	tarball=$OUT/cache/apt/$(basename "$BASE_DEB_TARBALL")
	debsha=$BASE_DEB_SHA256
	[ -n "$pin_note" ] && debsha=$(sha256_file "$deb")
	tarball_stamp=$tarball.from-$debsha
	if [ ! -f "$tarball_stamp" ]; then
		rm -f "$tarball" "$OUT/cache/apt/$(basename "$BASE_DEB_TARBALL").from-"*
		need_tools dpkg-deb
		# (BASE_DEB: nothing was downloaded, the directory may not exist)
		mkdir -p "$(dirname "$tarball")" ||
			die "cannot create $(dirname "$tarball")" "check that OUT=$OUT is writable"
		dpkg-deb --fsys-tarfile "$deb" | tar -xOf - "./$BASE_DEB_TARBALL" >"$tarball.tmp" ||
			die "cannot extract $BASE_DEB_TARBALL from $deb into $tarball.tmp" \
				"the message above says why: a full disk, or a package without it (BASE_DEB_TARBALL in scripts/lib/lib.sh's base table)"
		mv "$tarball.tmp" "$tarball"
		sha256_file "$tarball" >"$tarball_stamp"
	fi
	sha=$(cat "$tarball_stamp")
	id=deb-${sha:0:16}
fi

dir=$OUT/cache/base/$id
if [ -f "$dir/.complete" ] && [ -f "$dir/manifest.sha256" ]; then
	what="cached"
else
	rm -rf "$dir" "$dir.tmp"
	mkdir -p "$dir.tmp"
	if [ "$kind" = debian ]; then
		info "unpacking $(basename "$tarball")"
		with_progress unpacking "$dir.unpack.log" tar -C "$dir.tmp" -xvf "$tarball" ||
			die "cannot unpack $tarball (log: $dir.unpack.log)" \
				"see the log's last lines: a full disk, or a damaged tarball (remove it and rerun: it is fetched again)"
		rm -f "$dir.unpack.log"
		top=$(find "$dir.tmp" -mindepth 1 -maxdepth 1 -type d | head -n 1)
		mv "$top" "$dir.tmp/linux"
	else
		info "copying $src (read-only) into the cache"
		rsync -a --exclude=/.git "$src/" "$dir.tmp/linux/" ||
			die "cannot copy $src" "check permissions and free space in $OUT"
		# A tree that was built in place would break our O= builds: clean
		# the copy, never the original.
		if [ -f "$dir.tmp/linux/.config" ] || [ -d "$dir.tmp/linux/include/config" ]; then
			warn "$src was built in-tree; cleaning the cached copy with 'make mrproper'"
			make -s -C "$dir.tmp/linux" mrproper >/dev/null 2>&1 ||
				die "make mrproper failed on the copy of $src"
		fi
	fi
	check_tree "$dir.tmp/linux"
	# The manifest the cache is checked against (base-verify.sh).
	"$HARNESS_ROOT"/scripts/phases/base-verify.sh --make "$dir.tmp" || exit 2
	touch "$dir.tmp/.complete"
	mv "$dir.tmp" "$dir"
	what="prepared"
fi

version=$(kernel_version "$dir/linux")
BASE_DIR=$dir/linux BASE_ID=$id BASE_KIND=$kind BASE_VERSION=$version BASE_ORIGIN=$origin \
	BASE_SHA256=$sha BASE_PKG_VERSION=$pkgver BASE_PIN_NOTE=$pin_note BASE_DEB_FILE=${deb:-}
BASE_PKG_PINNED=""
[ "$kind" = debian ] && BASE_PKG_PINNED=$BASE_PACKAGE_VERSION
write_env "$STATE/base.env" BASE_DIR BASE_ID BASE_KIND BASE_VERSION BASE_ORIGIN BASE_SHA256 BASE_PKG_VERSION \
	BASE_PKG_PINNED BASE_PIN_NOTE BASE_DEB_FILE

# The series records the base it was last checked against; another stable
# release of it is worth a warning, not a failure.
checked=$(series_checked_against "$PATCHES")
if [ -n "$checked" ] && [ "$checked" != "$version" ]; then
	warn "base is $version but the series was last checked against $checked"
fi
status "$what $version ($origin${sha:+, sha256 $sha})"
