#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Make sure the Debian packages the harness needs are installed.
#
#   deps.sh            install what is missing (as root), or fail with the
#                      exact apt-get line to run (not root)
#   deps.sh --print    only print that apt-get line (empty if nothing missing)
#   deps.sh --kit-packages  print the hardware kit's package list (one line)
#
# With KIT=1 the packages are the hardware kit's (make hw-run, hw-bench,
# hw-pv-ab on an arm64 KVM host, which ask for them themselves): the
# selftests are built natively there, no cross toolchain, and the guests
# of hw-pv-ab run under the distribution's QEMU with KVM, so the pinned TCG
# QEMU is not needed either. make hw-emulated preinstalls the same list in
# its arm64 root file system.
# EXTRA_PACKAGES adds packages (the check/bench phases use it).
. "$(dirname "$0")/lib.sh"
phase_start deps

# package (with :arch where it is not the host's) -- the harness needs all.
PACKAGES=(
	make gcc libc6-dev bc bison flex libssl-dev libelf-dev cpio rsync xz-utils
	perl python3 quilt ccache kmod binutils debian-archive-keyring
	gcc-aarch64-linux-gnu busybox-static:arm64
)
KIT_PACKAGES=(
	make gcc libc6-dev ccache rsync xz-utils perl python3 quilt patch git kmod procps
	qemu-system-arm rt-tests busybox-static cpio
)
if [ "${1:-}" = --kit-packages ]; then
	echo "${KIT_PACKAGES[*]}"
	exit 0
fi
kit=${KIT:-}
[ -n "$kit" ] && PACKAGES=("${KIT_PACKAGES[@]}")
[ -n "${LLVM:-}" ] && PACKAGES+=(clang lld llvm)
# shellcheck disable=SC2206
PACKAGES+=(${EXTRA_PACKAGES:-})

missing=()
for p in "${PACKAGES[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)
	[ "$st" = installed ] || missing+=("$p")
done

need_arm64=
for p in "${missing[@]}"; do
	case "$p" in *:arm64) need_arm64=1 ;; esac
done

line=""
if [ ${#missing[@]} -gt 0 ]; then
	line="apt-get update && apt-get install -y ${missing[*]}"
	[ -n "$need_arm64" ] && ! dpkg --print-foreign-architectures | grep -qx arm64 &&
		line="dpkg --add-architecture arm64 && $line"
fi

# The TCG machine's QEMU, pinned: from Debian 12's backports suite through a
# private sources list and lists directory (the system's apt configuration
# is not changed; dpkg installs it like any package).
qemu_have=$(dpkg-query -W -f='${Version}' "$HOST_QEMU_PACKAGE" 2>/dev/null || true)
qemu_line=""
if [ -z "$kit" ] && [ "$qemu_have" != "$HOST_QEMU_VERSION" ]; then
	apt_dir=$OUT/cache/apt
	qo="-o Dir::Etc::SourceList=$apt_dir/sources-host.list -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=$apt_dir/lists-host"
	qemu_line="mkdir -p $apt_dir/lists-host/partial && printf '%s\n' \
'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main' \
'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm-updates main' \
'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security bookworm-security main' \
'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $HOST_QEMU_SUITE main' \
>$apt_dir/sources-host.list && apt-get $qo update && apt-get $qo -t $HOST_QEMU_SUITE install -y --no-install-recommends $HOST_QEMU_PACKAGE=$HOST_QEMU_VERSION"
	missing+=("$HOST_QEMU_PACKAGE=$HOST_QEMU_VERSION${qemu_have:+ (have $qemu_have)}")
	line="${line:+$line && }$qemu_line"
fi

if [ "${1:-}" = --print ]; then
	echo "$line"
	exit 0
fi

if [ ${#missing[@]} -eq 0 ]; then
	status "all ${#PACKAGES[@]} packages present"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	die "missing Debian packages: ${missing[*]}" "as root run: $line"
fi

info "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
log=$OUT/logs/deps.log
mkdir -p "$(dirname "$log")"
mkdir -p "$OUT/cache/apt"
run_logged "$log" sh -c "$line" ||
	die "apt-get failed (log: $log)" "check the network/apt sources, then rerun"
status "installed ${missing[*]}"
[ -n "$kit" ] || [ "$(dpkg-query -W -f='${Version}' "$HOST_QEMU_PACKAGE" 2>/dev/null)" = "$HOST_QEMU_VERSION" ] ||
	die "$HOST_QEMU_PACKAGE is not at $HOST_QEMU_VERSION after the install" "see $log"
