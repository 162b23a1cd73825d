#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make hw-bench: the benchmark list natively on an arm64 KVM host, on the
# running kernel, REPS times. Writes $RESULTS_DIR/$RUN_NAME.json
# (one kernel). Run it once on the base kernel and once on the patched one,
# then: scripts/lib/bench.py compare BEFORE.json AFTER.json --out DIR
# (Documentation/benchmarks.rst has the procedure).
#
#   hw-bench.sh [--dry-run]
# Variables: REPS (5), BENCHLIST (selftests/benchlist-hw.txt), ONLY,
# RUN_NAME (hw-bench-<uname -r>), KERNEL_SRC, PATCHES (for the selftests
# built from the tree).
. "$(dirname "$0")/lib/lib.sh"
set -e
phase_start hw-bench
lock_out
S=$HARNESS_ROOT/scripts
REPS=${REPS:-5}
BENCHLIST=${BENCHLIST:-$HARNESS_ROOT/selftests/benchlist-hw.txt}
kernel=$(uname -r)
# RUN_NAME names the result (default hw-bench-<uname -r>): give each kernel
# its own when two kernels report the same release (RUN_NAME=hw-bench-base).
RUN_NAME=${RUN_NAME:-hw-bench-$kernel}
check_name RUN_NAME "$RUN_NAME"
dir=$RESULTS_DIR/$RUN_NAME
json=$RESULTS_DIR/$RUN_NAME.json
case "${1:-}" in
	--dry-run) dir=$STATE/hw-bench-dry-run ;;
	"") require_kvm_arm64_host "run make hw-bench on the arm64 machine; here use make bench (QEMU)"
	    # No earlier run's raw data or table can be mistaken for this run's.
	    rm -f "$json" ;;
	*) die "unknown argument '$1'" "usage: hw-bench.sh [--dry-run]" ;;
esac
rm -rf "$dir"
mkdir -p "$dir"
total=$(python3 "$S"/lib/bench.py resolve "$BENCHLIST" --only "${ONLY:-}" -o "$dir/benchlist.tsv") ||
	die "benchmark list rejected" "fix the entry named above"

if [ "${1:-}" = --dry-run ]; then
	info "dry run: $REPS repetitions of $(grep -c . "$dir/benchlist.tsv") benchmarks (timeouts sum ${total}s each)"
	cut -f2,5,6 "$dir/benchlist.tsv" | sed 's/^/  /'
	status "dry run done (nothing executed)"
	exit 0
fi
prepare_native_selftests
BUILD_DIR=$build BENCH_BIN=$build/bench-bin "$S"/phases/build-bench.sh

# The run's inputs (base, series, the running kernel, the CPU count) go
# into the result file, so that the compare report can name them.
repro=$(reproducer hw-bench)
PLATFORM=hardware BUILD_DIR=$build RUNLIST=$BENCHLIST SMP=$(nproc) "$S"/phases/metadata.sh "$dir/metadata.json" "$RUN_NAME" "$repro"
phase_start hw-bench
raws=()
for rep in $(seq 1 "$REPS"); do
	rd=$dir/raw/run-$rep
	mkdir -p "$rd"
	cp "$dir/metadata.json" "$rd/metadata.json"
	info "repetition $rep/$REPS on $kernel"
	"$S"/guest/run-bench.sh "$dir/benchlist.tsv" "$build/kselftest_install" "$build/bench-bin" >"$rd/tap.txt"
	echo "# harness: done" >>"$rd/tap.txt"
	raws+=(--raw "$rd")
done
python3 "$S"/lib/bench.py hw "${raws[@]}" --benchlist "$BENCHLIST" --kernel "$kernel" \
	--out "$json"
status "results in ${json#"$PWD"/}"
