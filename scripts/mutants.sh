#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make mutants: every test of the series shown to fail on a kernel broken on
# purpose. Each mutant (selftests/mutants/<base>/NNN-<name>.patch, format in
# scripts/lib/mutants.py) is a patch on top of the base's whole series that
# breaks one property; the tests its header names must all fail on it.
#
# For each mutant: the series plus the mutant in the work tree "mutant"
# (apply-series.sh pops only the previous mutant, so the kernel build is
# incremental), then
#   - named run-list tests: one boot (run.sh, ONLY=<them>, L2=1 when an l2-
#     test is named), every named test must fail;
#   - named KUnit suites/cases: kunit.py run on the same tree (kunit.sh,
#     restricted to them), every named one must fail.
# Result per mutant: killed (pass), survived (fail: a named test passed on
# the broken kernel, so the test does not check what it claims), error (a
# named test did not run: the mutant did not apply or build, or the guest
# did not get there). Writes $RESULTS_DIR/mutants/{results.tsv,table.txt,
# summary.json,junit.xml} and appends "<base>/mutants/<name>" rows to
# $RESULTS_TSV when make test sets it.
#
#   MUTANTS="a b"   only these mutants (by name)
#   MUTANTS_DIR     default selftests/mutants/<base>
#   FRAGMENTS       default kvm-host; HOST_MODE, GIC, SMP, MEM as make run
# Exit status: 0 every mutant killed, 1 one survived or showed nothing,
# 2 harness error.
. "$(dirname "$0")/lib/lib.sh"
set -e
S=$HARNESS_ROOT/scripts
PHASE=mutants
t_start=$(date +%s)
MUTANTS_DIR=$(abspath "${MUTANTS_DIR:-$HARNESS_ROOT/selftests/mutants/$BASE}")
export FRAGMENTS=${FRAGMENTS:-kvm-host} HOST_MODE=${HOST_MODE:-vhe} GIC=${GIC:-3}
export SMP=${SMP:-2} MEM=${MEM:-2G}
RUNLIST=$(abspath "${RUNLIST:-$HARNESS_ROOT/selftests/runlist-qemu.txt}")
KLIST=$HARNESS_ROOT/selftests/kunit.txt

# Inputs first, in seconds: the machine, the mutant headers (tests known to
# the run list and the KUnit list), the names asked for.
validate_machine_inputs
[ -d "$MUTANTS_DIR" ] || die "MUTANTS_DIR=$MUTANTS_DIR does not exist" "no mutants for BASE=$BASE yet"
resolve_patches
plan=$(python3 "$S"/lib/mutants.py list "$MUTANTS_DIR" --runlist "$RUNLIST" --kunit "$KLIST" \
	--only "${MUTANTS:-}") || die "mutant list rejected" "fix the mutant named above"
lock_out

out=$RESULTS_DIR/mutants
rm -rf "$out"
mkdir -p "$out/runs"
tsv=$out/results.tsv
: >"$tsv"
# The series each mutant is applied with: the base's series and the
# project's own patches (linked once; a mutant may break code or a test aid
# of either), then the mutant (its link and the series file change per
# mutant).
sdir=$WORK/mutant-series
rm -rf "$sdir"
mkdir -p "$sdir"
with_project_patches "$PATCHES" "$(project_patches_dir)" "$sdir"
mv "$sdir/series" "$sdir/base-series"
# Already in the series above
export PROJECT_PATCHES=""
"$S"/deps.sh
"$S"/phases/base-tree.sh
total=$(echo "$plan" | wc -l)
i=0
while IFS=$'\t' read -r file name st ku; do
	i=$((i + 1))
	m_start=$(date +%s)
	info "mutant $i/$total: $name (tests: $(echo "$st" "$ku" | tr -d '\n' | sed 's/^- //; s/ -$//'))"
	rm -f "$sdir"/zz-mutant-*
	ln -s "$MUTANTS_DIR/$file" "$sdir/zz-mutant-$file"
	{ cat "$sdir/base-series"; echo "zz-mutant-$file"; } >"$sdir/series"
	log=$out/runs/$name.log
	tests=""
	summary="" id="" ktsv=""
	if [ "$st" != - ]; then
		l2=0
		case " $st " in *" l2-"*) l2=1 ;; esac
		id=mutant-$name-$(date +%s)-$$
		summary=$RESULTS_DIR/mutant-$name/summary.json
		tests="$st"
		env VARIANT=mutant PATCHES="$sdir" RUN_NAME="mutant-$name" RUN_ID="$id" ONLY="$st" L2=$l2 \
			RUNLIST="$RUNLIST" "$S"/run.sh >"$log" 2>&1 || true
	fi
	if [ "$ku" != - ]; then
		ktsv=$out/runs/$name-kunit.tsv
		: >"$ktsv"
		klist=$out/runs/$name-kunit.txt
		for k in $ku; do grep -E "^${k%%.*}[[:space:]]" "$KLIST"; done | sort -u >"$klist"
		for k in $ku; do tests="$tests kunit:$k"; done
		env VARIANT=mutant PATCHES="$sdir" KUNIT_LIST="$klist" RESULTS_TSV="$ktsv" \
			"$S"/kunit.sh run >>"$log" 2>&1 || true
	fi
	v=$(python3 "$S"/lib/mutants.py verdict --tests "$tests" ${summary:+--summary "$summary" --run-id "$id"} \
		${ktsv:+--kunit-tsv "$ktsv"})
	res=${v%%$'\t'*} note=${v#*$'\t'}
	if [ "$res" = error ] && grep -q 'ERROR' "$log"; then
		note="$note; $(grep -m1 'ERROR' "$log" | cut -c1-160)"
	fi
	note="$note ($(( $(date +%s) - m_start )) s; log: runs/$name.log)"
	printf 'mutants/%s\t%s\t%s\n' "$name" "$res" "$note" >>"$tsv"
	status "mutant $name: $(case $res in pass) echo killed ;; fail) echo SURVIVED ;; *) echo error ;; esac): $note"
done <<<"$plan"

python3 "$S"/lib/mutants.py report "$tsv" "$out" >/dev/null
python3 "$S"/lib/collect.py junit "$tsv" "$out/junit.xml"
[ -n "${RESULTS_TSV:-}" ] && sed "s|^|$BASE_NS/|" "$tsv" >>"$RESULTS_TSV"
cat "$out/table.txt"
info "make mutants: $(tail -n 1 "$out/table.txt") in $(( $(date +%s) - t_start )) s ($out)"
grep -qv $'\tpass\t' "$tsv" && exit 1
exit 0
