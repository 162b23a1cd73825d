#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Phase "selftests": build the in-tree KVM selftests for arm64, statically
# linked, and install them with the kernel's kselftest installer
# (run_kselftest.sh, kselftest/runner.sh, kselftest-list.txt, kvm/...).
#
# The selftests are always built with the GCC cross toolchain (Debian's cross
# libc provides the static libc), also when the kernel is built with LLVM=1.
. "$(dirname "$0")/../lib/lib.sh"
phase_start selftests

VARIANT=${VARIANT:-patched}
work=$WORK/$VARIANT
BUILD_DIR=$(build_dir)
src=$work/src
cross=$USER_CROSS
native=
[ -z "$cross" ] && native=1
need_tools "${cross}gcc" rsync make

# A prebuilt kernel under test (KERNEL_IMAGE): no kernel build installed
# the tree's UAPI headers; headers_install needs no configuration.
if [ ! -d "$BUILD_DIR/usr/include/linux" ] && [ -n "${KERNEL_IMAGE:-}" ]; then
	mkdir -p "$BUILD_DIR"
	run_logged "$BUILD_DIR/headers.log" make -C "$src" O="$BUILD_DIR" ARCH=arm64 headers_install ||
		die "headers_install failed" "see $BUILD_DIR/headers.log"
fi
[ -d "$BUILD_DIR/usr/include/linux" ] || die "no installed UAPI headers in $BUILD_DIR/usr" \
	"run scripts/phases/build-kernel.sh first (it runs headers_install)"
install=$BUILD_DIR/kselftest_install
log=$BUILD_DIR/selftests.log
info "make TARGETS=kvm install (log: $log)"
# The installer copies the programs again each time; a stamp on the build
# output keeps an unchanged rebuild cheap.
if ! with_progress "selftests build" "$log" make -C "$src/tools/testing/selftests" O="$BUILD_DIR" ARCH=arm64 \
	CROSS_COMPILE="$cross" CC="ccache ${cross}gcc" LDFLAGS=-static \
	TARGETS=kvm INSTALL_PATH="$install" -j"$JOBS" install; then
	show_build_errors "$log"
	die "KVM selftests build failed for '$VARIANT'" "see $log"
fi
[ -x "$install/run_kselftest.sh" ] && [ -s "$install/kselftest-list.txt" ] ||
	die "selftests installed nothing runnable into $install" "see $log"
n=$(grep -c '^kvm:' "$install/kselftest-list.txt")
nonstatic=$(dynamic_binaries "$install/kvm") || exit 2
[ -z "$nonstatic" ] || die "$(echo "$nonstatic" | wc -l) selftest binaries are dynamically linked ($(echo "$nonstatic" | head -n 3 | tr '\n' ' '))" \
	"the initramfs has no libc; check LDFLAGS=-static in $log"
status "$n KVM selftests installed${native:+ (native)} in $(basename "$BUILD_DIR")/kselftest_install"
