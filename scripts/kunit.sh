#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Phase "kunit": the KUnit suites of selftests/kunit.txt, run with the
# kernel's own tools/testing/kunit/kunit.py on the patched work tree
# (--arch=arm64, QEMU). A suite whose Kconfig symbol the tree does not have
# (its patch is not in the series) is reported as skipped.
# Appends "kunit/<suite>.<case>\tpass|fail|skip\t<note>" to $RESULTS_TSV when
# set; exits non-zero if a suite failed or could not run.
. "$(dirname "$0")/lib.sh"
phase_start kunit
VARIANT=${VARIANT:-patched}
src=$OUT/work/$VARIANT/src
[ -x "$src/tools/testing/kunit/kunit.py" ] || die "no kunit.py in $src" "run scripts/apply-series.sh first"
list=${KUNIT_LIST:-$HARNESS_ROOT/selftests/kunit.txt}
build=$OUT/work/$VARIANT/build-kunit
mkdir -p "$build"
rc=0
while read -r suite symbols; do
	case "$suite" in ''|\#*) continue ;; esac
	missing=""
	for s in $symbols; do
		sym=${s%%=*}
		grep -rqs "^config ${sym#CONFIG_}\$" --include='Kconfig*' "$src/kernel" "$src/lib" "$src/arch/arm64" "$src/virt" "$src/drivers/irqchip" ||
			missing="$missing $sym"
	done
	if [ -n "$missing" ]; then
		info "SKIP $suite: the tree has no$missing (its patch is not in the series)"
		[ -n "${RESULTS_TSV:-}" ] && printf 'kunit/%s\tskip\tno%s in this tree\n' "$suite" "$missing" >>"$RESULTS_TSV"
		continue
	fi
	log=$build/$suite.log
	json=$build/$suite.json
	# A minimal kunitconfig: KUnit and the suite, nothing else (the
	# default one would build every test KUNIT_ALL_TESTS reaches).
	printf 'CONFIG_KUNIT=y\n' >"$build/$suite.kunitconfig"
	for s in $symbols; do echo "$s" >>"$build/$suite.kunitconfig"; done
	args=(--kunitconfig="$build/$suite.kunitconfig")
	info "kunit.py run --arch=arm64 $suite (log: $log)"
	(cd "$src" && python3 tools/testing/kunit/kunit.py run --arch=arm64 \
		--cross_compile="${CROSS_COMPILE:-aarch64-linux-gnu-}" --build_dir="$build" \
		--make_options CC="ccache ${CROSS_COMPILE:-aarch64-linux-gnu-}gcc" \
		--jobs="$JOBS" --timeout=600 --json="$json" "${args[@]}" "$suite") >"$log" 2>&1 || rc=1
	grep -E '^\[..:..:..\] (Testing complete|.*(PASSED|FAILED|SKIPPED|CRASHED))' "$log" | sed 's/^/  /' | tail -n 12
	if [ -n "${RESULTS_TSV:-}" ]; then
		if [ -s "$json" ]; then
			python3 - "$json" "$suite" >>"$RESULTS_TSV" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
found = 0
def walk(group):
    global found
    for t in group.get("test_cases", []):
        status = (t.get("status") or "").upper()
        res = {"PASS": "pass", "SKIP": "skip"}.get(status, "fail")
        print(f"kunit/{group.get('name')}.{t.get('name')}\t{res}\t{status}")
        found += 1
    for g in group.get("sub_groups", []):
        walk(g)
walk(doc)
if not found:
    print(f"kunit/{sys.argv[2]}\tfail\tno test cases in the KUnit JSON")
PY
		else
			printf 'kunit/%s\tfail\tkunit.py did not produce results (log: %s)\n' "$suite" "$log" >>"$RESULTS_TSV"
		fi
	fi
done <"$list"
if [ $rc -ne 0 ]; then
	die "a KUnit suite failed or did not run" "see the logs in $build"
fi
status "KUnit suites done"
