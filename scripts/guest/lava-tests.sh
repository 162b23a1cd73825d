#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In a LAVA test shell (the job of scripts/ci/lava.py): run entries of the
# initramfs's resolved run list (/harness/runlist.tsv: the skip lists and
# timeouts of the make run that built it) with run-tests.sh, and record each
# as a LAVA test case as soon as its result is printed, its seconds as the
# case's measurement: a guest that dies half-way (panic=-1) keeps the cases
# before it.
#
#   lava-tests.sh [test...]     the named entries (default: all)
#
# Results: pass, fail, or skip (a skip entry or a kselftest SKIP). The TAP
# stream is printed too, as it comes; LAVA's log keeps it.
list=/harness/runlist.tsv
tab=$(printf '\t')
if [ $# -gt 0 ]; then
	sel=/tmp/lava-runlist.tsv
	: >"$sel"
	for t in "$@"; do
		grep -E "^(run|skip)$tab$t(@[0-9]+)?$tab" "$list" >>"$sel" ||
			{ echo "lava-tests.sh: '$t' is not in $list"; lava-test-case "$t" --result fail; }
	done
	list=$sel
fi

# record: read the TAP stream ("ok N selftests: <suite>: <name>[ # SKIP
# ...]", "not ok N ...", the runner's "# harness: duration <name> <s>s"
# after a test that ran), echo it, and call lava-test-case per result.
record() {
	cur="" res=""
	while IFS= read -r line; do
		printf '%s\n' "$line"
		case "$line" in
		"# harness: duration "*)
			# shellcheck disable=SC2086
			set -- $line
			if [ -n "$cur" ] && [ "$cur" = "$4" ]; then
				lava-test-case "$cur" --result "$res" --measurement "${5%s}" --units seconds
				cur=""
			fi ;;
		"ok "*|"not ok "*)
			# A result whose test printed no duration line (not built,
			# the runner died): recorded without a measurement.
			[ -z "$cur" ] || lava-test-case "$cur" --result "$res"
			case "$line" in "not ok "*) res=fail ;; *) res=pass ;; esac
			case "$line" in *" # SKIP"*|*" # skip"*) res=skip ;; esac
			cur=${line#* selftests: }
			cur=${cur#*: }
			cur=${cur%% *}
			# A skip entry has no duration line: record it now.
			[ "$res" = skip ] && { lava-test-case "$cur" --result skip; cur=""; } ;;
		esac
	done
	[ -z "$cur" ] || lava-test-case "$cur" --result "$res"
}
/harness/run-tests.sh "$list" /kselftest 2>&1 | record
exit 0
