#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make check on series that must fail, each at the right patch and gate:
#   checkpatch   a patch with a checkpatch.pl error
#   build-break  the real mainline series' 0004 (builds), then a patch that does not
#   fuzz         a hunk that applies only with fuzz
#   offset       a hunk that applies only at an offset
# Fixtures: scripts/tests/fixtures/check/<case>/. The cases share the check
# work tree with make check (incremental builds). Appends
# "check-tests/<case>\tpass|fail\t<reason>" to $RESULTS_TSV when set.
. "$(dirname "$0")/../lib/lib.sh"
phase_start check-tests
S=$HARNESS_ROOT/scripts
F=$S/tests/fixtures/check
tmp=$OUT/tests/check-fixtures
rm -rf "$tmp"
mkdir -p "$tmp"

# expect <case> <patches dir> <patch> <gate> <text in the error output>
expect() {
	local case=$1 dir=$2 patch=$3 gate=$4 text=$5 log=$tmp/$1.log rc
	PATCHES=$dir CHECK_NAME=test-$case CHECK_X86=none CHECK_CLANG=0 "$S"/check.sh >"$log" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		result "check-tests/$case" fail "make check passed a series it must reject (log: $log)"
	elif ! grep -qF "ERROR: $patch: $gate:" "$log"; then
		result "check-tests/$case" fail "expected 'ERROR: $patch: $gate:', got: $(grep -m1 ERROR "$log" | cut -c1-160) (log: $log)"
	elif ! grep -qF -- "$text" "$log"; then
		result "check-tests/$case" fail "the output does not say '$text' (log: $log)"
	else
		result "check-tests/$case" pass ""
	fi
}

expect checkpatch "$F/checkpatch" 0001-genirq-Add-irq_check_fixture.patch checkpatch \
	"open brace '{' following function definitions go on the next line"

mkdir -p "$tmp/build-break"
cp "$F"/build-break/* "$tmp/build-break/"
first=$(sed -n '/^[^#]/p' "$F/build-break/series" | head -n 1)
cp "$HARNESS_ROOT/patches/mainline/$first" "$tmp/build-break/" ||
	result check-tests/build-break fail "the real series has no $first any more: update the fixture"
expect build-break "$tmp/build-break" 0099-genirq-Look-up-the-descriptor-with-a-helper-that-doe.patch arm64 \
	"irq_to_desc_checked"
# ... and the patch before it passed every gate ("ok" with a qualifier
# counts: its checkpatch cell is ok(1wv), the Originally-by: waiver).
ok='ok(\([^)]*\))?'
if ! grep -qE "^1 +$first +$ok +$ok +$ok " "$OUT/check/$BASE_NS/test-build-break/table.txt" 2>/dev/null; then
	result check-tests/build-break-first-patch fail "row 1 ($first) is not ok in $OUT/check/$BASE_NS/test-build-break/table.txt"
else
	result check-tests/build-break-first-patch pass ""
fi

# sparse and W=1 run as one make call over the touched files: a warning
# that only sparse reports must still stop the series.
expect sparse "$F/sparse" 0001-genirq-Add-irq_check_fixture_count.patch sparse/W=1 \
	"sparse: kernel/irq/manage.c: warning: symbol 'irq_check_fixture_count' was not declared"
expect fuzz "$F/fuzz" 0001-genirq-Say-at-least-one-in-irq_check_status_bit-s-co.patch apply \
	"applies only with fuzz"
expect offset "$F/offset" 0001-genirq-Say-at-least-one-in-irq_check_status_bit-s-co.patch apply \
	"(offset 10 lines)"

results_end
