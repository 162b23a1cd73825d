#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Phase "initramfs": resolve the run list and pack busybox-static (arm64), the
# installed KVM selftests, the guest init and runner into a cpio initramfs.
# MODE=bench packs the benchmark programs and $RUN_DIR/benchlist.tsv instead
# of a run list (scripts/bench.sh).
#
#   RUNLIST=selftests/runlist-qemu.txt   run list
#   SKIPLISTS="..."                      skip lists (default: the selftests/skip-*.txt
#                                        that apply, see default_skiplists in runlist.sh)
#   ONLY="test1 test2"                   run only these run-list entries
#   RUN_DIR=dir                          where runlist.tsv is recorded
# Writes $RUN_DIR/initramfs.env with INITRD and TESTS_TIMEOUT (sum of timeouts).
. "$(dirname "$0")/../lib/lib.sh"
phase_start initramfs

VARIANT=${VARIANT:-patched}
BUILD_DIR=$(build_dir)
[ -n "${RUN_DIR:-}" ] || die "RUN_DIR is not set"
mkdir -p "$RUN_DIR"
need_tools cpio python3

if [ "${MODE:-tests}" = bench ]; then
	# scripts/lib/bench.py resolved the benchmark list into $RUN_DIR already.
	[ -s "$RUN_DIR/benchlist.tsv" ] || die "no $RUN_DIR/benchlist.tsv" "run scripts/bench.sh"
	[ -d "$OUT/work/bench-bin" ] || die "no benchmark programs" "run scripts/phases/build-bench.sh"
	read -r nrun total < <(awk -F'\t' '$1 == "bench" { n++; s += $3 } END { print n + 0, s + 0 }' "$RUN_DIR/benchlist.tsv")
	nskip=0
else
	RUNLIST=${RUNLIST:-$HARNESS_ROOT/selftests/runlist-qemu.txt}
	[ -f "$RUNLIST" ] || die "run list $RUNLIST not found"
	[ -z "${SKIPLISTS+set}" ] && SKIPLISTS=$(default_skiplists qemu "${HOST_MODE:-vhe}" "${GIC:-3}")
	skipargs=()
	for s in $SKIPLISTS; do skipargs+=(--skip "$s"); done
	# Tests that a patch of the series adds are skipped on a tree without it.
	tree_skip_args "$WORK/${VARIANT:-patched}/src"
	skipargs+=("${TREE_SKIP_ARGS[@]}")
	# A prebuilt kernel without the series: the tests the series (and the
	# project's patches) add are skipped, with the reason.
	if [ -n "${KERNEL_IMAGE:-}" ] && [ "${KERNEL_HAS_SERIES:-0}" != 1 ]; then
		skipargs+=(--kernel-lacks "$PATCHES")
		project=$(project_patches_dir default)
		[ -z "$project" ] || skipargs+=(--kernel-lacks "$project")
		# Tests the series changes that run on a kernel without it.
		if [ -f "$HARNESS_ROOT/selftests/any-kernel-$BASE.txt" ]; then
			skipargs+=(--any-kernel "$HARNESS_ROOT/selftests/any-kernel-$BASE.txt")
		fi
	fi
	[ "${L2:-0}" = 1 ] || skipargs+=(--no-l2 "nested tests off: L2=1 adds Debian's QEMU and an L2 guest (Documentation/nested.rst)")
	read -r nrun nskip total < <(python3 "$HARNESS_ROOT/scripts/lib/runlist.py" "$RUNLIST" \
		"${skipargs[@]}" --only "${ONLY:-}" --repeat "${REPEAT:-1}" -o "$RUN_DIR/runlist.tsv") ||
		die "run list rejected" "fix the entry named above"
	[ -n "${nrun:-}" ] || die "run list rejected" "fix the entry named above"
fi

# busybox-static for arm64 from its Debian package.
bb=$(busybox_arm64) || exit 2

ksft=$BUILD_DIR/kselftest_install
[ -x "$ksft/run_kselftest.sh" ] || die "no installed selftests in $ksft" "run scripts/phases/build-selftests.sh first"

initrd=$RUN_DIR/initramfs.cpio
stage=$RUN_DIR/initramfs.d
# Every copy into the staging directory is checked: a full disk is reported
# as one, not as a guest that cannot find its init ("kernel panic").
stage_cp() {
	cp "$@" || die "cannot copy into the initramfs ($*)" \
		"check free space under $RUN_DIR (df -h); it needs about twice the initramfs size"
}
rm -rf "$stage" "$initrd"
mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,harness,proc,sys,dev,tmp,root,etc}
stage_cp "$bb" "$stage/bin/busybox"
stage_cp "$HARNESS_ROOT/scripts/guest/init" "$stage/init"
stage_cp "$HARNESS_ROOT/scripts/guest/timeout" "$stage/usr/bin/timeout"
stage_cp "$HARNESS_ROOT/scripts/guest/run-tests.sh" "$HARNESS_ROOT/scripts/guest/lava-tests.sh" "$stage/harness/"
# A prebuilt kernel (KERNEL_IMAGE): the drivers the harness needs that it
# has as modules (KERNEL_MODULES: its lib/modules/<release> directory), with
# their dependencies from modules.dep, decompressed (busybox insmod), in
# load order for the init.
if [ -n "${KERNEL_MODULES:-}" ]; then
	mkdir -p "$stage/lib/modules"
	python3 "$HARNESS_ROOT/scripts/ci/modules.py" "$KERNEL_MODULES" ${HARNESS_MODULES:-virtio_mmio} \
		>"$RUN_DIR/modules.order" || die "cannot resolve the modules of KERNEL_MODULES=$KERNEL_MODULES" \
		"point KERNEL_MODULES at the kernel's lib/modules/<release> directory (with modules.dep)"
	while read -r m; do
		case "$m" in
		*.xz) xz -dc "$KERNEL_MODULES/$m" >"$stage/lib/modules/$(basename "${m%.xz}")" ;;
		*.zst) zstd -qdc "$KERNEL_MODULES/$m" >"$stage/lib/modules/$(basename "${m%.zst}")" ;;
		*.gz) gzip -dc "$KERNEL_MODULES/$m" >"$stage/lib/modules/$(basename "${m%.gz}")" ;;
		*) stage_cp "$KERNEL_MODULES/$m" "$stage/lib/modules/" ;;
		esac || die "cannot stage module $m"
		m=$(basename "$m"); m=${m%.xz}; m=${m%.zst}; echo "${m%.gz}"
	done <"$RUN_DIR/modules.order" >"$stage/lib/modules/harness.order"
fi
if [ "${MODE:-tests}" = bench ]; then
	stage_cp "$HARNESS_ROOT/scripts/guest/run-bench.sh" "$RUN_DIR/benchlist.tsv" "$stage/harness/"
	stage_cp -a "$OUT/work/bench-bin" "$stage/bench"
else
	stage_cp "$RUN_DIR/runlist.tsv" "$stage/harness/"
	# GUEST_FILES="file...": input files of tests, in /harness/files/ (the
	# run list's arguments name them: reg_migrate -f).
	mkdir -p "$stage/harness/files"
	for f in ${GUEST_FILES:-}; do
		[ -f "$f" ] || die "GUEST_FILES: $f does not exist"
		stage_cp "$f" "$stage/harness/files/"
	done
fi
cp -al "$ksft" "$stage/kselftest" 2>/dev/null || stage_cp -a "$ksft" "$stage/kselftest"
if [ "${L2:-0}" = 1 ]; then
	# The nested kit (Documentation/nested.rst): Debian's arm64 QEMU and
	# its libraries, the L2 kernel(s) and the L2 guest's own initramfs.
	vmm=$("$HARNESS_ROOT"/scripts/phases/l2-vmm.sh | tail -n 1) && [ -d "$vmm" ] ||
		die "cannot stage the L2 VMM" "see the l2-vmm error above"
	stage_cp -a "$vmm"/. "$stage"/
	mkdir -p "$stage/usr/share"
	stage_cp "$vmm/.qemu-version" "$stage/usr/share/l2-vmm-version"
	[ -x "$OUT/work/bench-bin/pv-guest" ] || "$HARNESS_ROOT"/scripts/phases/build-bench.sh >/dev/null ||
		die "cannot build pv-guest for the L2 guest"
	mkdir -p "$stage/l2" "$stage/harness/l2"
	stage_cp "$HARNESS_ROOT/scripts/guest/l2/run-l2.sh" "$stage/harness/l2/"
	# L2 kernels: the L1 kernel itself, plus L2_IMAGES="name=Image ..."
	# (/l2/Image-name, for run-l2.sh -image name).
	cp "$BUILD_DIR/arch/arm64/boot/Image" "$stage/l2/Image" ||
		die "no kernel Image in $BUILD_DIR for the L2 guest" "run scripts/phases/build-kernel.sh first"
	for ni in ${L2_IMAGES:-}; do
		[ -f "${ni#*=}" ] || die "L2_IMAGES: ${ni#*=} does not exist"
		stage_cp "${ni#*=}" "$stage/l2/Image-${ni%%=*}"
	done
	l2=$RUN_DIR/l2.d
	rm -rf "$l2"
	mkdir -p "$l2/bin"
	stage_cp "$bb" "$l2/bin/busybox"
	stage_cp "$HARNESS_ROOT/scripts/guest/l2/init" "$l2/init"
	stage_cp "$OUT/work/bench-bin/pv-guest" "$l2/pv-guest"
	pack_cpio "$l2" "$stage/l2/guest.cpio"
	rm -rf "$l2"
	info "nested kit: Debian QEMU $(cat "$vmm/.qemu-version"), L2 kernel(s) $(find "$stage/l2" -maxdepth 1 -name 'Image*' | wc -l), L2 initramfs $(du -k "$stage/l2/guest.cpio" | cut -f1) KB"
fi
# The kernel's runner tests for [ -x /usr/bin/timeout ]; busybox provides the rest.
pack_cpio "$stage" "$initrd"
rm -rf "$stage"
INITRD=$initrd TESTS_TIMEOUT=$total TESTS_RUN=$nrun TESTS_SKIP=$nskip
# The nested guest's VMM version goes into metadata.json (metadata.sh).
L2_VMM_VERSION=""
[ "${L2:-0}" = 1 ] && L2_VMM_VERSION="qemu-system-arm:arm64 $(cat "$vmm/.qemu-version")"
write_env "$RUN_DIR/initramfs.env" INITRD TESTS_TIMEOUT TESTS_RUN TESTS_SKIP L2_VMM_VERSION
status "$(du -m "$initrd" | cut -f1) MB initramfs, $nrun ${MODE:-tests} to run, $nskip skipped (timeouts sum ${total}s)"
