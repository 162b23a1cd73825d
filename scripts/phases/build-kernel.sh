#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Phase "build": cross-build the arm64 kernel Image (out of tree, ccache) and
# install the UAPI headers the selftests compile against.
. "$(dirname "$0")/../lib/lib.sh"
phase_start build

VARIANT=${VARIANT:-patched}
work=$WORK/$VARIANT
BUILD_DIR=$(build_dir)
[ -f "$BUILD_DIR/config.key" ] || die "no configured build in $BUILD_DIR" "run scripts/phases/config.sh first"
src=$work/src
need_tools ccache make
if [ -n "${LLVM:-}" ]; then need_tools clang ld.lld; else need_tools "${CROSS_COMPILE}gcc"; fi

log=$BUILD_DIR/build.log
before=$(stat -c %Y "$BUILD_DIR/arch/arm64/boot/Image" 2>/dev/null || echo 0)
info "make -j$JOBS Image headers_install (log: $log)"
if ! with_progress "kernel build" "$log" make -C "$src" O="$BUILD_DIR" "${KMAKE_TOOLCHAIN[@]}" -j"$JOBS" Image headers_install; then
	show_build_errors "$log"
	die "kernel build failed for '$VARIANT' ($(basename "$BUILD_DIR"))" "see $log"
fi
image=$BUILD_DIR/arch/arm64/boot/Image
after=$(stat -c %Y "$image")
size=$(du -m "$image" | cut -f1)
warnings=$(grep -c 'warning:' "$log" || true)
if [ "$before" = "$after" ]; then what="up to date"; else what="built"; fi
status "Image $what (${size} MB, $(basename "$BUILD_DIR"), $warnings compiler warnings, ccache: $(ccache -s 2>/dev/null | awk '/Hits:/ {print $2 " hits"; exit}'))"
