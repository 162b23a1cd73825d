# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Debian packages and roots, outside the system's apt and dpkg: the private
# apt sources lists under $OUT/cache/apt (private_apt_opts, private_apt:
# the one rule for every such list: the base's package in base-tree.sh and
# its headers in modexport.sh, the pinned host QEMU in deps.sh, a prebuilt
# Debian kernel in ci/debian-kernel.sh; private_apt_arm64: Debian 12's
# arm64 index for l2-vmm.sh and busybox_arm64), the guests' arm64 busybox
# (busybox_arm64: initramfs.sh, hw-pv-ab.sh) and a command run inside a
# Debian root the harness made under OUT (in_root: LAVA's dispatcher in
# ci/lava-root.sh and ci/lava-run.sh, the install test).
# Part of lib.sh, which sources it: source lib.sh, not this file.

# private_apt_opts NAME: set APT_OPTS, the options that make apt-get and
# apt-cache read only the private source list $OUT/cache/apt/sources-NAME.list
# and keep its index in lists-NAME (the system's sources and lists are never
# touched). private_apt NAME LINE...: also write that list (one LINE each)
# and the directories apt needs. The one rule for the three private lists:
# the base's package (base-tree.sh), the pinned host QEMU (deps.sh) and a
# prebuilt Debian kernel (ci/debian-kernel.sh).
private_apt_opts() {
	local apt=$OUT/cache/apt
	APT_OPTS=(-o "Dir::Etc::SourceList=$apt/sources-$1.list" -o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$apt/lists-$1")
}
private_apt() {
	local name=$1 apt=$OUT/cache/apt
	shift
	mkdir -p "$apt/lists-$name/partial" "$apt/archives/partial" "$apt/debs"
	printf '%s\n' "$@" >"$apt/sources-$name.list"
	private_apt_opts "$name"
}

# private_apt_arm64: APT_OPTS (and an updated index) for Debian 12's arm64
# packages, which the harness downloads and unpacks but never installs (the
# guest's busybox, the L2 VMM): a private sources list and lists directory,
# an empty dpkg status and arm64 as apt's only architecture, so dpkg's
# architectures and the system's apt configuration stay as they are. The
# index is refreshed once a day.
private_apt_arm64() {
	local apt=$OUT/cache/apt kr='[arch=arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]'
	need_tools apt-get apt-cache dpkg-deb
	private_apt arm64 "deb $kr http://deb.debian.org/debian bookworm main" \
		"deb $kr http://deb.debian.org/debian bookworm-updates main" \
		"deb $kr http://deb.debian.org/debian-security bookworm-security main"
	[ -f "$apt/status-arm64" ] || : >"$apt/status-arm64"
	APT_OPTS+=(-o "Dir::State::status=$apt/status-arm64" -o APT::Architecture=arm64 -o APT::Architectures::=arm64
		-o "Dir::Cache=$apt" -o APT::Sandbox::User=root -q)
	if [ -z "$(find "$apt/lists-arm64" -maxdepth 1 -name '*_Packages*' -mmin -1440 2>/dev/null | head -n 1)" ]; then
		run_logged "$apt/update-arm64.log" apt-get "${APT_OPTS[@]}" update >&2 ||
			die "apt-get update of bookworm's arm64 index failed (log: $apt/update-arm64.log)" \
				"$(log_fix "$apt/update-arm64.log" "check the network and deb.debian.org")"
	fi
}

# busybox_arm64: the path of an arm64 busybox-static binary (checked to be
# an aarch64 ELF) for the guests' initramfs, or a harness error. The
# installed busybox-static:arm64 where there is one (an arm64 host, the
# hardware kit); elsewhere Debian 12's arm64 package, downloaded and
# unpacked under $OUT/cache/busybox/<version>/ (data for the initramfs,
# not a host tool: nothing is installed).
busybox_arm64() {
	local bb ver dir
	bb=$(dpkg -L busybox-static:arm64 2>/dev/null | grep -m1 '/busybox$' || true)
	if [ -z "$bb" ] || [ ! -f "$bb" ]; then
		private_apt_arm64
		ver=$(apt-cache "${APT_OPTS[@]}" policy busybox-static 2>/dev/null | awk '/Candidate:/ { print $2 }')
		[ -n "$ver" ] && [ "$ver" != "(none)" ] ||
			die "bookworm's arm64 index has no busybox-static" "see $OUT/cache/apt/update-arm64.log"
		dir=$OUT/cache/busybox/$(echo "$ver" | tr ':~+' '___')
		bb=$dir/root/bin/busybox
		if [ ! -f "$dir/.ok" ]; then
			rm_tree "$dir"
			mkdir -p "$dir/root"
			(cd "$dir" && run_logged "$dir/download.log" apt-get "${APT_OPTS[@]}" download "busybox-static=$ver") >&2 ||
				die "cannot download busybox-static=$ver (arm64; log: $dir/download.log)" \
					"$(log_fix "$dir/download.log" "check the network and deb.debian.org")"
			dpkg-deb -x "$dir"/busybox-static_*_arm64.deb "$dir/root" ||
				die "cannot unpack $(echo "$dir"/busybox-static_*_arm64.deb)" "check free space under $dir"
			[ -f "$bb" ] || die "busybox-static $ver (arm64) has no bin/busybox" "see $dir"
			echo "$ver" >"$dir/.ok"
		fi
	fi
	[ "$(od -An -tx1 -j18 -N2 "$bb" | tr -d ' ')" = b700 ] ||
		die "$bb is not an aarch64 binary" "remove it (make clean keeps cache/: rm -r $OUT/cache/busybox) and rerun"
	echo "$bb"
}

# in_root <root> <command>...: run a command inside a Debian root file
# system the harness made under OUT (LAVA's dispatcher, the bare-system
# install test), as root. A private mount namespace holds its /proc, /sys,
# /dev, /tmp and a bind mount of OUT at the same path (so the command sees
# the harness's files where the host does): the mounts end with the
# command, whatever way it ends, and are never visible on the host (make
# clean can never walk into a bound /dev). IN_ROOT_TIMEOUT=<seconds> bounds
# it (timeout's exit 124).
in_root() {
	local root=$1 tmo=()
	shift
	[ -z "${IN_ROOT_TIMEOUT:-}" ] || tmo=(timeout "$IN_ROOT_TIMEOUT")
	[ "$(id -u)" -eq 0 ] || die "running a command in $root needs root (chroot, mounts)" "run as root"
	need_tools unshare chroot
	[ -x "$root/bin/sh" ] || die "$root is not a root file system (no bin/sh)" "remove it and rerun: it is rebuilt"
	"${tmo[@]}" unshare --mount --propagation private -- sh -ec '
		r=$1; o=$2; shift 2
		mount -t proc proc "$r/proc"
		mount -t sysfs sys "$r/sys"
		mount --rbind /dev "$r/dev"
		mount -t tmpfs tmp "$r/tmp"
		mkdir -p "$r$o"
		mount --bind "$o" "$r$o"
		[ -f /etc/resolv.conf ] && [ -f "$r/etc/resolv.conf" ] && mount --bind /etc/resolv.conf "$r/etc/resolv.conf"
		exec chroot "$r" "$@"' in_root "$root" "$OUT" "$@"
}

# sparse_for <kernel source dir>: the sparse that <dir>'s Kbuild accepts,
# printed. Kbuild runs scripts/checker-valid.sh (since 6.13: sparse must
# parse __typeof_unqual__) and, when it fails, prints a warning and builds
# with C=2 but no sparse at all. Debian 12's sparse 0.6.4 fails it on 7.3;
# then sparse is built from Debian's source package of SPARSE_VERSION (sid's,
# its files checked against the signed Sources index by apt) under
# $OUT/cache/sparse/<version>/ (`make CC=gcc sparse`, as Debian's rules pin
# gcc-16: one program, plain C, 31 s here). Nothing is installed. Exit 2
# (die) when that fails.
SPARSE_VERSION=${SPARSE_VERSION:-0.6.5~rc1-2}
sparse_valid() { # sparse_valid <sparse> <src>: 0 when <src>'s Kbuild takes it
	[ ! -f "$2/scripts/checker-valid.sh" ] ||
		[ "$(sh "$2/scripts/checker-valid.sh" "$1" --arch=arm64 -mlittle-endian -m64 2>/dev/null)" = 1 ]
}
sparse_for() {
	local src=$1 dir kr='[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]' sp
	if command -v sparse >/dev/null && sparse_valid sparse "$src"; then
		command -v sparse
		return
	fi
	dir=$OUT/cache/sparse/$(echo "$SPARSE_VERSION" | tr ':~+' '___')
	sp=$dir/build/sparse
	if [ ! -f "$dir/.ok" ]; then
		need_tools apt-get dpkg-source make gcc
		rm_tree "$dir"
		mkdir -p "$dir/src"
		private_apt sparse-src "deb-src $kr http://deb.debian.org/debian sid main"
		APT_OPTS+=(-o "Dir::Cache=$OUT/cache/apt" -o APT::Sandbox::User=root -q)
		run_logged "$dir/update.log" apt-get "${APT_OPTS[@]}" update >&2 ||
			die "apt-get update of sid's sources failed (log: $dir/update.log)" \
				"$(log_fix "$dir/update.log" "check the network and deb.debian.org")"
		(cd "$dir/src" && run_logged "$dir/source.log" apt-get "${APT_OPTS[@]}" source --download-only "sparse=$SPARSE_VERSION") >&2 ||
			die "cannot download Debian's source of sparse $SPARSE_VERSION (log: $dir/source.log)" \
				"$(log_fix "$dir/source.log" "set SPARSE_VERSION to a version sid has (apt-cache showsrc sparse), or check the network")"
		(cd "$dir/src" && run_logged "$dir/unpack.log" dpkg-source --no-check -x ./*.dsc "$dir/build") >&2 ||
			die "cannot unpack Debian's source of sparse $SPARSE_VERSION (log: $dir/unpack.log)" "see $dir/unpack.log"
		run_logged "$dir/make.log" make -C "$dir/build" -j"${JOBS:-2}" CC=gcc sparse >&2 ||
			die "building sparse $SPARSE_VERSION failed (log: $dir/make.log)" "see $dir/make.log"
		touch "$dir/.ok"
	fi
	sparse_valid "$sp" "$src" ||
		die "sparse $SPARSE_VERSION (built in $dir) fails $src/scripts/checker-valid.sh too" \
			"set SPARSE_VERSION to a newer one of sid (apt-cache showsrc sparse)"
	echo "$sp"
}
