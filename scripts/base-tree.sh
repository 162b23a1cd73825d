#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Phase "base": provide a pristine, cached copy of the base kernel tree.
#
# Default: Debian's linux-source-6.12 package (/usr/src/linux-source-6.12.tar.xz),
# unpacked once into $OUT/cache/base/deb-<sha>/linux.
# KERNEL_SRC=/path: any kernel tree (plain or git checkout). It is copied into
# the cache and never modified in place.
#
# Writes $OUT/state/base.env (sourced by later phases) with BASE_DIR, BASE_ID,
# BASE_KIND, BASE_VERSION, BASE_ORIGIN, BASE_SHA256, BASE_PKG_VERSION.
. "$(dirname "$0")/lib.sh"
phase_start base

DEB_TARBALL=${DEB_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
DEB_PACKAGE=${DEB_PACKAGE:-linux-source-6.12}
mkdir -p "$OUT/cache/base" "$OUT/state"

kernel_version() {
	awk -F' *= *' '
		$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 }
		$1 == "SUBLEVEL" { s = $2 } $1 == "EXTRAVERSION" { e = $2 }
		END { if (v != "") printf "%s.%s.%s%s\n", v, p, s, e }' "$1/Makefile"
}

check_tree() {
	local t=$1
	[ -f "$t/Makefile" ] && [ -n "$(kernel_version "$t")" ] ||
		die "$t is not a Linux kernel tree (no top-level Makefile with VERSION)" \
			"point KERNEL_SRC at the top of a kernel source tree"
	[ -d "$t/arch/arm64/kvm" ] ||
		die "$t has no arch/arm64/kvm" "KERNEL_SRC must be a kernel tree with arm64 KVM"
	[ -d "$t/tools/testing/selftests/kvm" ] ||
		die "$t has no tools/testing/selftests/kvm" "use a complete kernel tree (with tools/)"
}

if [ -n "${KERNEL_SRC:-}" ]; then
	[ -e "$KERNEL_SRC" ] || die "KERNEL_SRC=$KERNEL_SRC does not exist" \
		"set KERNEL_SRC to an existing kernel tree, or unset it to use $DEB_PACKAGE"
	[ -d "$KERNEL_SRC" ] || die "KERNEL_SRC=$KERNEL_SRC is not a directory" \
		"set KERNEL_SRC to the top directory of a kernel tree"
	src=$(cd "$KERNEL_SRC" && pwd)
	check_tree "$src"
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
else
	[ -f "$DEB_TARBALL" ] || die "$DEB_TARBALL not found" \
		"install Debian's $DEB_PACKAGE (make deps, as root) or set KERNEL_SRC=/path/to/tree"
	kind=debian
	sha=$(sha256_file "$DEB_TARBALL")
	pkgver=$(dpkg-query -W -f='${Version}' "$DEB_PACKAGE" 2>/dev/null || true)
	id=deb-${sha:0:16}
	origin="$DEB_PACKAGE $pkgver"
fi

dir=$OUT/cache/base/$id
if [ -f "$dir/.complete" ]; then
	what="cached"
else
	rm -rf "$dir" "$dir.tmp"
	mkdir -p "$dir.tmp"
	if [ "$kind" = debian ]; then
		info "unpacking $DEB_TARBALL"
		tar -C "$dir.tmp" -xf "$DEB_TARBALL" ||
			die "cannot unpack $DEB_TARBALL" "reinstall $DEB_PACKAGE"
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
	touch "$dir.tmp/.complete"
	mv "$dir.tmp" "$dir"
	what="prepared"
fi

version=$(kernel_version "$dir/linux")
cat >"$OUT/state/base.env" <<EOT
BASE_DIR='$dir/linux'
BASE_ID='$id'
BASE_KIND='$kind'
BASE_VERSION='$version'
BASE_ORIGIN='$origin'
BASE_SHA256='$sha'
BASE_PKG_VERSION='$pkgver'
EOT

# The series records the base it was last checked against; another 6.12.y is
# worth a warning, not a failure.
checked=$(sed -n 's/^#[[:space:]]*checked-against:[[:space:]]*//p' "${PATCHES:-$HARNESS_ROOT/patches}/series" 2>/dev/null | head -n 1)
if [ -n "$checked" ] && [ "$checked" != "$version" ]; then
	warn "base is $version but the series was last checked against $checked"
fi
status "$what $version ($origin${sha:+, sha256 $sha})"
