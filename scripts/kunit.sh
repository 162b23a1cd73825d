#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Phase "kunit": the KUnit suites of selftests/kunit.txt, run with the
# kernel's own tools/testing/kunit/kunit.py on the patched work tree
# (--arch=arm64, QEMU). A suite whose Kconfig symbol the tree does not have
# (its patch is not in the series) is reported as skipped.
# Appends "kunit/<suite>.<case>\tpass|fail|skip\t<note>" to $RESULTS_TSV when
# set; exits non-zero if a suite failed or could not run.
#
# The same suites can also run built into a kernel booted by the harness
# (make test does this with the debug kernel, so they run under lockdep):
#   kunit.sh fragment <file>      write a config fragment: KUnit + the suites
#                                 this tree has, built in (they run at boot)
#   kunit.sh parse <console.log>  kunit.py parse of that boot's console
. "$(dirname "$0")/lib/lib.sh"
phase_start kunit
VARIANT=${VARIANT:-patched}
src=$WORK/$VARIANT/src
mode=${1:-run}
case "$mode" in run|fragment|parse) ;; *) die "unknown mode '$mode'" "use: kunit.sh [run|fragment <file>|parse <console.log>]" ;; esac
# make kunit on a fresh clone: the base tree and the series first (both
# are no-ops when up to date).
if [ "$mode" != parse ]; then
	validate_tree_inputs
	[ "$mode" = run ] && lock_out
	"$HARNESS_ROOT"/scripts/phases/base-tree.sh >&2 || exit 2
	"$HARNESS_ROOT"/scripts/phases/apply-series.sh >&2 || exit 2
fi
phase_start kunit
[ -x "$src/tools/testing/kunit/kunit.py" ] || die "no kunit.py in $src" "the work tree is incomplete: make clean and rerun"
list=${KUNIT_LIST:-$HARNESS_ROOT/selftests/kunit.txt}
build=$WORK/$VARIANT/build-kunit
mkdir -p "$build"
rc=0

# Suites of the list that this tree has: "suite symbols..." lines. A suite
# is in the tree when a .c file defines it (.name = "<suite>"); of its
# symbols, those the tree's Kconfig defines are the ones to set (a suite can
# live under different symbols on different bases: the line lists them all).
# A suite the tree lacks (its patch is not in the series) is reported as
# skipped; one the tree has but none of whose symbols it defines is a
# harness error.
kunit_dirs=("$src/kernel" "$src/lib" "$src/arch/arm64" "$src/virt" "$src/drivers/irqchip")
present_suites() {
	local suite symbols s sym have
	while read -r suite symbols; do
		case "$suite" in ''|\#*) continue ;; esac
		if ! grep -rqsE --include='*.c' "\.name[[:space:]]*=[[:space:]]*\"$suite\"" "${kunit_dirs[@]}"; then
			info "SKIP $suite: no KUnit suite of that name in this tree (its patch is not in the series)" >&2
			[ -n "${RESULTS_TSV:-}" ] && [ "$mode" != fragment ] &&
				printf 'kunit/%s\tskip\tnot in this tree (its patch is not in the series)\n' "$suite" >>"$RESULTS_TSV"
			continue
		fi
		have=""
		for s in $symbols; do
			sym=${s%%=*}
			grep -rqs "^config ${sym#CONFIG_}\$" --include='Kconfig*' "${kunit_dirs[@]}" && have="$have $s"
		done
		[ -n "$have" ] || die "KUnit suite $suite is in the tree but none of its symbols ($symbols) is" \
			"fix its line in $list"
		echo "$suite$have"
	done <"$list"
}

# JSON of kunit.py (run --json or parse --json) -> results TSV lines.
json_to_tsv() {
	python3 - "$1" "$2" >>"$RESULTS_TSV" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
want = sys.argv[2].split()
found = 0
def walk(group):
    global found
    name = group.get("name") or ""
    for t in group.get("test_cases", []):
        if want and not any(name == w or name.startswith(w) for w in want):
            continue
        status = (t.get("status") or "").upper()
        res = {"PASS": "pass", "SKIP": "skip"}.get(status, "fail")
        print(f"kunit/{name}.{t.get('name')}\t{res}\t{status}")
        found += 1
    for g in group.get("sub_groups", []):
        walk(g)
walk(doc)
if not found:
    print(f"kunit/{' '.join(want) or 'all'}\tfail\tno test cases of these suites in the KUnit output")
PY
}

case "$mode" in
fragment)
	out=${2:?kunit.sh fragment <file>}
	{
		echo "# Help: KUnit with the suites of selftests/kunit.txt that this tree has, built in: they run at boot"
		echo "CONFIG_KUNIT=y"
		# merge_config.sh starts from allnoconfig: KUnit would be built
		# but disabled (kunit.enable defaults to this symbol).
		echo "CONFIG_KUNIT_DEFAULT_ENABLED=y"
		# ... and, in newer kernels (7.3 has it), not run at boot unless this
		# one is set (kunit.autorun defaults to it);
		# 6.12 has no such symbol and always runs them.
		grep -qs '^config KUNIT_AUTORUN_ENABLED$' "$src/lib/kunit/Kconfig" &&
			echo "CONFIG_KUNIT_AUTORUN_ENABLED=y"
		present_suites | while read -r suite symbols; do
			for s in $symbols; do echo "$s"; done
		done
	} >"$out.tmp"
	# Rewrite only on change: the config phase keys on the content.
	cmp -s "$out.tmp" "$out" 2>/dev/null && rm -f "$out.tmp" || mv "$out.tmp" "$out"
	status "fragment $(basename "$out"): $(grep -c '^CONFIG_' "$out") symbols"
	exit 0 ;;
parse)
	console=${2:?kunit.sh parse <console.log>}
	suites=$(present_suites | cut -d' ' -f1 | tr '\n' ' ')
	[ -n "$suites" ] || { status "no KUnit suite in this tree"; exit 0; }
	json=$(dirname "$console")/kunit.json
	# The KUnit part of the console: the suites run at boot, before init;
	# the selftests' TAP stream (TAP version 13) comes later.
	ktap=$(dirname "$console")/kunit-console.log
	sed '/TAP version 13/,$d' "$console" >"$ktap"
	(cd "$src" && python3 tools/testing/kunit/kunit.py parse --json="$json" "$ktap") \
		>"$(dirname "$console")/kunit-parse.log" 2>&1 || rc=1
	grep -E '(PASSED|FAILED|SKIPPED|CRASHED)' "$(dirname "$console")/kunit-parse.log" | sed 's/^/  /' | tail -n 12
	if [ -n "${RESULTS_TSV:-}" ]; then
		if [ -s "$json" ]; then json_to_tsv "$json" "$suites"
		else printf 'kunit/boot\tfail\tkunit.py parse produced no results (see %s)\n' "$(dirname "$console")/kunit-parse.log" >>"$RESULTS_TSV"
		fi
	fi
	# A failed suite is a test failure (exit 1), not a harness error.
	[ $rc -eq 0 ] || { echo "[harness] kunit: FAIL: KUnit suites failed at boot -- see $(dirname "$console")/kunit-parse.log" >&2; exit 1; }
	status "KUnit suites at boot: $suites"
	exit 0 ;;
run) ;;
*) die "unknown mode '$mode'" "use: kunit.sh [run|fragment <file>|parse <console.log>]" ;;
esac

while read -r suite symbols; do
	log=$build/$suite.log
	json=$build/$suite.json
	# A minimal kunitconfig: KUnit and the suite, nothing else (the
	# default one would build every test KUNIT_ALL_TESTS reaches).
	printf 'CONFIG_KUNIT=y\n' >"$build/$suite.kunitconfig"
	for s in $symbols; do echo "$s" >>"$build/$suite.kunitconfig"; done
	args=(--kunitconfig="$build/$suite.kunitconfig")
	# Four CPUs: the per-CPU cases run on every online CPU.
	info "kunit.py run --arch=arm64 --qemu_args='-smp 4' $suite (log: $log)"
	(cd "$src" && python3 tools/testing/kunit/kunit.py run --arch=arm64 \
		--cross_compile="$USER_CROSS" --build_dir="$build" \
		--make_options CC="ccache ${USER_CROSS}gcc" \
		--jobs="$JOBS" --timeout=600 --json="$json" --qemu_args='-smp 4' \
		"${args[@]}" "$suite") >"$log" 2>&1 || rc=1
	grep -E '^\[..:..:..\] (Testing complete|.*(PASSED|FAILED|SKIPPED|CRASHED))' "$log" | sed 's/^/  /' | tail -n 12
	if [ -n "${RESULTS_TSV:-}" ]; then
		if [ -s "$json" ]; then
			json_to_tsv "$json" "$suite"
		else
			printf 'kunit/%s\tfail\tkunit.py did not produce results (log: %s)\n' "$suite" "$log" >>"$RESULTS_TSV"
		fi
	fi
done < <(present_suites)
if [ $rc -ne 0 ]; then
	echo "[harness] kunit: FAIL: a KUnit suite failed or did not run -- see the logs in $build" >&2
	exit 1
fi
status "KUnit suites done"
