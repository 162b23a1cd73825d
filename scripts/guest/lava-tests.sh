#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In a LAVA test shell (the job of scripts/ci/lava.py): run entries of the
# initramfs's resolved run list (/harness/runlist.tsv: the skip lists and
# timeouts of the make run that built it) with run-tests.sh, and record each
# as a LAVA test case, its seconds as the case's measurement.
#
#   lava-tests.sh [test...]     the named entries (default: all)
#
# Results: pass, fail, or skip (a skip entry or a kselftest SKIP). The TAP
# stream is printed too; LAVA's log keeps it.
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
/harness/run-tests.sh "$list" /kselftest >/tmp/lava-tap.txt 2>&1
cat /tmp/lava-tap.txt
# "ok N selftests: <suite>: <name>[ # SKIP ...]", "not ok N ...", and the
# runner's "# harness: duration <name> <s>s" after each test.
secs=""
while read -r line; do
	case "$line" in
	"# harness: duration "*)
		# shellcheck disable=SC2086
		set -- $line
		name=$4 secs=${5%s}
		[ -n "$res" ] && [ "$cur" = "$name" ] &&
			lava-test-case "$name" --result "$res" --measurement "$secs" --units seconds
		res="" cur="" ;;
	"ok "*|"not ok "*)
		case "$line" in "not ok "*) res=fail ;; *) res=pass ;; esac
		case "$line" in *" # SKIP"*|*" # skip"*) res=skip ;; esac
		cur=${line#* selftests: }; cur=${cur#*: }; cur=${cur%% *}
		# A skip entry has no duration line: record it now.
		case "$line" in *" # SKIP"*) lava-test-case "$cur" --result skip; res="" cur="" ;; esac ;;
	esac
done </tmp/lava-tap.txt
# A test that ended without a duration line (the runner died): fail it.
[ -n "$cur" ] && lava-test-case "$cur" --result fail
exit 0
