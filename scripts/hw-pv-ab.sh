#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make hw-pv-ab: the PV vcpu_is_preempted experiment on an arm64 KVM host
# (Documentation/benchmarks.rst, "PV vcpu_is_preempted"). The host runs the
# patched kernel; this boots a guest (the patched kernel again, GUEST_IMAGE)
# under the distribution's QEMU with KVM for each line of the list
# (selftests/benchlist-hw-pv-ab.txt: 2:1 overcommit pinned and not, 1:1 as
# the control), runs pv-guest ab in it (the guest's use of the flag off and
# on in alternating pairs) and writes the paired table:
# $RESULTS_DIR/hw-pv-ab-<uname -r>/ab.md and ab.json. The same runner
# (run-l2.sh) and program as the nested QEMU experiment, so the two tables
# have the same rows.
#
#   hw-pv-ab.sh [--dry-run]
# Variables: GUEST_IMAGE (default /boot/vmlinuz-<uname -r>: the running
# kernel), HW_CPUS (the host CPUs the guests run on, a taskset list; default
# 1-8), REPS (1: the pairs inside each boot are the repetitions), BENCHLIST,
# ONLY. Needs qemu-system-arm and busybox-static (and rt-tests for the
# hackbench lines), as root.
. "$(dirname "$0")/lib/lib.sh"
set -e
phase_start hw-pv-ab
S=$HARNESS_ROOT/scripts
REPS=${REPS:-1}
HW_CPUS=${HW_CPUS:-1-8}
BENCHLIST=${BENCHLIST:-$HARNESS_ROOT/selftests/benchlist-hw-pv-ab.txt}
GUEST_IMAGE=${GUEST_IMAGE:-/boot/vmlinuz-$(uname -r)}
kernel=$(uname -r)
dir=$RESULTS_DIR/hw-pv-ab-$kernel
case "$REPS" in ''|*[!0-9]*|0) die "REPS=$REPS: give a positive number" ;; esac
case "$HW_CPUS" in ''|*[!0-9,-]*) die "HW_CPUS=$HW_CPUS is not a CPU list" "e.g. HW_CPUS=1-8 or HW_CPUS=2,4,6,8" ;; esac
grep -q '^# axis: ab' "$BENCHLIST" 2>/dev/null ||
	die "$BENCHLIST is not an A/B list (no '# axis: ab' line)" "use selftests/benchlist-hw-pv-ab.txt"
# The CPUs the guests get, and so their vCPU counts ("-smp 2x": twice that).
ncpus=$(python3 -c 'import sys
n = set()
for part in sys.argv[1].split(","):
    a, _, b = part.partition("-")
    n.update(range(int(a), int(b or a) + 1))
print(len(n))' "$HW_CPUS") || die "HW_CPUS=$HW_CPUS is not a CPU list"
case "${1:-}" in
	--dry-run) dir=$STATE/hw-pv-ab-dry-run ;;   # a real run's results stay
	"") require_kvm_arm64_host "run make hw-pv-ab on the arm64 machine; under QEMU use make bench BENCHLIST=selftests/benchlist-qemu-pv-ab.txt" ;;
	*) die "unknown argument '$1'" "usage: hw-pv-ab.sh [--dry-run]" ;;
esac
rm -rf "$dir"
mkdir -p "$dir"
total=$(python3 "$S"/lib/bench.py resolve "$BENCHLIST" --only "${ONLY:-}" -o "$dir/benchlist.tsv") ||
	die "benchmark list rejected" "fix the entry named above"

if [ "${1:-}" = --dry-run ]; then
	info "dry run: $REPS boot(s) per line, guests on host CPUs $HW_CPUS ($ncpus CPUs), guest kernel $GUEST_IMAGE"
	while IFS="$(printf '\t')" read -r _ name timeout _ prog args; do
		echo "  $name: taskset -c $HW_CPUS $prog $args -image $GUEST_IMAGE (timeout ${timeout}s; -smp Nx = N * $ncpus vCPUs)"
	done <"$dir/benchlist.tsv"
	status "dry run done (nothing executed; timeouts sum ${total}s per repetition)"
	exit 0
fi
KIT=1 "$S"/deps.sh || exit 2
qemu=$(command -v qemu-system-aarch64) || die "no qemu-system-aarch64" "apt-get install qemu-system-arm"
[ -r "$GUEST_IMAGE" ] || die "no guest kernel $GUEST_IMAGE" "give GUEST_IMAGE=<the patched kernel's Image>"
grep -q 'pv_preempted_sites' /proc/kallsyms 2>/dev/null ||
	warn "the running kernel has no pv_preempted_sites: is it the patched kernel (with CONFIG_DEBUG_FS)? The guest decides; a guest without the switch skips every line."
lock_out

# The guest's initramfs: busybox, the L2 init (runs l2cmd=, reports
# "[l2] exit N"), pv-guest built natively.
bin=$dir/bin
BENCH_BIN=$bin "$S"/phases/build-bench.sh
stage=$dir/guest.d
mkdir -p "$stage/bin"
# (busybox_arm64 dies in the command substitution's subshell: stop here too)
bb=$(busybox_arm64) || exit 2
cp "$bb" "$stage/bin/busybox" || die "cannot copy busybox into $stage" "check free space under $dir"
cp "$S/guest/l2/init" "$stage/init"
cp "$bin/pv-guest" "$stage/pv-guest"
# hackbench (rt-tests), with the libraries and loader it needs, as the
# host's own: the hackbench lines skip without it.
if hb=$(command -v hackbench); then
	cp "$hb" "$stage/hackbench"
	for lib in $(ldd "$hb" | grep -o '/[^ ]*'); do
		mkdir -p "$stage$(dirname "$lib")"
		cp -L "$lib" "$stage$lib"
	done
else
	warn "no hackbench on this host (apt-get install rt-tests): the hackbench lines will be skipped"
fi
pack_cpio "$stage" "$dir/guest.cpio"
rm -rf "$stage"

phase_start hw-pv-ab
raws=()
for rep in $(seq 1 "$REPS"); do
	rd=$dir/raw/patched-$rep
	mkdir -p "$rd"
	info "repetition $rep/$REPS: $(grep -c . "$dir/benchlist.tsv") guest boots on CPUs $HW_CPUS"
	# run-l2.sh finds the VMM, the initramfs and the kernel through these.
	L2_QEMU=$qemu L2_KVM=/dev/kvm L2_INITRD=$dir/guest.cpio L2_IMAGE=$GUEST_IMAGE \
		taskset -c "$HW_CPUS" "$S"/guest/run-bench.sh "$dir/benchlist.tsv" "" "$bin" >"$rd/tap.txt"
	echo "# harness: done" >>"$rd/tap.txt"
	raws+=(--raw "$rd")
done
rc=0
python3 "$S"/lib/bench.py ab "${raws[@]}" --benchlist "$BENCHLIST" --out "$dir" || rc=$?
[ $rc -eq 0 ] || die "the A/B report has errors (above); data in ${dir#"$PWD"/}"
status "table in ${dir#"$PWD"/}/ab.md, data in ab.json"
