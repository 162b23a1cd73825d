# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Building what the guests run: the O= directory of this variant and
# config (build_dir: the phases, run.sh, bench.sh), a whole kernel variant
# (build_kernel_variant: bench.sh, hw-emulated.sh), KVM selftests built
# natively on an arm64 host (prepare_native_selftests: hw-run.sh,
# hw-bench.sh), a failed build's error lines (show_build_errors: the build
# phases, check.sh, modexport.sh), the dynamically linked executables the
# guests' initramfs (no libc) could not run (dynamic_binaries:
# build-selftests.sh) and a reproducible initramfs (pack_cpio:
# initramfs.sh, hw-pv-ab.sh).
# Part of lib.sh, which sources it: source lib.sh, not this file.

# show_build_errors <log>: the error lines of a failed build, on stderr.
show_build_errors() {
	echo "---- errors from $1 ----" >&2
	grep -E 'error:|Error [0-9]+|undefined reference|undefined!' "$1" | head -n 20 >&2
	echo "----" >&2
}

# build_dir: the O= directory of the current VARIANT, FRAGMENTS and toolchain
# (BUILD_DIR in the environment wins). Derived, never stored, so that runs
# with different configs cannot pick up each other's build.
build_dir() {
	if [ -n "${BUILD_DIR:-}" ]; then
		echo "$BUILD_DIR"
		return
	fi
	local f name=""
	for f in ${FRAGMENTS:-kvm-host}; do
		f=$(basename "$f" .config)
		name=${name:+$name+}$f
	done
	[ -n "${LLVM:-}" ] && name=$name-llvm
	echo "$WORK/${VARIANT:-patched}/build-$name"
}

# build_kernel_variant <variant> <series dir>: the work tree, .config and
# kernel image of one variant (make bench's and make hw-emulated's base and
# patched kernels: the same pipeline, two work trees). Exits the caller
# with the phase's status when one fails.
build_kernel_variant() {
	VARIANT=$1 PATCHES=$2 "$HARNESS_ROOT"/scripts/phases/apply-series.sh || exit $?
	VARIANT=$1 "$HARNESS_ROOT"/scripts/phases/config.sh || exit $?
	VARIANT=$1 "$HARNESS_ROOT"/scripts/phases/build-kernel.sh || exit $?
}

# prepare_native_selftests: for make hw-run / hw-bench on an arm64 host: the
# base tree and series in work tree $VARIANT (default hw), its UAPI headers
# (no kernel build needed) and the KVM selftests built natively against them.
# Sets build to the directory that holds them.
prepare_native_selftests() {
	export VARIANT=${VARIANT:-hw}
	# The kit's packages (an arm64 host has no cross toolchain to need).
	KIT=1 "$HARNESS_ROOT"/scripts/deps.sh || exit 2
	"$HARNESS_ROOT"/scripts/phases/base-tree.sh || exit 2
	"$HARNESS_ROOT"/scripts/phases/apply-series.sh || exit 2
	build=$WORK/$VARIANT/build-hw
	mkdir -p "$build"
	make -s -C "$WORK/$VARIANT/src" O="$build" headers_install >"$build/headers.log" 2>&1 ||
		die "headers_install failed" "see $build/headers.log"
	BUILD_DIR=$build "$HARNESS_ROOT"/scripts/phases/build-selftests.sh || exit 2
}

# pack_cpio <dir> <out>: <dir> as a newc initramfs owned by root, files in
# a stable order (the same tree gives the same bytes); a harness error if
# it cannot be written (a full disk).
pack_cpio() {
	need_tools cpio
	(cd "$1" && find . | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0 >"$2") ||
		die "cannot write the initramfs $2" "check free space (df -h $(dirname "$2"))"
}

# dynamic_binaries <dir>: the executables under <dir> that need a dynamic
# loader (a PT_INTERP program header), one per line. readelf (binutils, which
# deps.sh installs) reads any ELF; a missing readelf is an error, never a pass.
dynamic_binaries() {
	local f
	need_tools readelf
	while IFS= read -r -d '' f; do
		[ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
		readelf -lW "$f" 2>/dev/null | grep -q 'Requesting program interpreter' && echo "${f#"$1"/}"
	done < <(find "$1" -type f -perm -u+x -print0)
	return 0
}
