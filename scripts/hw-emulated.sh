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
#     two hw-bench files with scripts/lib/bench.py compare, as a hardware user
#     would.
#
# Variables: HW_RUN_ONLY (default: the whole hardware run list),
# HW_SKIPLISTS (default selftests/skip-hw-tcg.txt: what the hardware run
# list asks that a TCG-emulated host cannot give), HW_BENCH_ONLY (default:
# exit-loop-gic exit-loop-userirq irqfd-idle lpi-1x1x1), HW_REPS (1),
# HW_STEPS ("patched base"), SMP (2), MEM (4G), HW_WATCHDOG (seconds per
# boot, 14400), HW_DISK_SIZE (16G), OUT, JOBS. Needs root (mmdebstrap's
# root mode, the image's file owners, binfmt_misc), like make run; the
# results are judged from the files the guest wrote, not from make's exit
# status (make reports 2 for any failed recipe):
#   patched hw-run  summary.json with no failed test and no splat
#   base hw-run     summary.json whose failed tests are all tests a patch
#                   of the series adds or changes (what the base lacks)
#   hw-bench        its result file, with no benchmark errors
#   compare         bench.py compare of the two hw-bench files
# Exit status: 0 all of these passed, 1 one failed, 2 harness error.
. "$(dirname "$0")/lib/lib.sh"
set -e
phase_start hw-emulated
S=$HARNESS_ROOT/scripts

HW_RUN_ONLY=${HW_RUN_ONLY:-}
HW_SKIPLISTS=${HW_SKIPLISTS-selftests/skip-hw-tcg.txt}
HW_BENCH_ONLY=${HW_BENCH_ONLY-exit-loop-gic exit-loop-userirq irqfd-idle lpi-1x1x1}
HW_REPS=${HW_REPS:-1}
HW_STEPS=${HW_STEPS:-patched base}
HW_WATCHDOG=${HW_WATCHDOG:-14400}
HW_DISK_SIZE=${HW_DISK_SIZE:-16G}
SMP=${SMP:-2}
MEM=${MEM:-4G}
check_uint HW_REPS "$HW_REPS" 1
check_uint HW_WATCHDOG "$HW_WATCHDOG" 60
[ -z "${KERNEL_SRC:-}" ] || die "make hw-emulated takes its base from the package (the guest gets the .deb)" "unset KERNEL_SRC"
validate_machine_inputs
case "$HW_DISK_SIZE" in [1-9]*[0-9]G|[1-9]G) ;; *) die "HW_DISK_SIZE=$HW_DISK_SIZE: use a size in G, e.g. 16G" ;; esac
for s in $HW_STEPS; do
	case "$s" in patched|base) ;; *) die "HW_STEPS: '$s' is not patched or base" "use HW_STEPS='patched base' or a part of it" ;; esac
done
[ -n "$HW_STEPS" ] || die "HW_STEPS is empty" "use HW_STEPS='patched base' or a part of it"
# The lists' names are checked here, in seconds, not after two kernel builds.
python3 "$S"/lib/runlist.py "$HARNESS_ROOT/selftests/runlist-hw.txt" --only "$HW_RUN_ONLY" -o /dev/null >/dev/null ||
	die "HW_RUN_ONLY='$HW_RUN_ONLY' rejected" "name tests of selftests/runlist-hw.txt"
python3 "$S"/lib/bench.py resolve "$HARNESS_ROOT/selftests/benchlist-hw.txt" --only "$HW_BENCH_ONLY" -o /dev/null >/dev/null ||
	die "HW_BENCH_ONLY='$HW_BENCH_ONLY' rejected" "name benchmarks of selftests/benchlist-hw.txt"
for f in $HW_SKIPLISTS; do
	[ -f "$HARNESS_ROOT/$f" ] || die "HW_SKIPLISTS: $f not found" "name skip lists relative to the repository (selftests/...)"
done
[ "$(id -u)" -eq 0 ] || die "make hw-emulated needs root" \
	"run it as root (mmdebstrap's root mode, the disk image's file owners, binfmt_misc)"
[ "$PATCHES" = "$SERIES_DEFAULT" ] || die "PATCHES=$PATCHES: the guest builds its selftests from the clone's patches/$BASE" \
	"unset PATCHES (commit the series you want to test)"
# The kernels are built from this checkout, the guest's selftests from a
# clone of HEAD: the two must be the same files.
git -C "$HARNESS_ROOT" rev-parse --verify -q HEAD >/dev/null ||
	die "$HARNESS_ROOT is not a git checkout" "make hw-emulated clones the repository into the guest"
dirty=$(git -C "$HARNESS_ROOT" status --porcelain -- patches selftests scripts kernel-config Makefile 2>/dev/null)
[ -z "$dirty" ] || die "uncommitted changes the guest's clone would not have: $(echo "$dirty" | head -n 3 | tr '\n' ' ')" \
	"commit them (or stash) and rerun"
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
"$S"/phases/base-tree.sh
# The package the base phase used (the pin, or its fallback: the guest then
# gets its sha256 with BASE_DEB_SHA256=, as fetched and verified here).
. "$STATE/base.env"
deb=$BASE_DEB_FILE
[ -n "$deb" ] && [ -f "$deb" ] || die "the base package ${deb:-(none)} is not there after the base phase" "see the base phase's lines above"
gsha=""
[ -n "$BASE_PIN_NOTE" ] && gsha=" BASE_DEB_SHA256=$(sha256_file "$deb")"
declare -A image
for v in $HW_STEPS; do
	if [ "$v" = base ]; then p=$(empty_series); else p=$PATCHES; fi
	build_kernel_variant "$v" "$p"
	image[$v]=$(VARIANT=$v build_dir)/arch/arm64/boot/Image
done

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
tar -xf "$rootfs" -C "$stage" || die "cannot unpack $rootfs into $stage" "check free space (df -h $stage)"
# (root clones a checkout another user may own: git's ownership check
# would refuse it)
git -c safe.directory="$HARNESS_ROOT" -c safe.directory="$HARNESS_ROOT/.git" \
	clone -q --no-hardlinks "$HARNESS_ROOT" "$stage/root/irq-scaling" ||
	die "cannot clone $HARNESS_ROOT into the guest's disk" "see git's message above"
mkdir -p "$stage/root/debs" "$stage/root/hw-emulated" && cp "$deb" "$stage/root/debs/" ||
	die "cannot copy the base package into $stage" "check free space (df -h $stage)"
gdeb=/root/debs/$(basename "$deb")
for v in $HW_STEPS; do
	{
		echo "# make hw-emulated, the $v kernel: the README's hardware commands"
		echo "make hw-run BASE=$BASE RUN_NAME=hw-$v BASE_DEB=$gdeb$gsha EXTRA_SKIPLISTS='$HW_SKIPLISTS'${HW_RUN_ONLY:+ ONLY='$HW_RUN_ONLY'}"
		echo "make hw-bench BASE=$BASE RUN_NAME=hw-bench-$v REPS=$HW_REPS BASE_DEB=$gdeb$gsha${HW_BENCH_ONLY:+ ONLY='$HW_BENCH_ONLY'}"
	} >"$stage/root/hw-emulated/commands-$v"
done
run_logged "$dir/mkfs.log" mkfs.ext4 -q -F -L hw-emulated -d "$stage" "$img" "$HW_DISK_SIZE" ||
	die "mkfs.ext4 failed (log: $dir/mkfs.log)" "check free space (df -h $(dirname "$img"))"
rm -rf "$stage"
status "disk image $(basename "$img") ($HW_DISK_SIZE sparse, $(du -m "$img" | cut -f1) MB used), repository at $(git -C "$HARNESS_ROOT" rev-parse --short=12 HEAD)"

# 4. The boots. Each command's line on the TAP channel says that it
# finished; what it found is judged from its files afterwards.
guest=$dir/guest
mkdir -p "$guest"
booted=""
for v in $HW_STEPS; do
	phase_start hw-emulated
	info "booting the $v kernel on the Debian disk ($SMP CPUs, $MEM)"
	rc=0
	KERNEL=${image[$v]} DISK=$img SMP=$SMP MEM=$MEM BOOT_TIMEOUT=600 WATCHDOG=$HW_WATCHDOG \
		RUN_DIR=$dir/boot-$v \
		APPEND="init=/root/irq-scaling/scripts/guest/hw-emulated-init hw_emulated.step=$v" \
		"$S"/phases/boot-qemu.sh || rc=$?
	if [ "$rc" -eq 2 ]; then
		result "$v/boot" error "QEMU could not boot the $v kernel: see boot-$v/qemu.stderr"
		continue
	fi
	booted="$booted $v"
	[ "$rc" -eq 0 ] || result "$v/boot" error "the guest did not finish ($(. "$dir/boot-$v/boot.env" && echo "$BOOT_RESULT")): see boot-$v/console.log"
	tr -d '\r' <"$dir/boot-$v/tap.txt" | grep -E '^(not )?ok [0-9]+ ' >"$dir/boot-$v/steps.txt" || true
	grep -q ' - hw-emulated: ' "$dir/boot-$v/steps.txt" &&
		result "$v/init" error "$(grep -m1 ' - hw-emulated: ' "$dir/boot-$v/steps.txt" | sed 's/.* - hw-emulated: //')"
done
[ -n "$booted" ] || results_end

# 5. The results, as the guest wrote them. The journal is replayed first
# (a guest that hung never remounted read-only); debugfs exits 0 even for
# a missing path, so every file used below is checked.
phase_start hw-emulated
e2fsck -fy "$img" >"$dir/e2fsck.log" 2>&1 || [ $? -le 1 ] ||
	die "the guest's file system is damaged (log: $dir/e2fsck.log)" "see boot-*/console.log for how the guest ended"
debugfs -R "rdump /root/irq-scaling/out/results /root/hw-emulated/logs $guest" "$img" >"$dir/debugfs.log" 2>&1 ||
	die "cannot copy the results off $img (log: $dir/debugfs.log)"
gres=$guest/results/$BASE_NS
# The tests the series and the project's own patches add or change (a
# patch writes their source): on the base kernel they test what it lacks
# (vgic_its_move, pv_state, pv_state_timing, and hypercalls, which expects
# the PV state bit in BMAP_2).
project=$(project_patches_dir)
series_tests=$({ series_list "$PATCHES" | sed "s|^|$PATCHES/|"
	[ -n "$project" ] && series_list "$project" | sed "s|^|$project/|"; } | xargs cat |
	sed -n 's|^+++ b/tools/testing/selftests/kvm/\(.*/\)\{0,1\}\([^/]*\)\.c$|\2|p' | sort -u | tr '\n' ' ')
for v in $booted; do
	s=$gres/hw-$v/summary.json
	if [ ! -f "$s" ]; then
		result "$v/hw-run" fail "no summary.json: make hw-run ended early (log: guest/logs/$v-1.log)"
	else
		read -r passed failed skipped splats failed_names < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
t = d["totals"]
bad = [n for n, r in d["tests"].items() if r in ("fail", "error")]
print(t["passed"], t["failed"] + t.get("errors", 0), t["skipped"], len(d.get("splats", [])), " ".join(bad) or "-")' "$s")
		counts="$passed passed, $failed failed, $skipped skipped, $splats splats"
		if [ "$v" = patched ]; then
			if [ "$failed" -eq 0 ] && [ "$splats" -eq 0 ]; then result "$v/hw-run" pass "$counts"
			else result "$v/hw-run" fail "$counts (failed: $failed_names)"; fi
		else
			other=""
			for t in $failed_names; do
				[ "$t" = - ] || case " $series_tests " in *" $t "*) ;; *) other="$other $t" ;; esac
			done
			if [ -z "$other" ] && [ "$splats" -eq 0 ]; then
				result "$v/hw-run" pass "$counts; the failed ones are tests the series adds or changes (${failed_names})"
			else
				result "$v/hw-run" fail "$counts; failed on the base kernel, not a test the series adds or changes:${other:- (splats)}"
			fi
		fi
	fi
	b=$gres/hw-bench-$v.json
	if [ ! -f "$b" ]; then
		result "$v/hw-bench" fail "no hw-bench-$v.json: make hw-bench ended early (log: guest/logs/$v-2.log)"
	else
		e=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["results"]), len(d.get("errors", [])))' "$b")
		if [ "${e#* }" -eq 0 ]; then result "$v/hw-bench" pass "${e% *} metrics"
		else result "$v/hw-bench" fail "${e#* } benchmark errors (see $b)"; fi
	fi
done
if [ -f "$gres/hw-bench-base.json" ] && [ -f "$gres/hw-bench-patched.json" ]; then
	# The guest's files say "hardware": the kit cannot tell that TCG ran it.
	if python3 "$S"/lib/bench.py compare "$gres/hw-bench-base.json" "$gres/hw-bench-patched.json" \
		--platform "qemu-tcg (make hw-emulated)" --out "$dir/compare" >"$dir/compare.log" 2>&1; then
		result compare pass "${dir#"$PWD"/}/compare/bench.md"
	else
		result compare fail "bench.py compare failed (log: $dir/compare.log)"
	fi
elif [ "$HW_STEPS" = "patched base" ] || [ "$HW_STEPS" = "base patched" ]; then
	result compare fail "needs both hw-bench files; see the hw-bench rows above"
else
	result compare skip "needs hw-bench on both kernels (HW_STEPS='patched base')"
fi
info "took $(( $(date +%s) - start_all ))s; results in ${dir#"$PWD"/}"
results_end
