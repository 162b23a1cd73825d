#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Phase "bench-build": the standalone benchmark programs of selftests/bench/,
# static arm64 binaries in $OUT/work/bench-bin (or BENCH_BIN). They use only
# the stable KVM UAPI, so one build serves the base and the patched kernel;
# it compiles against the UAPI headers of the current build (BUILD_DIR), or
# the system's when none is given (hardware).
. "$(dirname "$0")/../lib/lib.sh"
phase_start bench-build

cross=$USER_CROSS
need_tools "${cross}gcc"
out=${BENCH_BIN:-$OUT/work/bench-bin}
hdr=""
if [ -n "${BUILD_DIR:-}" ] || [ -n "${VARIANT:-}" ]; then
	b=$(build_dir)
	[ -d "$b/usr/include/linux" ] && hdr="-isystem $b/usr/include"
fi
mkdir -p "$out"
n=0
for src in "$HARNESS_ROOT"/selftests/bench/*.c; do
	name=$(basename "$src" .c)
	# shellcheck disable=SC2086
	"${cross}gcc" -O2 -Wall -Wextra -Werror -static $hdr -o "$out/$name.tmp" "$src" -lpthread \
		>"$out/$name.log" 2>&1 || { cat "$out/$name.log" >&2; die "cannot build $name" "see the compiler output above"; }
	mv "$out/$name.tmp" "$out/$name"
	rm -f "$out/$name.log"
	n=$((n + 1))
done
status "$n benchmark programs in ${out#"$OUT"/}"
