#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make hw-run: the KVM selftests natively on an arm64 KVM host (Ampere Altra,
# Kunpeng, ...), no QEMU. The running kernel is the one under test (boot the
# patched kernel first); the selftests are built natively from the same base
# tree and series, the hardware run list is used, and the outputs are the same
# as for a QEMU run (tap.txt, console.log = the kernel log of the run,
# summary.json, junit.xml, table.txt) under $OUT/results/$RUN_NAME.
#
#   hw-run.sh [--dry-run]   --dry-run: resolve the run list and print the
#                           runner commands, run nothing (works on any host)
# Variables: RUNLIST (default selftests/runlist-hw.txt), SKIPLISTS, EXTRA_SKIPLISTS, ONLY,
# RUN_NAME (default hw-<uname -r>), KERNEL_SRC, PATCHES.
. "$(dirname "$0")/lib/lib.sh"
set -e
phase_start hw-run
lock_out
S=$HARNESS_ROOT/scripts

dry=
case "${1:-}" in
	--dry-run|-n) dry=1 ;;
	"") ;;
	*) die "unknown argument '$1'" "usage: hw-run.sh [--dry-run]" ;;
esac

# A real run checks the host before it removes anything.
[ -n "$dry" ] || require_kvm_arm64_host "run make hw-run on the arm64 machine itself; here use make run (QEMU) or hw-run.sh --dry-run"

RUNLIST=${RUNLIST:-$HARNESS_ROOT/selftests/runlist-hw.txt}
RUN_NAME=${RUN_NAME:-hw-$(uname -r)}
check_name RUN_NAME "$RUN_NAME"
RUN_DIR=$RESULTS_DIR/$RUN_NAME
[ -f "$RUNLIST" ] || die "run list $RUNLIST not found"
# A run starts from an empty results directory (no earlier run's files can
# be mistaken for this one's); a dry run leaves the results alone.
if [ -n "$dry" ]; then RUN_DIR=$STATE/hw-run-dry-run
else rm -f "$OUT/results/summary.json"; fi
rm -rf "$RUN_DIR"
[ -z "${SKIPLISTS+set}" ] && SKIPLISTS=$(default_skiplists hw)
# EXTRA_SKIPLISTS: more skip lists on top of those (SKIPLISTS replaces
# them, the base's own included): e.g. selftests/skip-hw-tcg.txt on a host
# emulated by TCG.
for s in ${EXTRA_SKIPLISTS:-}; do
	case "$s" in /*) ;; *) s=$HARNESS_ROOT/$s ;; esac
	[ -f "$s" ] || die "EXTRA_SKIPLISTS: $s not found" "name skip lists relative to the repository (selftests/...)"
	SKIPLISTS="$SKIPLISTS $s"
done
skipargs=()
for s in $SKIPLISTS; do skipargs+=(--skip "$s"); done
mkdir -p "$RUN_DIR"
# Tests that a patch of the series adds are skipped on a tree without it.
if [ -d "$WORK/${VARIANT:-hw}/src/tools" ]; then
	tree_skip_args "$WORK/${VARIANT:-hw}/src"
	skipargs+=("${TREE_SKIP_ARGS[@]}")
fi
read -r nrun nskip total < <(python3 "$S"/lib/runlist.py "$RUNLIST" "${skipargs[@]}" \
	--only "${ONLY:-}" -o "$RUN_DIR/runlist.tsv") || die "run list rejected" "fix the entry named above"
[ -n "${nrun:-}" ] || die "run list rejected" "fix the entry named above"

if [ -n "$dry" ]; then
	info "dry run: $nrun tests, $nskip skipped, timeouts sum ${total}s"
	"$S"/guest/run-tests.sh --print "$RUN_DIR/runlist.tsv"
	status "dry run done (nothing executed)"
	exit 0
fi

prepare_native_selftests
ksft=$build/kselftest_install

phase_start hw-run
info "running $nrun tests natively on $(uname -r) ($(nproc) CPUs)"
before=$(dmesg 2>/dev/null | wc -l) || before=0
"$S"/guest/run-tests.sh "$RUN_DIR/runlist.tsv" "$ksft" | tee "$RUN_DIR/tap.txt" |
	grep -E '^(not )?ok [0-9]+ ' | sed 's/^/[harness] hw-run:   /'
echo "# harness: done" >>"$RUN_DIR/tap.txt"
# The kernel log written during the run is this run's console.
kernel_log_since "$before" "$RUN_DIR/console.log"
BOOT_RESULT="done" KERNEL_CMDLINE=$(cat /proc/cmdline)
write_env "$RUN_DIR/boot.env" BOOT_RESULT KERNEL_CMDLINE
repro=$(reproducer hw-run)
PLATFORM=hardware BUILD_DIR=$build RUNLIST=$RUNLIST "$S"/phases/metadata.sh "$RUN_DIR/metadata.json" "$RUN_NAME" "$repro"
rc=0
python3 "$S"/lib/report.py --run-dir "$RUN_DIR" --meta "$RUN_DIR/metadata.json" \
	--splats "$HARNESS_ROOT/selftests/console-splats.txt" --out-summary "$OUT/results/summary.json" || rc=$?
# The same results as KCIDB v5.3 (Documentation/ci.rst).
[ "$rc" -ge 2 ] || python3 "$S"/ci/kcidb.py --run-dir "$RUN_DIR" -o "$RUN_DIR/kcidb.json" || rc=2
exit "$rc"
