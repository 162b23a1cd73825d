#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The harness's lint gate (make harness-test, make test): shellcheck at
# warning level on every shell script of the harness and pyflakes on every
# Python file, both from Debian (make deps). Three shellcheck checks are
# excluded for the whole tree, each because of how the harness is built:
#   SC2034  "appears unused": scripts assign variables for the scripts that
#           source them (lib.sh) and for write_env, which names them as
#           strings (base.env, applied.env, boot.env)
#   SC2154  "referenced but not assigned": the other side of SC2034, values
#           read from those sourced env files
#   SC1090  "can't follow non-constant source": those env files' paths are
#           computed (OUT, the run's directory)
# Any other warning is fixed or disabled at its line with a reason.
# Appends "harness-lint/<tool>\t<result>\t<note>" to $RESULTS_TSV when set;
# exit status 0 clean, 1 a warning, 2 a linter missing.
. "$(dirname "$0")/../lib/lib.sh"
phase_start harness-lint
R=$HARNESS_ROOT
row() { [ -n "${RESULTS_TSV:-}" ] && printf 'harness-lint/%s\t%s\t%s\n' "$1" "$2" "$3" >>"$RESULTS_TSV"; return 0; }
for t in shellcheck pyflakes3; do
	command -v "$t" >/dev/null && continue
	row "${t%3}" fail "$t not found: make deps installs it"
	die "$t not found" "make deps (it installs shellcheck and pyflakes3)"
done
mapfile -t sh_files < <(cd "$R" && { ls scripts/*.sh scripts/phases/*.sh scripts/lib/*.sh scripts/ci/*.sh scripts/tests/*.sh scripts/guest/lava-tests.sh; echo .ci/run; } | sort)
mapfile -t py_files < <(cd "$R" && find scripts -name '*.py' | sort)
rc=0
out=$(cd "$R" && shellcheck -S warning -f gcc -e SC2034,SC2154,SC1090 "${sh_files[@]}" 2>&1) || true
if [ -n "$out" ]; then
	n=$(grep -c ': \(warning\|error\):' <<<"$out")
	echo "$out" | sed 's/^/[harness] harness-lint: /' >&2
	row shellcheck fail "$n warning(s) in ${#sh_files[@]} shell scripts"
	rc=1
else
	row shellcheck pass "${#sh_files[@]} shell scripts, warning level"
fi
out=$(cd "$R" && pyflakes3 "${py_files[@]}" 2>&1) || true
if [ -n "$out" ]; then
	echo "$out" | sed 's/^/[harness] harness-lint: /' >&2
	row pyflakes fail "$(wc -l <<<"$out") message(s) in ${#py_files[@]} Python files"
	rc=1
else
	row pyflakes pass "${#py_files[@]} Python files"
fi
[ "$rc" -eq 0 ] && status "shellcheck (${#sh_files[@]} scripts) and pyflakes (${#py_files[@]} files): no warning"
exit "$rc"
