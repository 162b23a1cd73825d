#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make hw-emulated: the hardware kit (make hw-run, make hw-bench) run for
# real, on an arm64 Debian 12 system booted under QEMU TCG as a stand-in
# for an arm64 KVM server. Nothing in the kit is special-cased for it.
#
#  1. two kernels, the patched and the base one, built by the harness's own
#     phases with FRAGMENTS="kvm-host disk-root" (a root file system on a
#     virtio disk);
#  2. an arm64 Debian 12 root file system made with Debian's mmdebstrap
#     (foreign architecture through qemu-user-static and binfmt_misc), with
#     the kit's packages preinstalled (scripts/deps.sh --kit-packages; the
#     guest has no network); cached by its inputs under $OUT/cache;
#  3. a disk image of it with a clone of this repository (HEAD) in
#     /root/irq-scaling and the pinned base package in /root/debs (what a
#     hardware user without network copies over: BASE_DEB=);
#  4. boots of that disk, patched kernel first, then the base kernel, each
#     running the README's hardware commands from the clone
#     (scripts/guest/hw-emulated-init plays the operator):
#       make hw-run   RUN_NAME=hw-<kernel> BASE_DEB=... [ONLY=$HW_RUN_ONLY]
#       make hw-bench RUN_NAME=hw-bench-<kernel> REPS=$HW_REPS BASE_DEB=... [ONLY=$HW_BENCH_ONLY]
#     The disk persists between the boots, as a server's would: the second
#     boot reuses the base tree and the selftests the first one built;
#  5. the results copied off the disk (debugfs, no mount) into
#     $RESULTS_DIR/hw-emulated/guest/, and the compare table made from the
#     two hw-bench files with scripts/bench.py compare, as a hardware user
#     would.
#
# Variables: HW_RUN_ONLY (default: the whole hardware run list),
# HW_BENCH_ONLY (default: exit-loop-gic exit-loop-userirq irqfd-idle
# lpi-1x1x1), HW_REPS (1), HW_STEPS ("patched base"), SMP (2), MEM (4G),
# HW_WATCHDOG (seconds per boot, 14400), HW_DISK_SIZE (16G), OUT, JOBS.
# Needs root (mmdebstrap's root mode, the image's file owners, binfmt_misc).
# Exit status: 0 every command passed on the patched kernel and the base
# kernel's runs completed (its hw-run may fail the series' tests: that is
# the base), the compare table exists; 1 a command failed; 2 harness error.
. "$(dirname "$0")/lib.sh"
set -e
phase_start hw-emulated
S=$HARNESS_ROOT/scripts

HW_RUN_ONLY=${HW_RUN_ONLY:-}
HW_BENCH_ONLY=${HW_BENCH_ONLY-exit-loop-gic exit-loop-userirq irqfd-idle lpi-1x1x1}
HW_REPS=${HW_REPS:-1}
HW_STEPS=${HW_STEPS:-patched base}
HW_WATCHDOG=${HW_WATCHDOG:-14400}
HW_DISK_SIZE=${HW_DISK_SIZE:-16G}
SMP=${SMP:-2}
MEM=${MEM:-4G}
check_uint HW_REPS "$HW_REPS" 1
check_uint HW_WATCHDOG "$HW_WATCHDOG" 60
validate_machine_inputs
case "$HW_DISK_SIZE" in [1-9]*[0-9]G|[1-9]G) ;; *) die "HW_DISK_SIZE=$HW_DISK_SIZE: use a size in G, e.g. 16G" ;; esac
for s in $HW_STEPS; do
	case "$s" in patched|base) ;; *) die "HW_STEPS: '$s' is not patched or base" "use HW_STEPS='patched base' or a part of it" ;; esac
done
[ -n "$HW_STEPS" ] || die "HW_STEPS is empty" "use HW_STEPS='patched base' or a part of it"
# The lists' names are checked here, in seconds, not after two kernel builds.
python3 "$S"/runlist.py "$HARNESS_ROOT/selftests/runlist-hw.txt" --only "$HW_RUN_ONLY" -o /dev/null >/dev/null ||
	die "HW_RUN_ONLY='$HW_RUN_ONLY' rejected" "name tests of selftests/runlist-hw.txt"
python3 "$S"/bench.py resolve "$HARNESS_ROOT/selftests/benchlist-hw.txt" --only "$HW_BENCH_ONLY" -o /dev/null >/dev/null ||
	die "HW_BENCH_ONLY='$HW_BENCH_ONLY' rejected" "name benchmarks of selftests/benchlist-hw.txt"
[ "$(id -u)" -eq 0 ] || die "make hw-emulated needs root" \
	"run it as root (mmdebstrap's root mode, the disk image's file owners, binfmt_misc)"
[ -n "$(git -C "$HARNESS_ROOT" status --porcelain 2>/dev/null)" ] &&
	warn "the guest gets a clone of HEAD; uncommitted changes are not in it"
lock_out

dir=$RESULTS_DIR/hw-emulated
rm -rf "$dir"
mkdir -p "$dir"
RESULTS_TSV=$dir/results.tsv
: >"$RESULTS_TSV"
RESULTS_PASSED=0 RESULTS_FAILED=0
start_all=$(date +%s)

# 1. The host's tools (Debian packages only) and the kernels.
EXTRA_PACKAGES="mmdebstrap qemu-user-static binfmt-support arch-test e2fsprogs" "$S"/deps.sh
export FRAGMENTS="kvm-host disk-root"
"$S"/base-tree.sh
empty=$STATE/empty-series
mkdir -p "$empty"
echo "# the base kernel: no patches" >"$empty/series"
declare -A image
for v in $HW_STEPS; do
	if [ "$v" = base ]; then p=$empty; else p=$PATCHES; fi
	VARIANT=$v PATCHES=$p "$S"/apply-series.sh
	VARIANT=$v "$S"/config.sh
	VARIANT=$v "$S"/build-kernel.sh
	image[$v]=$(VARIANT=$v build_dir)/arch/arm64/boot/Image
done
. "$STATE/base.env"
deb=$OUT/cache/apt/debs/${BASE_PACKAGE}_${BASE_PACKAGE_VERSION}_all.deb
[ -f "$deb" ] || die "the base package $deb is not in the cache" "make hw-emulated takes the base from the package; unset KERNEL_SRC"

# 2. The arm64 root file system, cached by its inputs.
phase_start rootfs
suite=bookworm
mirror=http://deb.debian.org/debian
# The kit's packages, and what any installed server has that the apt
# variant (Essential packages only) leaves out: mount.
kit="$("$S"/deps.sh --kit-packages) mount"
mmv=$(dpkg-query -W -f='${Version}' mmdebstrap)
key=$(printf '%s\n' "$suite" "$mirror" "$kit" "$mmv" | sha256sum | cut -c1-12)
rootfs=$OUT/cache/hw-emulated/rootfs-$key.tar
if [ ! -s "$rootfs" ]; then
	if [ "$(uname -m)" != aarch64 ]; then
		# A foreign architecture: its programs run under qemu-user through
		# binfmt_misc (kernel interface; qemu-user-static ships the entry).
		[ -e /proc/sys/fs/binfmt_misc/register ] ||
			mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc ||
			die "cannot mount binfmt_misc" "load the binfmt_misc module (modprobe binfmt_misc) or run on a host that has it"
		[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || update-binfmts --enable qemu-aarch64 ||
			die "cannot register qemu-aarch64 with binfmt_misc" "check update-binfmts --display qemu-aarch64"
		arch-test arm64 >/dev/null || die "arm64 programs do not run on this host" "check update-binfmts --display qemu-aarch64"
	fi
	mkdir -p "$(dirname "$rootfs")"
	info "mmdebstrap arm64 $suite with the kit's packages: $kit (log: $dir/mmdebstrap.log)"
	rm -f "$rootfs.tmp"
	run_logged "$dir/mmdebstrap.log" mmdebstrap --mode=root --architectures=arm64 --variant=apt \
		--include="$(echo "$kit" | tr ' ' ,)" --format=tar \
		--customize-hook='chroot "$1" dpkg-query -W -f "\${Package} \${Version}\n" >"$1/root/packages.txt"' \
		"$suite" "$rootfs.tmp" \
		"deb $mirror $suite main" "deb $mirror $suite-updates main" \
		"deb http://deb.debian.org/debian-security $suite-security main" ||
		die "mmdebstrap failed (log: $dir/mmdebstrap.log)" "check the network and the log's last lines"
	mv "$rootfs.tmp" "$rootfs"
fi
status "arm64 Debian $suite root file system $(basename "$rootfs") ($(du -m "$rootfs" | cut -f1) MB)"

# 3. The disk: the root file system, a clone of HEAD, the base package, the
# commands of the README's hardware procedure.
phase_start disk
stage=$WORK/hw-emulated/stage
img=$WORK/hw-emulated/disk.img
rm -rf "$stage" "$img"
mkdir -p "$stage"
tar -xf "$rootfs" -C "$stage"
git clone -q --no-hardlinks "$HARNESS_ROOT" "$stage/root/irq-scaling"
mkdir -p "$stage/root/debs" "$stage/root/hw-emulated"
cp "$deb" "$stage/root/debs/"
gdeb=/root/debs/$(basename "$deb")
for v in $HW_STEPS; do
	{
		echo "# make hw-emulated, the $v kernel: the README's hardware commands"
		echo "make hw-run BASE=$BASE RUN_NAME=hw-$v BASE_DEB=$gdeb${HW_RUN_ONLY:+ ONLY='$HW_RUN_ONLY'}"
		echo "make hw-bench BASE=$BASE RUN_NAME=hw-bench-$v REPS=$HW_REPS BASE_DEB=$gdeb${HW_BENCH_ONLY:+ ONLY='$HW_BENCH_ONLY'}"
	} >"$stage/root/hw-emulated/commands-$v"
done
run_logged "$dir/mkfs.log" mkfs.ext4 -q -F -L hw-emulated -d "$stage" "$img" "$HW_DISK_SIZE" ||
	die "mkfs.ext4 failed (log: $dir/mkfs.log)" "check free space (df -h $(dirname "$img"))"
rm -rf "$stage"
status "disk image $(basename "$img") ($HW_DISK_SIZE sparse, $(du -m "$img" | cut -f1) MB used), repository at $(git -C "$HARNESS_ROOT" rev-parse --short=12 HEAD)"

# 4. The boots.
guest=$dir/guest
mkdir -p "$guest"
for v in $HW_STEPS; do
	phase_start hw-emulated
	info "booting the $v kernel on the Debian disk ($SMP CPUs, $MEM)"
	rc=0
	KERNEL=${image[$v]} DISK=$img SMP=$SMP MEM=$MEM BOOT_TIMEOUT=600 WATCHDOG=$HW_WATCHDOG \
		RUN_DIR=$dir/boot-$v \
		APPEND="init=/root/irq-scaling/scripts/guest/hw-emulated-init hw_emulated.step=$v" \
		"$S"/boot-qemu.sh || rc=$?
	[ "$rc" -eq 2 ] && die "QEMU could not boot the $v kernel" "see $dir/boot-$v/qemu.stderr"
	tr -d '\r' <"$dir/boot-$v/tap.txt" | grep -E '^(not )?ok [0-9]+ ' >"$dir/boot-$v/steps.txt" || true
	while IFS= read -r line; do
		cmd=${line#* - $v: }
		cmd=${cmd% \#*}
		what=$(echo "$cmd" | awk '{print $2}')
		[ "$cmd" != "$line" ] || what=init
		note=${line##*\# }
		[ "$note" != "$line" ] || note=${line#* - }
		case "$line" in
			ok*) result "$v/$what" pass "$note" ;;
			*)
				# The base kernel lacks the series: its hw-run fails the
				# series' tests, which is the base's picture, not an error.
				if [ "$v" = base ] && [ "$what" = hw-run ] && [ "${note#exit 1,}" != "$note" ]; then
					result "$v/$what" pass "ran; tests failed on the base kernel ($note)"
				else
					result "$v/$what" fail "$note (log: guest/logs)"
				fi ;;
		esac
	done <"$dir/boot-$v/steps.txt"
	[ "$rc" -eq 0 ] || result "$v/boot" error "the guest did not finish ($(. "$dir/boot-$v/boot.env" && echo "$BOOT_RESULT")): see boot-$v/console.log"
done

# 5. The results, as the guest wrote them, and the compare table.
phase_start hw-emulated
debugfs -R "rdump /root/irq-scaling/out/results /root/hw-emulated/logs $guest" "$img" >"$dir/debugfs.log" 2>&1 ||
	die "cannot copy the results off $img (log: $dir/debugfs.log)"
gres=$guest/results/$BASE_NS
for v in $HW_STEPS; do
	s=$gres/hw-$v/summary.json
	if [ -f "$s" ]; then
		info "hw-run on the $v kernel: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d.get("counts",d); print(", ".join(f"{c[k]} {k}" for k in ("passed","failed","skipped") if k in c))' "$s")"
	fi
done
if [ -f "$gres/hw-bench-base.json" ] && [ -f "$gres/hw-bench-patched.json" ]; then
	if python3 "$S"/bench.py compare "$gres/hw-bench-base.json" "$gres/hw-bench-patched.json" \
		--out "$dir/compare" >"$dir/compare.log" 2>&1; then
		result compare pass "$dir/compare"
	else
		result compare fail "bench.py compare failed (log: $dir/compare.log)"
	fi
else
	result compare skip "needs hw-bench on both kernels (HW_STEPS='patched base')"
fi
info "took $(( $(date +%s) - start_all ))s; results in ${dir#"$PWD"/}"
results_end
