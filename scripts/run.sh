#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The main job: base tree -> series -> config -> kernel -> selftests ->
# initramfs -> QEMU -> report. Each phase is its own script; this one wires
# them and writes the run's metadata.
#
# Variables (all optional): KERNEL_SRC, PATCHES, VARIANT, FRAGMENTS, LLVM,
# KERNEL_IMAGE (a prebuilt kernel, or "debian"), KERNEL_CONFIG, KERNEL_MODULES,
# HARNESS_MODULES, KERNEL_HAS_SERIES,
# HOST_MODE, GIC, SMP, MEM, APPEND, RUNLIST, SKIPLISTS, ONLY, RUN_NAME, OUT,
# BOOT_TIMEOUT, WATCHDOG, REPEAT, L2, L2_IMAGES, BASE. See
# Documentation/harness.rst. run.sh --dry-run checks the inputs and prints the
# reproducer without doing anything.
# Exit status: 0 every test passed, 1 a test failed (or the guest hung,
# panicked, stopped, or the console has a splat), 2 harness error.
. "$(dirname "$0")/lib/lib.sh"
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
frag_name=$(echo "$FRAGMENTS" | tr ' ' '+' | sed 's|[^A-Za-z0-9._+-]|_|g')
RUN_NAME=${RUN_NAME:-$HOST_MODE-gicv$GIC-$frag_name}

# Every input is checked here, in seconds, before any download or build.
PHASE=run
validate_run_inputs
RUNLIST=$(abspath "$RUNLIST")
export RUN_DIR=$RESULTS_DIR/$RUN_NAME
# (before KERNEL_IMAGE=debian becomes the cache's paths: the reproducer
# says "debian")
repro=$(run_reproducer)
# The dry run: what the run would fetch, build and boot, and the command
# that reproduces it; nothing is written.
if [ "${1:-}" = --dry-run ]; then
	if [ -n "${KERNEL_SRC:-}" ]; then
		echo "[harness] run: dry run: base: your tree $KERNEL_SRC (read only)"
	elif [ -f "$OUT/state/$BASE/base.env" ]; then
		echo "[harness] run: dry run: base: $BASE_PACKAGE $BASE_PACKAGE_VERSION, cached under ${OUT#"$PWD"/}/cache"
	else
		echo "[harness] run: dry run: base: $BASE_PACKAGE $BASE_PACKAGE_VERSION from ${BASE_SUITE#* } (about 170 MB to download, 1.5 GB unpacked)"
	fi
	series="none (the base alone)"
	[ -z "$PATCHES" ] || series="${PATCHES#"$HARNESS_ROOT"/} ($(series_list "$PATCHES" | wc -l) patches)"
	pp=$(project_patches_dir)
	[ -z "$pp" ] || series="$series, then the project's own ${pp#"$HARNESS_ROOT"/} ($(series_list "$pp" | wc -l))"
	echo "[harness] run: dry run: series: $series"
	if [ -n "${KERNEL_IMAGE:-}" ]; then
		kdesc=$KERNEL_IMAGE
		[ "$KERNEL_IMAGE" != debian ] || kdesc="Debian's arm64 kernel package (${DEBIAN_KERNEL_PACKAGE:-linux-image-arm64} from ${DEBIAN_KERNEL_SUITE:-bookworm-backports}, fetched)"
		echo "[harness] run: dry run: kernel: $kdesc; no kernel build (the selftests still build from the tree)"
	else
		echo "[harness] run: dry run: kernel: build with fragments '$FRAGMENTS' (2 cores: 8-11 min with an empty ccache, about a minute when nothing changed)"
	fi
	rl=${RUNLIST#"$HARNESS_ROOT"/}
	tests="all $(grep -cvE '^[[:space:]]*(#|$)' "$RUNLIST" || true) entries of $rl"
	[ -z "${ONLY:-}" ] || tests="ONLY=$ONLY of $rl"
	echo "[harness] run: dry run: tests: $tests, minus the skip lists (timeouts of the whole list: $(awk '!/^[[:space:]]*(#|$)/ { s += $2 } END { print s + 0 }' "$RUNLIST")s)"
	echo "[harness] run: dry run: boot: QEMU TCG, $HOST_MODE host, GICv$GIC, $SMP CPUs, $MEM${L2:+, L2=$L2}; results in ${RUN_DIR#"$PWD"/}"
	echo "$repro"
	exit 0
fi
lock_out

# Nothing of an earlier run under this name survives into this one: a run
# that fails before the guest reports leaves no summary to be mistaken for
# its own. RUN_ID tags this run's files (metadata.json, summary.json).
rm -rf "$RUN_DIR" "$OUT/results/summary.json"
mkdir -p "$RUN_DIR"
export RUN_ID=${RUN_ID:-$(date +%s)-$$}
echo "$RUN_ID" >"$RUN_DIR/run-id"

"$S"/deps.sh
# KERNEL_IMAGE=debian: Debian's arm64 kernel package, fetched now.
if [ "${KERNEL_IMAGE:-}" = debian ]; then
	kenv=$("$S"/ci/debian-kernel.sh) || exit 2
	eval "$kenv"
	export KERNEL_IMAGE KERNEL_CONFIG KERNEL_MODULES KERNEL_ORIGIN
fi
"$S"/phases/base-tree.sh
"$S"/phases/apply-series.sh
# A prebuilt kernel (KERNEL_IMAGE) is booted as it is: no config, no
# kernel build; the selftests still come from the (patched) tree.
if [ -z "${KERNEL_IMAGE:-}" ]; then
	"$S"/phases/config.sh
	"$S"/phases/build-kernel.sh
fi
"$S"/phases/build-selftests.sh
"$S"/phases/initramfs.sh
. "$STATE/base.env"
. "$WORK/$VARIANT/applied.env"
BUILD_DIR=$(build_dir)
. "$RUN_DIR/initramfs.env"
export TESTS_TIMEOUT
kernel=${KERNEL_IMAGE:-$BUILD_DIR/arch/arm64/boot/Image}
kconfig=${KERNEL_IMAGE:+${KERNEL_CONFIG:-}}
[ -n "${KERNEL_IMAGE:-}" ] || kconfig=$BUILD_DIR/.config
export KERNEL_UNDER_TEST=$kernel KERNEL_CONFIG_UNDER_TEST=$kconfig

# Metadata first (TuxMake's metadata.json in spirit): inputs, versions,
# hashes and the command that reproduces this run.
INITRD=$INITRD "$S"/phases/metadata.sh "$RUN_DIR/metadata.json" "$RUN_NAME" "$repro"

# boot-qemu.sh: 0 the guest finished; 2 bad input or QEMU did not start
# (no guest, nothing to report); 3 the guest hung, panicked or stopped: the
# report below says which, from boot.env, and the run fails (exit 1).
boot_rc=0
KERNEL=$kernel INITRD=$INITRD "$S"/phases/boot-qemu.sh || boot_rc=$?
[ "$boot_rc" -eq 0 ] || [ "$boot_rc" -eq 3 ] || exit 2
# The run keeps what it booted (metadata.json has their sha256): the
# Image and .config (hard links where they can be) and the initramfs,
# under artefacts/; make lava boots the same files under LAVA.
art=$RUN_DIR/artefacts
mkdir -p "$art"
ln -f "$kernel" "$art/Image" 2>/dev/null || cp "$kernel" "$art/Image"
[ -z "$kconfig" ] || cp "$kconfig" "$art/config"
mv "$INITRD" "$art/initramfs.cpio"

phase_start report
mkdir -p "$RESULTS_DIR"
rc=0
python3 "$S"/lib/report.py --run-dir "$RUN_DIR" --meta "$RUN_DIR/metadata.json" \
	--splats "$HARNESS_ROOT/selftests/console-splats.txt" \
	--out-summary "$OUT/results/summary.json" || rc=$?
# The same results as KCIDB v5.3 (Documentation/ci.rst), for a CI to submit.
if [ $rc -lt 2 ]; then
	python3 "$S"/ci/kcidb.py --run-dir "$RUN_DIR" --patches "$WORK/$VARIANT/applied-series" -o "$RUN_DIR/kcidb.json" ||
		{ echo "[harness] report: ERROR: kcidb.json could not be written" >&2; exit 2; }
fi
_phase_t0=$t_start
if [ $rc -eq 0 ] && [ $boot_rc -eq 0 ]; then
	status "PASS: results in ${RUN_DIR#"$PWD"/} (summary.json, junit.xml, tap.txt, console.log)"
elif [ $rc -ge 2 ]; then
	echo "[harness] report: ERROR: the report could not be made; see above ($(elapsed)s)" >&2
	exit 2
else
	echo "[harness] report: FAIL: see ${RUN_DIR#"$PWD"/}/table.txt and console.log ($(elapsed)s)" >&2
	exit 1
fi
