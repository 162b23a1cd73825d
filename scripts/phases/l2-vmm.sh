#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Phase "l2-vmm": an unmodified VMM for the nested (L2) guest, from Debian.
#
# The L1 machine (our KVM host kernel under QEMU/TCG) runs Debian's own arm64
# qemu-system-aarch64, as users run it, with KVM acceleration: that is how a
# guest-side patch is tested for real, and it shows that an unmodified VMM
# gets the PV features (QEMU enables PV time by default on arm64 KVM).
#
# Downloads qemu-system-arm:arm64 and its arm64 dependencies (apt-get
# download; no installation), unpacks them, and stages the binary, its
# NEEDED library closure (found with readelf, so nothing is guessed) and the
# dynamic loader into $OUT/cache/l2-vmm/<version>/root, cached per package
# version. Prints the staged root's path on the last line of stdout.
. "$(dirname "$0")/../lib/lib.sh"
phase_start l2-vmm

readelf=$(command -v aarch64-linux-gnu-readelf || command -v readelf) ||
	die "no readelf" "install binutils-aarch64-linux-gnu (comes with gcc-aarch64-linux-gnu)"
# Debian 12's arm64 index through apt.sh's private arm64 apt: downloads
# only, dpkg's architectures are not changed.
private_apt_arm64
o=("${APT_OPTS[@]}")
pkg=qemu-system-arm
ver=$(apt-cache "${o[@]}" policy "$pkg" 2>/dev/null | awk '/Candidate:/ { print $2 }')
[ -n "$ver" ] && [ "$ver" != "(none)" ] ||
	die "bookworm's arm64 index has no $pkg" "see $OUT/cache/apt/update-arm64.log"
cache=$OUT/cache/l2-vmm/$(echo "$ver" | tr ':~+' '___')
root=$cache/root
if [ -f "$cache/.ok" ]; then
	status "cached Debian qemu-system-aarch64 $ver ($(du -sm "$root" | cut -f1) MB staged)"
	echo "$root"
	exit 0
fi

rm -rf "$cache"
mkdir -p "$cache/debs" "$cache/x" "$root"
# The packages of the Depends closure (arm64 is the private index's only
# architecture; arch:all ones carry no code the binary loads, and the
# readelf walk below takes only what the binary needs).
apt-cache "${o[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
	--no-replaces --no-enhances "$pkg" 2>/dev/null | grep -E '^[a-z0-9]' | sort -u >"$cache/packages.txt"
n=$(wc -l <"$cache/packages.txt")
[ "$n" -gt 0 ] || die "apt-cache depends found no arm64 packages for $pkg"
info "downloading $n arm64 packages for $pkg $ver"
(cd "$cache/debs" && xargs apt-get "${o[@]}" download <"$cache/packages.txt") >"$cache/download.log" 2>&1 || {
	# One unavailable name fails a batch: fetch the rest one by one.
	warn "batch download failed ($(grep -m1 '^E:' "$cache/download.log")); one by one"
	while read -r p; do
		(cd "$cache/debs" && apt-get "${o[@]}" download "$p") >>"$cache/download.log" 2>&1 ||
			warn "cannot download $p (the readelf check below decides if it mattered)"
	done <"$cache/packages.txt"
}
for d in "$cache"/debs/*.deb; do
	dpkg-deb -x "$d" "$cache/x" || die "cannot unpack $d"
done
bin=$cache/x/usr/bin/qemu-system-aarch64
[ -x "$bin" ] || die "no usr/bin/qemu-system-aarch64 in the unpacked packages" "see $cache/download.log"

# NEEDED closure, resolved in the unpacked tree only.
libdirs="lib/aarch64-linux-gnu usr/lib/aarch64-linux-gnu lib usr/lib"
find_lib() {
	local d
	for d in $libdirs; do
		[ -e "$cache/x/$d/$1" ] && { echo "$d/$1"; return 0; }
	done
	return 1
}
mkdir -p "$root/usr/bin" "$root/lib/aarch64-linux-gnu"
cp "$bin" "$root/usr/bin/"
todo=("usr/bin/qemu-system-aarch64")
declare -A seen=()
missing=()
while [ ${#todo[@]} -gt 0 ]; do
	f=${todo[0]}
	todo=("${todo[@]:1}")
	for lib in $("$readelf" -d "$cache/x/$f" 2>/dev/null | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
		[ -n "${seen[$lib]:-}" ] && continue
		seen[$lib]=1
		if p=$(find_lib "$lib"); then
			cp -L "$cache/x/$p" "$root/lib/aarch64-linux-gnu/$lib"
			todo+=("$p")
		else
			missing+=("$lib")
		fi
	done
done
[ ${#missing[@]} -eq 0 ] || die "libraries not found in the downloaded packages: ${missing[*]}" \
	"see $cache/packages.txt and $cache/download.log"
ld=$(find_lib ld-linux-aarch64.so.1) || die "no ld-linux-aarch64.so.1 in libc6:arm64"
cp -L "$cache/x/$ld" "$root/lib/ld-linux-aarch64.so.1"
# Debian's loader searches /lib/aarch64-linux-gnu; say so for any other.
printf '/lib/aarch64-linux-gnu\n' >"$cache/ld.so.conf"
rm -rf "$cache/x"
echo "$ver" >"$root/.qemu-version"
touch "$cache/.ok"
status "Debian qemu-system-aarch64 $ver staged: ${#seen[@]} libraries, $(du -sm "$root" | cut -f1) MB (packages: $(du -sm "$cache/debs" | cut -f1) MB)"
echo "$root"
