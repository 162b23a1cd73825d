#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The main job: base tree -> series -> config -> kernel -> selftests ->
# initramfs -> QEMU -> report. Each phase is its own script; this one wires
# them and writes the run's metadata.
#
# Variables (all optional): KERNEL_SRC, PATCHES, VARIANT, FRAGMENTS, LLVM,
# HOST_MODE, GIC, SMP, MEM, APPEND, RUNLIST, SKIPLISTS, ONLY, RUN_NAME, OUT,
# BOOT_TIMEOUT, WATCHDOG, REPEAT. See Documentation/harness.rst.
. "$(dirname "$0")/lib.sh"
set -e
S=$HARNESS_ROOT/scripts
t_start=$(date +%s)

export VARIANT=${VARIANT:-patched}
export FRAGMENTS=${FRAGMENTS:-kvm-host}
export HOST_MODE=${HOST_MODE:-vhe}
export GIC=${GIC:-3}
export SMP=${SMP:-2}
export MEM=${MEM:-2G}
export RUNLIST=${RUNLIST:-$HARNESS_ROOT/selftests/runlist-qemu.txt}
frag_name=$(echo "$FRAGMENTS" | tr ' ' '+')
RUN_NAME=${RUN_NAME:-$HOST_MODE-gicv$GIC-$frag_name}
export RUN_DIR=$OUT/results/$RUN_NAME

case "$HOST_MODE" in vhe|nvhe) ;; *) PHASE=run die "HOST_MODE=$HOST_MODE: use vhe or nvhe" ;; esac
case "$GIC" in 2|3) ;; *) PHASE=run die "GIC=$GIC: use 3 (GICv3+ITS) or 2" ;; esac
case "${REPEAT:-1}" in ''|0*|*[!0-9]*) PHASE=run die "REPEAT=${REPEAT:-}: use a whole number of runs, 1 or more" ;; esac

"$S"/deps.sh
"$S"/base-tree.sh
"$S"/apply-series.sh
"$S"/config.sh
"$S"/build-kernel.sh
"$S"/build-selftests.sh
rm -rf "$RUN_DIR"
mkdir -p "$RUN_DIR"
"$S"/initramfs.sh
. "$OUT/state/base.env"
. "$OUT/work/$VARIANT/applied.env"
BUILD_DIR=$(build_dir)
. "$RUN_DIR/initramfs.env"
export TESTS_TIMEOUT

# Metadata first (TuxMake's metadata.json in spirit): inputs, versions,
# hashes and the command that reproduces this run.
repro="make run"
[ -n "${KERNEL_SRC:-}" ] && repro="$repro KERNEL_SRC=$KERNEL_SRC"
[ "${PATCHES:-$HARNESS_ROOT/patches}" != "$HARNESS_ROOT/patches" ] && repro="$repro PATCHES=$PATCHES"
[ -n "${LLVM:-}" ] && repro="$repro LLVM=$LLVM"
repro="$repro FRAGMENTS='$FRAGMENTS' HOST_MODE=$HOST_MODE GIC=$GIC SMP=$SMP MEM=$MEM"
[ "$RUNLIST" != "$HARNESS_ROOT/selftests/runlist-qemu.txt" ] && repro="$repro RUNLIST=$RUNLIST"
[ -n "${ONLY:-}" ] && repro="$repro ONLY='$ONLY'"
[ "${REPEAT:-1}" != 1 ] && repro="$repro REPEAT=$REPEAT"
[ -n "${APPEND:-}" ] && repro="$repro APPEND='$APPEND'"
"$S"/metadata.sh "$RUN_DIR/metadata.json" "$RUN_NAME" "$repro"

boot_rc=0
KERNEL=$BUILD_DIR/arch/arm64/boot/Image INITRD=$INITRD "$S"/boot-qemu.sh || boot_rc=$?
[ "$boot_rc" -eq 1 ] && exit 1
rm -f "$INITRD"

phase_start report
mkdir -p "$OUT/results"
rc=0
python3 "$S"/report.py --run-dir "$RUN_DIR" --meta "$RUN_DIR/metadata.json" \
	--splats "$HARNESS_ROOT/selftests/console-splats.txt" \
	--out-summary "$OUT/results/summary.json" || rc=$?
_phase_t0=$t_start
if [ $rc -eq 0 ] && [ $boot_rc -eq 0 ]; then
	status "PASS: results in ${RUN_DIR#"$PWD"/} (summary.json, junit.xml, tap.txt, console.log)"
else
	echo "[harness] report: FAIL: see ${RUN_DIR#"$PWD"/}/table.txt and console.log ($(elapsed)s)" >&2
	exit 1
fi
