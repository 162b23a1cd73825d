#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# metadata.sh <file> <run name> <reproducer command>: the one writer of a
# run's metadata.json, before the run (TuxMake's metadata.json in spirit):
# inputs, versions and hashes of the current VARIANT/FRAGMENTS build, and
# the command that reproduces the run. PLATFORM=hardware (make hw-run): the
# running kernel instead of the built image and QEMU.
. "$(dirname "$0")/../lib/lib.sh"
phase_start metadata
. "$STATE/base.env"
. "$WORK/${VARIANT:-patched}/applied.env"
# The run's initramfs (make run, make bench): the nested guest's VMM.
L2_VMM_VERSION=""
[ -n "${RUN_DIR:-}" ] && [ -f "$RUN_DIR/initramfs.env" ] && . "$RUN_DIR/initramfs.env"
BUILD_DIR=$(build_dir)
RUNLIST=${RUNLIST:-$HARNESS_ROOT/selftests/runlist-qemu.txt}
project_rev=$(git -C "$HARNESS_ROOT" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
[ -n "$(git -C "$HARNESS_ROOT" status --porcelain -- patches kernel-config selftests scripts 2>/dev/null)" ] &&
	project_rev="$project_rev+local-changes"
hw=
[ "${PLATFORM:-qemu-tcg}" = hardware ] && hw=1
sha_or_empty() { [ -f "$1" ] && sha256_file "$1"; return 0; }
qemu_version="" kernel_cc=""
# Each command on its own: inside "export X=$(...)" its failure would be lost.
if [ -z "$hw" ]; then
	qemu_version=$("${QEMU:-qemu-system-aarch64}" --version) || die "metadata: ${QEMU:-qemu-system-aarch64} --version failed" "make deps"
	kernel_cc=$(kernel_cc_version) || die "metadata: the kernel compiler's --version failed" "make deps"
fi
selftest_cc=$("${USER_CROSS}gcc" --version) || die "metadata: ${USER_CROSS}gcc --version failed" "make deps"
config_hash=$(sha_or_empty "${KERNEL_CONFIG_UNDER_TEST-$BUILD_DIR/.config}")
image_sha256=$(sha_or_empty "${KERNEL_UNDER_TEST:-$BUILD_DIR/arch/arm64/boot/Image}")
initrd_sha256=$(sha_or_empty "${INITRD:-}")
# A prebuilt kernel: its compiler from its own banner, not the harness's.
if [ -n "${KERNEL_IMAGE:-}" ] && [ -z "$hw" ]; then
	kernel_cc=$(grep -a -m1 -o 'Linux version [[:print:]]*' "$KERNEL_IMAGE" | head -c 400 || true)
	kernel_cc="prebuilt: ${kernel_cc:-no Linux version banner found}"
fi
qemu_version=${qemu_version%%$'\n'*} kernel_cc=${kernel_cc%%$'\n'*} selftest_cc=${selftest_cc%%$'\n'*}
export M_RUN=$2 M_RUN_ID=${RUN_ID:-} M_L2=${L2:-0} M_L2_IMAGES=${L2_IMAGES:-} M_BASE_NAME=$BASE \
	M_SKIPLISTS="${SKIPLISTS-<default>}" M_BOOT_TIMEOUT=${BOOT_TIMEOUT:-300} M_WATCHDOG=${WATCHDOG:-} \
	M_REPRO="$3 (project $project_rev)" M_PROJECT_REV=$project_rev \
	M_BASE_VERSION=$BASE_VERSION M_BASE_ORIGIN=$BASE_ORIGIN M_BASE_SHA256=$BASE_SHA256 \
	M_BASE_KIND=$BASE_KIND M_BASE_PKG=$BASE_PKG_VERSION M_SERIES_HASH=$APPLIED_SERIES_HASH \
	M_BASE_PINNED=${BASE_PKG_PINNED:-} M_BASE_PIN_NOTE=${BASE_PIN_NOTE:-} M_L2_VMM=$L2_VMM_VERSION \
	M_SERIES_COUNT=$APPLIED_COUNT M_CONFIG_HASH=$config_hash \
	M_FRAGMENTS=${FRAGMENTS:-} M_CC=$kernel_cc M_SELFTEST_CC=$selftest_cc \
	M_QEMU=$qemu_version M_HOST_MODE=${HOST_MODE:-} M_GIC=${GIC:-} \
	M_SMP=${SMP:-} M_MEM=${MEM:-} M_RUNLIST=${RUNLIST#"$HARNESS_ROOT"/} M_PLATFORM=${PLATFORM:-qemu-tcg} \
	M_IMAGE_SHA256=$image_sha256 M_INITRD_SHA256=$initrd_sha256 M_PREBUILT=${KERNEL_IMAGE:+${KERNEL_ORIGIN:-$KERNEL_IMAGE}} \
	M_HAS_SERIES=${KERNEL_HAS_SERIES:-0}
python3 - "$1" <<'PY'
import json, os, sys, datetime
e = os.environ
meta = {
    "run": e["M_RUN"],
    "run_id": e["M_RUN_ID"] or None,
    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "reproduce": e["M_REPRO"],
    "project_revision": e["M_PROJECT_REV"],
    "base": {"name": e["M_BASE_NAME"], "version": e["M_BASE_VERSION"], "origin": e["M_BASE_ORIGIN"], "kind": e["M_BASE_KIND"],
             "tarball_sha256": e["M_BASE_SHA256"] or None, "package_version": e["M_BASE_PKG"] or None,
             "package_pinned": e["M_BASE_PINNED"] or None, "pin_fallback": e["M_BASE_PIN_NOTE"] or None},
    "series": {"hash": e["M_SERIES_HASH"], "patches": int(e["M_SERIES_COUNT"])},
    "config": {"fragments": e["M_FRAGMENTS"].split(), "hash": e["M_CONFIG_HASH"] or None},
    "image_sha256": e["M_IMAGE_SHA256"] or None,
    # What the run booted, kept under its artefacts/ directory.
    "artefacts": {"dir": "artefacts", "image_sha256": e["M_IMAGE_SHA256"] or None,
                  "config_sha256": e["M_CONFIG_HASH"] or None, "initramfs_sha256": e["M_INITRD_SHA256"] or None},
    # A kernel the harness did not build (KERNEL_IMAGE): where it came from,
    # and whether it carries the series (the series' tests skip if not).
    "prebuilt_kernel": ({"origin": e["M_PREBUILT"], "has_series": e["M_HAS_SERIES"] == "1"}
                        if e["M_PREBUILT"] else None),
    "toolchain": {"kernel": e["M_CC"] or None, "selftests": e["M_SELFTEST_CC"]},
    "qemu": e["M_QEMU"] or None,
    "platform": e["M_PLATFORM"],
    "host_mode": e["M_HOST_MODE"] or None, "gic": int(e["M_GIC"]) if e["M_GIC"] else None,
    "smp": int(e["M_SMP"]) if e["M_SMP"] else None, "mem": e["M_MEM"] or None,
    "runlist": e["M_RUNLIST"],
    "skiplists": e["M_SKIPLISTS"],
    "l2": {"enabled": e["M_L2"] == "1", "images": e["M_L2_IMAGES"].split(), "vmm": e["M_L2_VMM"] or None},
    "boot_timeout": int(e["M_BOOT_TIMEOUT"]), "watchdog": int(e["M_WATCHDOG"]) if e["M_WATCHDOG"] else None,
}
if e["M_PLATFORM"] == "hardware":
    import platform
    meta.update({"uname_r": platform.release(), "cpus": os.cpu_count(), "boot_timeout": None})
with open(sys.argv[1], "w") as f:
    json.dump(meta, f, indent=2)
    f.write("\n")
PY
