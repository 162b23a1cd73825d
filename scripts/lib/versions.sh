# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Versions and toolchains: picking a Debian version of a pinned upstream
# series (upstream_series, newest_in_series, pick_version: base-tree.sh and
# deps.sh when the pinned base or host QEMU is gone from its suite),
# comparing versions (version_ge, clang_version: check.sh, modexport.sh,
# validate.sh's BASE_CLANG_MIN check), a kernel tree's version
# (kernel_version: base-tree.sh, check_tree), the make variables of a
# toolchain (toolchain_for: lib.sh picks this run's with it, check.sh its
# x86_64 and clang builds) and the kernel compiler's version
# (kernel_cc_version: metadata.sh, modexport.sh). The pins themselves (the
# base table, HOST_QEMU_VERSION) are globals of lib.sh.
# Part of lib.sh, which sources it: source lib.sh, not this file.

# upstream_series <debian version>: its upstream major.minor ("1:10.0.2+ds-2"
# -> 10.0, "6.12.117-1~deb12u1" -> 6.12; "7.3~rc7-1" -> 7.3~rc7, no series).
upstream_series() {
	local v=${1#*:}
	v=${v%-*}
	echo "$v" | sed -E 's/^([0-9]+\.[0-9]+)([.+].*)?$/\1/'
}
# newest_in_series <series> <version>...: the newest Debian version of that
# upstream series (dpkg's ordering); nothing if none.
newest_in_series() {
	local want=$1 v best=""
	shift
	for v in "$@"; do
		[ "$(upstream_series "$v")" = "$want" ] || continue
		if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then best=$v; fi
	done
	[ -n "$best" ] && echo "$best"
	return 0
}
# pick_version <pinned> <series> <version>...: the pinned version when it
# is among the versions, else the newest of its series (newest_in_series);
# nothing if neither.
pick_version() {
	local pin=$1 series=$2
	shift 2
	if printf '%s\n' "$@" | grep -qxF -- "$pin"; then echo "$pin"; else newest_in_series "$series" "$@"; fi
}
# version_ge <a> <b>: version a >= version b.
version_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" = "$2" ]; }
# clang_version: this machine's clang as x.y.z, empty without one.
clang_version() { clang --version 2>/dev/null | head -n 1 | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -n 1; }

# toolchain_for <karch> [<llvm>]: set KMAKE_TC to the make variables that
# build for <karch> (arm64 or x86_64), with LLVM=<llvm> when given (arm64).
# ARCH is not among them: it comes from the environment or the caller.
toolchain_for() {
	local karch=$1 llvm=${2:-} x c
	if [ "$karch" = x86_64 ]; then
		if [ "$(uname -m)" = x86_64 ]; then x=${X86_CROSS:-}; else x=${X86_CROSS:-x86_64-linux-gnu-}; fi
		KMAKE_TC=(CROSS_COMPILE="$x" CC="ccache ${x}gcc")
	elif [ -n "$llvm" ]; then
		KMAKE_TC=(LLVM="$llvm" CC="ccache clang")
	else
		c=${CROSS_COMPILE:-aarch64-linux-gnu-}
		KMAKE_TC=(CROSS_COMPILE="$c" CC="ccache ${c}gcc")
	fi
}

# kernel_cc_version: the first line of the kernel compiler's --version.
kernel_cc_version() {
	if [ -n "${LLVM:-}" ]; then clang --version | head -n 1
	else "${CROSS_COMPILE}gcc" --version | head -n 1; fi
}

kernel_version() {
	awk -F' *= *' '
		$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 }
		$1 == "SUBLEVEL" { s = $2 } $1 == "EXTRAVERSION" { e = $2 }
		END { if (v != "") printf "%s.%s.%s%s\n", v, p, s, e }' "$1/Makefile"
}
