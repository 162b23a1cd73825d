#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# debian-kernel.sh: fetch a Debian arm64 kernel package, the distro
# builder's kernel, for a run of a kernel the harness did not build
# (make run KERNEL_IMAGE=..., make test's prebuilt run), and print the
# variables that run it:
#   KERNEL_IMAGE=<Image> KERNEL_CONFIG=<config> KERNEL_MODULES=<lib/modules/release>
#   KERNEL_ORIGIN="<package> <version> (<suite>)"
#
#   DEBIAN_KERNEL_SUITE   the suite (default bookworm-backports: its
#                         linux-image-arm64 follows Debian 13's 6.12.y)
#   DEBIAN_KERNEL_PACKAGE the package (default linux-image-arm64, the
#                         metapackage: whichever kernel it depends on today)
# No version is pinned: the suite's signed index names today's kernel
# (apt verifies it); metadata.json and kcidb.json record which one ran.
. "$(dirname "$0")/../lib/lib.sh"
phase_start prebuilt
suite=${DEBIAN_KERNEL_SUITE:-bookworm-backports}
pkg=${DEBIAN_KERNEL_PACKAGE:-linux-image-arm64}
case "$suite" in *[!a-z0-9-]*|'') die "DEBIAN_KERNEL_SUITE=$suite is not a suite name" "e.g. bookworm-backports, trixie, trixie-security" ;; esac
case "$pkg" in linux-image-*) ;; *) die "DEBIAN_KERNEL_PACKAGE=$pkg is not a linux-image-* package" ;; esac
need_tools apt-get apt-cache dpkg-deb depmod
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || die "no $keyring" "install debian-archive-keyring (make deps)"
apt=$OUT/cache/apt
mirror=http://deb.debian.org/debian
case "$suite" in *-security) mirror=http://deb.debian.org/debian-security ;; esac
private_apt kernel "deb [arch=arm64 signed-by=$keyring] $mirror $suite main"
o=("${APT_OPTS[@]}" -o "Dir::Cache=$apt" -o APT::Sandbox::User=root
	-o APT::Architecture=arm64 -o APT::Architectures::=arm64 -q)
run_logged "$apt/update-kernel.log" apt-get "${o[@]}" update >&2 ||
	die "apt-get update of $suite failed (log: $apt/update-kernel.log)" \
		"$(log_fix "$apt/update-kernel.log" "check the network, or DEBIAN_KERNEL_SUITE")"
# The metapackage's dependency names the versioned package.
real=$pkg
dep=$(apt-cache "${o[@]}" show "$pkg" 2>/dev/null | awk -F': ' '$1 == "Depends" { print $2; exit }' |
	tr ',' '\n' | sed -n 's/^ *\(linux-image-[^ ]*\).*/\1/p' | head -n 1)
[ -n "$dep" ] && real=$dep
ver=$(apt-cache "${o[@]}" show "$real" 2>/dev/null | awk -F': ' '$1 == "Version" { print $2; exit }')
[ -n "$ver" ] || die "$suite has no $real for arm64" "name another DEBIAN_KERNEL_SUITE or DEBIAN_KERNEL_PACKAGE"
dest=$OUT/cache/prebuilt/${real}_$ver
if [ ! -f "$dest/kernel.env" ]; then
	info "fetching $real $ver (arm64) from $suite" >&2
	(cd "$apt/debs" && run_logged "$apt/download-kernel.log" apt-get "${o[@]}" download "$real:arm64=$ver") >&2 ||
		die "cannot download $real=$ver (log: $apt/download-kernel.log)" "$(log_fix "$apt/download-kernel.log" "the network, or the archive changed")"
	deb=$(ls "$apt/debs/${real}_$(echo "$ver" | sed 's/:/%3a/')_arm64.deb" 2>/dev/null || true)
	[ -f "$deb" ] || die "apt-get download wrote no ${real}_${ver}_arm64.deb" "see $apt/download-kernel.log"
	rm -rf "$dest.tmp"
	mkdir -p "$dest.tmp/root"
	dpkg-deb -x "$deb" "$dest.tmp/root" || die "cannot unpack $deb" "check free space under $OUT"
	img=$(ls "$dest.tmp"/root/boot/vmlinuz-* 2>/dev/null | head -n 1)
	rel=${img##*/vmlinuz-}
	[ -f "$img" ] && [ -d "$dest.tmp/root/lib/modules/$rel" ] ||
		die "$deb has no /boot/vmlinuz-* with its /lib/modules/<release>" "is $real a kernel image package?"
	# The package's postinst runs depmod; so does this.
	depmod -b "$dest.tmp/root" "$rel" || die "depmod of $rel failed"
	mv "$img" "$dest.tmp/Image"
	mv "$dest.tmp/root/boot/config-$rel" "$dest.tmp/config"
	mv "$dest.tmp/root/lib/modules/$rel" "$dest.tmp/modules"
	rm -rf "$dest.tmp/root" "$deb"
	KERNEL_IMAGE=$dest/Image KERNEL_CONFIG=$dest/config KERNEL_MODULES=$dest/modules
	KERNEL_ORIGIN="$real $ver (Debian $suite, arm64)"
	write_env "$dest.tmp/kernel.env" KERNEL_IMAGE KERNEL_CONFIG KERNEL_MODULES KERNEL_ORIGIN
	rm -rf "$dest"
	mv "$dest.tmp" "$dest"
fi
cat "$dest/kernel.env"
status "$real $ver from $suite in ${dest#"$PWD"/}" >&2
