#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make test: the project's tests.
#  1. The harness on bad input: each case asserts a non-zero exit and the
#     message a user needs (scripts/tests/harness-tests.sh).
#  2. The run list under QEMU: VHE and nVHE hosts with the base config, and a
#     VHE host with the debug config (lockdep, lock_stat, atomic-sleep checks)
#     whose console must be free of splats.
# Every selftest of every run counts as one test, and each run's boot and
# console scan as one more. Ends with "N passed, N failed, N skipped".
#
#  3. The KUnit suites of selftests/kunit.txt, each test case one test:
#     built into the debug kernel (they run at its boot, under lockdep) and
#     read from its console with kunit.py parse. TEST_RUNS=kunit (or make
#     kunit) runs them with kunit.py run instead, in kunit.py's own kernel.
#  4. make check on the real series (one test per patch; x86_64 for the
#     final state only unless CHECK_X86=all; no clang build unless
#     CHECK_CLANG=1: it is make check's default, not make test's),
#     make check on fixture series it must reject (scripts/tests/check-tests.sh)
#     and make export with a test identity (scripts/tests/export-test.sh).
# TEST_RUNS="vhe check check-tests export nvhe debug" selects the runs
# (default: these, in that order: check runs after the first kernel build so
# that its final state comes from ccache).
. "$(dirname "$0")/lib.sh"
phase_start test
t0=$(date +%s)
S=$HARNESS_ROOT/scripts
export RESULTS_TSV=$OUT/tests/results.tsv
mkdir -p "$OUT/tests"
: >"$RESULTS_TSV"

# Seconds per phase, for the README's time table and for finding what to cut.
PHASES_TSV=$OUT/tests/phases.tsv
: >"$PHASES_TSV"
t_phase=$(date +%s)
phase_done() { # phase_done <name>: the time since the last phase ended
	local now
	now=$(date +%s)
	printf '%s\t%s\n' "$1" "$((now - t_phase))" >>"$PHASES_TSV"
	t_phase=$now
}

"$S"/deps.sh || { echo "0 passed, 1 failed"; exit 1; }
# Disk: the base cache, one copied and several hard-linked work trees, their
# build directories and a transient git checkout for the export proof need
# about TEST_DISK_GB (7) GB under $OUT at the peak (6.5 GB measured from a fresh
# clone, 24 patches). Say so now, not an hour in.
need_disk "${TEST_DISK_GB:-7}" || { echo "0 passed, 1 failed"; exit 1; }

# 1. Harness behaviour (needs the base tree, and a kernel Image for the
#    guest hang/panic cases: those run after the first QEMU run built it).
"$S"/tests/harness-tests.sh input
phase_done "deps+harness-input"

# 2. The run list on each host mode / config.
run_one() {
	local name=$1
	shift
	local log=$OUT/tests/run-$name.log
	info "run '$name': $* (log: $log)"
	if env RUN_NAME="test-$name" "$@" "$S"/run.sh 2>&1 | tee "$log" | grep --line-buffered -E '^\[harness\] [a-z]+: |^\[harness\] boot:   '; then
		:
	fi
	local sum=$OUT/results/test-$name/summary.json
	if [ -f "$sum" ] && grep -q "\"run\": \"test-$name\"" "$sum"; then
		python3 - "$sum" "$name" >>"$RESULTS_TSV" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
run = sys.argv[2]
for d in s["details"]:
    print(f"{run}/{d['name']}\t{d['result']}\t{d['reason']}")
boot = s["boot"]["result"]
if boot != "done":
    print(f"{run}/boot+console\tfail\tguest {boot}")
elif s["splats"]:
    print(f"{run}/boot+console\tfail\t{len(s['splats'])} splat(s): {s['splats'][0]['text']}")
else:
    print(f"{run}/boot+console\tpass\t")
PY
	else
		printf '%s\tfail\t%s\n' "$name/run" "run did not reach the guest: $(grep -m1 'ERROR' "$log" | cut -c1-200)" >>"$RESULTS_TSV"
	fi
}

# make check on the real series; one result per table row.
run_check() {
	local log=$OUT/tests/check.log rows=$OUT/check/check/rows.tsv
	info "make check (CHECK_X86=${CHECK_X86:-final} CHECK_CLANG=${CHECK_CLANG:-0}; log: $log)"
	rm -f "$rows"
	# The clang build of the final state is make check's, not make test's:
	# 11 minutes of a cold run for warnings only clang gives, in a handful of
	# files (Documentation/check-export.rst, "make test").
	CHECK_X86=${CHECK_X86:-final} CHECK_CLANG=${CHECK_CLANG:-0} "$S"/check.sh 2>&1 | tee "$log" |
		grep --line-buffered -E '^\[harness\] (check|check-tests): |ERROR' || true
	if [ -s "$rows" ]; then
		awk -F'\t' '$1 != "0" {
			bad = ""
			for (i = 3; i <= NF; i++) if ($i == "FAIL") bad = bad " " i
			name = ($1 == "+") ? "final-state-clang" : $1 "-" $2
			if (bad == "") printf "check/%s\tpass\t\n", name
			else printf "check/%s\tfail\tsee %s\n", name, "out/tests/check.log"
		}' "$rows" >>"$RESULTS_TSV"
	fi
	if ! grep -q '^\[harness\] check: series passes every gate' "$log"; then
		printf 'check/series\tfail\t%s\n' "$(grep -m1 'ERROR' "$log" | cut -c1-200)" >>"$RESULTS_TSV"
	fi
}

for r in ${TEST_RUNS:-vhe check check-tests export nvhe debug}; do
	case "$r" in
		kunit) "$S"/kunit.sh || true ;;  # kunit.py run (not in the default list)
		check) run_check ;;
		check-tests) "$S"/tests/check-tests.sh || true ;;
		export) "$S"/tests/export-test.sh || true ;;
		vhe) run_one vhe HOST_MODE=vhe FRAGMENTS=kvm-host L2=1 ;;
		nvhe) run_one nvhe HOST_MODE=nvhe FRAGMENTS=kvm-host L2=1 ;;
		debug)
			# The KUnit suites are built into the debug kernel and
			# run at its boot, under lockdep and atomic-sleep checks.
			frag=$OUT/work/patched/kunit-boot.config
			VARIANT=patched "$S"/apply-series.sh >/dev/null &&
				VARIANT=patched "$S"/kunit.sh fragment "$frag"
			run_one debug HOST_MODE=vhe FRAGMENTS="kvm-host debug $frag" L2=1
			[ -f "$OUT/results/test-debug/console.log" ] &&
				{ VARIANT=patched "$S"/kunit.sh parse "$OUT/results/test-debug/console.log" || true; } ;;
		*) printf '%s\tfail\tunknown run in TEST_RUNS\n' "$r" >>"$RESULTS_TSV" ;;
	esac
	phase_done "$r"
	# The guest hang/panic cases need an Image; the first run that boots
	# built one.
	case "$r" in kunit|check|check-tests|export) continue ;; esac
	if [ -z "${guest_cases_done:-}" ]; then
		"$S"/tests/harness-tests.sh guest
		guest_cases_done=1
		phase_done harness-guest
	fi
done

# The cached base must be exactly as unpacked: the hard-linked work trees
# share its files, so a tool writing one of them in place would change it.
# quilt push/pop change the mtime of the base files they back up or restore
# (the base's own inodes), so a newer mtime alone is no fault: such files are
# compared with the base's git repository (made by the export) if there is one.
base_cache_check() {
	. "$OUT/state/base.env"
	local newer repo=$OUT/cache/base-git/$BASE_ID/repo.git idx bad
	newer=$(cd "$BASE_DIR" && find . -newer "$OUT/state/base.env" -type f | sed 's|^\./||')
	if [ -z "$newer" ]; then
		printf 'pass\tno file changed'
	elif [ -d "$repo" ]; then
		idx=$(mktemp)
		GIT_DIR=$repo GIT_INDEX_FILE=$idx git read-tree refs/heads/base
		bad=$(echo "$newer" | GIT_DIR=$repo GIT_INDEX_FILE=$idx GIT_WORK_TREE=$BASE_DIR \
			xargs -d '\n' git diff --name-only -- 2>&1 | head -n 3 | tr '\n' ' ')
		rm -f "$idx"
		if [ -z "$bad" ]; then
			printf 'pass\t%s file(s) with a newer mtime (quilt), content unchanged' "$(echo "$newer" | wc -l)"
		else
			printf 'fail\tcontent changed: %s' "$bad"
		fi
	else
		printf 'pass\t%s file(s) with a newer mtime, content not compared (no base git repository)' "$(echo "$newer" | wc -l)"
	fi
}
printf 'harness/base-cache-untouched\t%s\n' "$(base_cache_check)" >>"$RESULTS_TSV"
phase_done base-cache-check
info "disk: $(du -sh "$OUT" 2>/dev/null | cut -f1) in $OUT, $(df -h --output=avail "$OUT" | tail -n 1 | tr -d ' ') free"

echo
echo "==== make test results ===="
awk -F'\t' '{ printf "%-44s %-5s %s\n", $1, toupper($2), $3 }' "$RESULTS_TSV"
pass=$(awk -F'\t' '$2 == "pass"' "$RESULTS_TSV" | wc -l)
fail=$(awk -F'\t' '$2 == "fail"' "$RESULTS_TSV" | wc -l)
skip=$(awk -F'\t' '$2 == "skip"' "$RESULTS_TSV" | wc -l)
echo "[harness] test: seconds per phase: $(awk -F'\t' '{ printf "%s%s %s", sep, $1, $2; sep = ", " }' "$PHASES_TSV")"
echo "[harness] test: finished in $(( $(date +%s) - t0 ))s; details in ${OUT}/tests and ${OUT}/results"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
