#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The harness's unit tests: its parsers, collectors, report and QEMU command
# line on stored fixtures (scripts/tests/unit/test_*.py, Python's unittest,
# in the manner of kunit.py's kunit_tool_test.py). Seconds, no kernel, no
# network. Appends one line per test to $RESULTS_TSV when set; exits 1 on a
# failure (make harness-test).
. "$(dirname "$0")/../lib/lib.sh"
phase_start harness-unit
out=$(mktemp)
rc=0
python3 "$HARNESS_ROOT/scripts/tests/unit/run.py" >"$out" || rc=$?
[ -n "${RESULTS_TSV:-}" ] && cat "$out" >>"$RESULTS_TSV"
awk -F'\t' '$2 != "pass" { printf "[harness] harness-unit: %s %s: %s\n", toupper($2), $1, $3 }' "$out"
n=$(wc -l <"$out")
bad=$(awk -F'\t' '$2 == "fail" || $2 == "error"' "$out" | wc -l)
rm -f "$out"
if [ "$rc" -ne 0 ] || [ "$bad" -ne 0 ]; then
	echo "[harness] harness-unit: $bad of $n unit tests failed ($(elapsed)s)" >&2
	exit 1
fi
status "$n unit tests passed"
