#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench: the base kernel (empty series) and the patched kernel (full
# series), same base tree, same config, same QEMU command, the benchmark
# list run on each in interleaved boots (base, patched, base, patched, ...).
# Writes $RESULTS_DIR/bench/{bench.json,bench.md,*.png,raw/} and
# $RESULTS_DIR/bench.json.
#
# Variables: REPS (3), BENCHLIST (selftests/benchlist-qemu.txt), ONLY,
# FRAGMENTS ("kvm-host debug lock-stat": lock_stat needs both), HOST_MODE
# (vhe), GIC (3), SMP (4), MEM (3G), KERNEL_SRC, PATCHES, LLVM.
# BASE_PATCHES=dir: the "base" kernel applies that series instead of none,
# to compare two versions of a change (e.g. an earlier revision of the
# series) on the same base, config and QEMU.
. "$(dirname "$0")/lib/lib.sh"
set -e
S=$HARNESS_ROOT/scripts
t_start=$(date +%s)

REPS=${REPS:-3}
export FRAGMENTS=${FRAGMENTS:-kvm-host debug lock-stat}
export HOST_MODE=${HOST_MODE:-vhe} GIC=${GIC:-3} SMP=${SMP:-4} MEM=${MEM:-3G}
BENCHLIST=${BENCHLIST:-$HARNESS_ROOT/selftests/benchlist-qemu.txt}
BENCH_DIR=$RESULTS_DIR/bench
case "$REPS" in ''|*[!0-9]*|0) PHASE=bench die "REPS=$REPS: give a positive number" ;; esac
if [ -n "${BASE_PATCHES:-}" ]; then
	[ -f "$BASE_PATCHES/series" ] ||
		PHASE=bench die "BASE_PATCHES=$BASE_PATCHES has no series file" "give a quilt series directory, e.g. an earlier patches/<base>"
	BASE_PATCHES=$(cd "$BASE_PATCHES" && pwd)
fi
[ -f "$BENCHLIST" ] || PHASE=bench die "benchmark list $BENCHLIST not found"
# The inputs, before any build: the machine and the list (with ONLY).
PHASE=bench
validate_machine_inputs
python3 "$S"/lib/bench.py resolve "$BENCHLIST" --only "${ONLY:-}" -o /dev/null >/dev/null ||
	die "benchmark list rejected" "fix the entry named above"
lock_out

EXTRA_PACKAGES="gnuplot-nox ${EXTRA_PACKAGES:-}" "$S"/deps.sh
"$S"/phases/base-tree.sh

# "# axis: l2" in the list: the kernels compared are the nested L2 guest's
# (base guest vs patched guest, Documentation/nested.rst); every boot runs
# the patched kernel as the L1 host, and the variant's kernel goes into the
# initramfs as /l2/Image. "# axis: ab": one kernel (patched, as L1 host and
# L2 guest), and each benchmark compares a feature off and on in pairs
# inside its own boot (pv-guest ab): no base kernel is built or booted.
axis=kernel
grep -q '^# axis: l2' "$BENCHLIST" && axis=l2
grep -q '^# axis: ab' "$BENCHLIST" && axis=ab
variants="base patched"
[ $axis = ab ] && variants=patched

# The two kernels: the same pipeline, two work trees.
empty=$(empty_series)
for v in $variants; do
	# The project's own patches (the A/B switch among them) only on top of
	# the series under test
	if [ $v = base ]; then
		p=${BASE_PATCHES:-$empty}
		PROJECT_PATCHES="" build_kernel_variant $v "$p"
	else
		build_kernel_variant $v "$PATCHES"
	fi
	VARIANT=$v "$S"/phases/build-selftests.sh
done
VARIANT=${variants%% *} "$S"/phases/build-bench.sh

rm -rf "$BENCH_DIR"
mkdir -p "$BENCH_DIR/raw"
phase_start bench
total=$(python3 "$S"/lib/bench.py resolve "$BENCHLIST" --only "${ONLY:-}" -o "$BENCH_DIR/benchlist.tsv") ||
	die "benchmark list rejected" "fix the entry named above"
# KVM selftests named in the list run from the patched tree's build on both
# kernels: the same userspace on both sides, only the kernel differs (and a
# test that the series adds exists for the base boot too).
ksft=$(VARIANT=patched build_dir)/kselftest_install/kvm
for prog in $(awk -F'\t' '$1 == "bench" { print $5 }' "$BENCH_DIR/benchlist.tsv" | sort -u); do
	[ -f "$HARNESS_ROOT/selftests/bench/$prog.c" ] && continue
	[ -f "$HARNESS_ROOT/scripts/guest/l2/$prog" ] && continue   # nested (L2=1)
	[ -x "$ksft/$prog" ] || die "benchmark program '$prog' is neither in selftests/bench nor a KVM selftest of the patched tree"
	cp "$ksft/$prog" "$OUT/work/bench-bin/$prog"
done
export TESTS_TIMEOUT=$total
repro=$(reproducer bench)

if [ $axis = l2 ]; then
	export L2=1
	repro="$repro  # base/patched = the L2 guest kernel, L1 host patched"
elif [ $axis = ab ]; then
	export L2=1
	repro="$repro  # one patched kernel (L1 host and L2 guest), off/on pairs in each boot"
fi
raws=()
failed=0
for rep in $(seq 1 "$REPS"); do
	for v in $variants; do
		export VARIANT=$v RUN_DIR=$BENCH_DIR/raw/$v-$rep
		mkdir -p "$RUN_DIR"
		cp "$BENCH_DIR/benchlist.tsv" "$RUN_DIR/"
		if [ $axis = ab ]; then
			info "boot $rep/$REPS: the patched kernel as L1 host and L2 guest, off/on pairs"
			l1=$(build_dir)/arch/arm64/boot/Image
		elif [ $axis = l2 ]; then
			info "boot $rep/$REPS: $v L2 guest kernel on the patched L1 host"
			l1=$(VARIANT=patched build_dir)/arch/arm64/boot/Image
		else
			info "boot $rep/$REPS: $v kernel"
			l1=$(build_dir)/arch/arm64/boot/Image
		fi
		RUNLIST=$BENCHLIST "$S"/phases/metadata.sh "$RUN_DIR/metadata.json" "bench-$v-$rep" "$repro"
		MODE=bench "$S"/phases/initramfs.sh
		. "$RUN_DIR/initramfs.env"
		rc=0
		KERNEL=$l1 INITRD=$INITRD "$S"/phases/boot-qemu.sh || rc=$?
		rm -f "$INITRD"
		# 0 done, 3 the guest hung/panicked/stopped (reported below like
		# any boot), anything else: QEMU could not run it.
		[ $rc -eq 0 ] || [ $rc -eq 3 ] || die "QEMU could not run the $v kernel (boot-qemu.sh exit $rc)"
		# The console of every boot is scanned like a test run's.
		python3 "$S"/lib/report.py --run-dir "$RUN_DIR" --meta "$RUN_DIR/metadata.json" \
			--splats "$HARNESS_ROOT/selftests/console-splats.txt" >"$RUN_DIR/report.txt" ||
			{ failed=1; warn "$v boot $rep: $(tail -n 1 "$RUN_DIR/report.txt")"; grep -E '^(SPLAT|GUEST)' "$RUN_DIR/report.txt" >&2 || true; }
		raws+=(--raw "$RUN_DIR")
	done
done

phase_start bench-report
rc=0
if [ $axis = ab ]; then
	report=ab
	python3 "$S"/lib/bench.py ab "${raws[@]}" --benchlist "$BENCHLIST" --out "$BENCH_DIR" || rc=$?
	cp "$BENCH_DIR/ab.json" "$RESULTS_DIR/ab.json" 2>/dev/null || true
	# The ratios as KCIDB v5.3 tests with numbers (status DONE).
	[ ! -f "$BENCH_DIR/ab.json" ] || python3 "$S"/ci/kcidb.py --run-dir "$BENCH_DIR" -o "$BENCH_DIR/kcidb.json" || rc=2
else
	report=bench
	python3 "$S"/lib/bench.py collect "${raws[@]}" --benchlist "$BENCHLIST" \
		--out "$BENCH_DIR" --repetitions "$REPS" || rc=$?
	cp "$BENCH_DIR/bench.json" "$RESULTS_DIR/bench.json" 2>/dev/null || true
fi
_phase_t0=$t_start
if [ $rc -ge 2 ]; then
	die "the benchmark report could not be made (above)"
elif [ $rc -ne 0 ] || [ $failed -ne 0 ]; then
	echo "[harness] bench-report: FAIL: a benchmark or a boot failed (above); report in ${BENCH_DIR#"$PWD"/}/$report.md ($(elapsed)s)" >&2
	exit 1
fi
status "report in ${BENCH_DIR#"$PWD"/}/$report.md, data in ${RESULTS_DIR#"$PWD"/}/$report.json"
