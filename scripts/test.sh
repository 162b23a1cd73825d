#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make test: the project's tests, on both bases (README, "make test").
#  1. The harness itself: unit tests of its parsers and collectors on stored
#     fixtures (scripts/tests/unit), its behaviour on bad input and its
#     failure paths (scripts/tests/harness-tests.sh).
#  2. The run list under QEMU (runs below): the debug config (lockdep,
#     atomic-sleep checks), whose console must be free of splats,
#     and the production config (kvm-host), on VHE and nVHE hosts.
# Every selftest of every run counts as one test, and each run's boot and
# console scan as one more.
#  3. The KUnit suites of selftests/kunit.txt, each test case one test:
#     built into the debug kernel (they run at its boot, under lockdep) and
#     read from its console with kunit.py parse. make kunit runs them with
#     kunit.py run instead, in kunit.py's own kernel.
#  4. make check on the real series (one test per patch; x86_64 for the
#     final state only unless CHECK_X86=all; no clang build unless
#     CHECK_CLANG=1: it is make check's default, not make test's; each state
#     builds only the series' objects, CHECK_BUILD=objs, unless FULL=1),
#     make check on fixture series it must reject (scripts/tests/check-tests.sh)
#     and make export with a test identity (scripts/tests/export-test.sh).
#  4b. make modexport on both bases (scripts/modexport.sh): the modules of
#     Debian's arm64 config that the series' header changes reach, built as
#     external modules and linked by modpost against Debian's Module.symvers
#     plus the series' exports (an unexported symbol reached through an
#     inline fails it); one result per module directory.
#
#  5. A fixed subset of make mutants on mainline (TEST_MUTANTS): the named
#     tests must fail on kernels broken on purpose for them.
#
# TEST_RUNS selects the runs, each "<base>:<run>" (run: vhe nvhe debug
# debug-nvhe check check-tests export kunit mutants). Default: what the
# 2-core CI machine can do in its budget from an empty ccache (README, "make
# test"): on mainline, the primary series, one kernel build, the debug one
# (lockdep etc. + the KUnit suites at boot), serves the VHE run with the
# nested tests (debug) and the mutants; make check builds the objects of the
# series' .c files per patch; the 6.12 backport boots and runs the run list (vhe,
# with the nested tests, the production config), and make check's fixture
# series run on it (they are written against 6.12's files). FULL=1: every
# run on both bases: on mainline also the production-config runs (vhe,
# nvhe) and the debug kernel as an nVHE host (debug-nvhe), make check with
# a whole-kernel build per state, and every mutant on both bases.
#
# Results: $OUT/tests/results.tsv (test, pass|fail|skip|error, note) and
# $OUT/tests/junit.xml; ends with "N passed, N failed, N skipped" (errors,
# tests that could not run, count as failed and are named above it).
# Exit 0 all passed, 1 a test failed, 2 a harness error.
. "$(dirname "$0")/lib/lib.sh"
phase_start test
t0=$(date +%s)
case "${FULL:-0}" in 0|1) ;; *) die "FULL=$FULL: use FULL=1 (every run on both bases) or leave it unset" ;; esac
lanes=${TEST_LANES:-2}
case "$lanes" in 1|2) ;; *) die "TEST_LANES=$TEST_LANES: use 2 (make check and make export beside the builds, the default) or 1 (one run at a time)" ;; esac
# install: the README's set-up from a bare Debian 12 root, for real
# (scripts/tests/install-test.sh, as root); it runs in the background from
# the start, beside the first kernel build (its apt and dpkg work is I/O and
# network), and its results join the others at the end.
default_runs="install mainline:debug mainline:lava mainline:mutants mainline:check mainline:check-tests mainline:modexport mainline:export 6.12:vhe 6.12:prebuilt 6.12:modexport"
full_runs="install mainline:vhe mainline:debug mainline:lava mainline:mutants mainline:check mainline:check-tests mainline:modexport mainline:export mainline:nvhe mainline:debug-nvhe 6.12:vhe 6.12:prebuilt 6.12:modexport 6.12:check 6.12:export 6.12:nvhe 6.12:debug 6.12:mutants"
# lava: the debug run's Image and initramfs as a LAVA job, run by Debian's
# lava-dispatcher (lava-run), its results checked against the debug run's
# (test_lava_tests below, of its run list; FULL=1: all). prebuilt: Debian's
# own arm64 kernel package (scripts/ci/debian-kernel.sh) booted with the
# base's selftests, the series' own tests skipped (test_prebuilt_only)
# except those of selftests/any-kernel-<base>.txt, which skip what the
# kernel lacks; reg_migrate there restores the registers the vhe (or debug)
# run saved.
test_lava_tests="vgic_init pv_state kvm_binary_stats_test"
[ "${FULL:-0}" = 1 ] && test_lava_tests=""
test_prebuilt_only="arch_timer vgic_init vgic_irq kvm_binary_stats_test pv_state hypercalls reg_migrate"
# make mutants runs every mutant (Documentation/harness.rst; its time is in
# the README); make test runs a fixed subset that fits the CI budget, one
# mutant per run-list area, after the debug run, on its config, so that
# their incremental builds reuse its objects (ccache): each costs about a
# minute warm. TEST_MUTANTS="" runs none; FULL=1 runs all.
test_mutants=${TEST_MUTANTS-pending-fast-path-lies cache-ignores-lpis-disabled pv-never-set}
[ "${FULL:-0}" = 1 ] && test_mutants=${TEST_MUTANTS-}
check_build=${CHECK_BUILD:-objs}
[ "${FULL:-0}" = 1 ] && check_build=${CHECK_BUILD:-full}
if [ "${FULL:-0}" = 1 ]; then runs=${TEST_RUNS:-$full_runs}; else runs=${TEST_RUNS:-$default_runs}; fi
# Every entry is checked before the first run: a typo must not cost the
# runs before it.
for br in $runs; do
	case "$br" in *:*) b=${br%%:*} r=${br#*:} ;; *) b=$BASE r=$br ;; esac
	case " $BASES " in *" $b "*) ;; *) die "TEST_RUNS: '$br': unknown base '$b'" "bases: $BASES" ;; esac
	case "$r" in install|vhe|nvhe|debug|debug-nvhe|check|check-tests|modexport|export|kunit|mutants|lava|prebuilt) ;; *)
		die "TEST_RUNS: '$br': unknown run '$r'" "runs: install vhe nvhe debug debug-nvhe check check-tests modexport export kunit mutants lava prebuilt" ;;
	esac
done
# And every mutant name, before the hour of runs that precedes the mutants,
# with the check make mutants itself makes (mutants.py list --only).
[ -z "$test_mutants" ] ||
	python3 "$HARNESS_ROOT"/scripts/lib/mutants.py list "$HARNESS_ROOT"/selftests/mutants/mainline \
		--runlist "$HARNESS_ROOT"/selftests/runlist-qemu.txt --kunit "$HARNESS_ROOT"/selftests/kunit.txt \
		--only "$test_mutants" >/dev/null ||
	die "TEST_MUTANTS='$test_mutants' rejected" "name mutants of selftests/mutants/mainline (make mutants' MUTANTS names)"
lock_out
S=$HARNESS_ROOT/scripts
export RESULTS_TSV=$OUT/tests/results.tsv
mkdir -p "$OUT/tests"
rm -f "$OUT/tests/exit-status" "$OUT/tests/junit.xml"
: >"$RESULTS_TSV"
touch "$OUT/tests/started"

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

# Disk: per base the base cache, one copied and several hard-linked work
# trees and their build directories, and a transient git checkout for the
# export proof: about TEST_DISK_GB (12) GB under $OUT at the peak for both
# bases (6.5 GB measured from a fresh clone with the 6.12 base alone), LAVA
# root included. Say so now, before any download, not an hour in.
need_disk "${TEST_DISK_GB:-12}" || { echo 2 >"$OUT/tests/exit-status"; echo "0 passed, 1 failed, 0 skipped"; exit 2; }
# Every package of every phase, here (make check's sparse, make export's
# b4, make lava's LAVA root under OUT): a fresh machine installs them once, in this phase, not inside the
# phases whose time the README reports.
LAVA=1 "$S"/deps.sh ||
	{ echo 2 >"$OUT/tests/exit-status"; echo "0 passed, 1 failed, 0 skipped"; exit 2; }

# 0. The install test, in the background (its own results file and log).
install_pid=""
case " $runs " in *" install "*|*":install "*)
	: >"$OUT/tests/install.tsv"
	RESULTS_TSV=$OUT/tests/install.tsv "$S"/tests/install-test.sh >"$OUT/tests/install.log" 2>&1 &
	install_pid=$!
	info "install test started in the background (log: ${OUT#"$PWD"/}/tests/install.log)" ;;
esac

# 1. The harness's unit tests (seconds, no kernel), then its behaviour on
#    bad input (needs the base tree, and a kernel Image for the guest
#    hang/panic cases: those run after the first QEMU run built it).
phase_done deps
"$S"/tests/unit.sh
phase_done harness-unit
"$S"/tests/lint.sh || true
phase_done harness-lint
"$S"/tests/harness-tests.sh input
phase_done "harness-input"

# 2. The run list on each host mode / config: run_one <base> <name> VAR=value...
harness_errors=0
run_one() {
	local base=$1 name=$2
	shift 2
	local log=$OUT/tests/run-$base-$name.log rc
	local rdir=$OUT/results/$base/test-$name id
	id=$base-$name-$(date +%s)-$$
	info "run $base/$name: $* (log: $log)"
	env BASE="$base" RUN_NAME="test-$name" RUN_ID="$id" "$@" "$S"/run.sh 2>&1 | tee "$log" |
		grep --line-buffered -E '^\[harness\] [a-z]+: |^\[harness\] boot:   '
	rc=${PIPESTATUS[0]}
	# Only this run's summary counts: run.sh removed the old one before
	# anything else, and the summary carries this run's id.
	if ! python3 "$S"/lib/collect.py run "$rdir/summary.json" "$base/$name" "$id" >>"$RESULTS_TSV"; then
		printf '%s\terror\t%s\n' "$base/$name/run" \
			"exit $rc before the guest reported: $(grep -m1 'ERROR' "$log" | cut -c1-200)" >>"$RESULTS_TSV"
		harness_errors=$((harness_errors + 1))
	fi
}

# make check on the real series; one result per table row.
run_check() {
	local base=$1 log=$OUT/tests/check-$1.log rows=$OUT/check/$1/check/rows.tsv
	info "make check BASE=$base (CHECK_X86=${CHECK_X86:-final} CHECK_CLANG=${CHECK_CLANG:-0}; log: $log)"
	rm -f "$rows"
	# The clang build of the final state is make check's, not make test's:
	# 11 minutes of a cold run for warnings only clang gives, in a handful of
	# files (Documentation/check-export.rst, "make test").
	BASE=$base CHECK_X86=${CHECK_X86:-final} CHECK_CLANG=${CHECK_CLANG:-0} CHECK_BUILD=$check_build "$S"/check.sh 2>&1 | tee "$log" |
		grep --line-buffered -E '^\[harness\] (check|check-tests): |ERROR' || true
	if [ -s "$rows" ]; then
		python3 "$S"/lib/collect.py check "$rows" "$base" "$log" >>"$RESULTS_TSV" ||
			printf '%s/check/rows\terror\tcannot read %s\n' "$base" "$rows" >>"$RESULTS_TSV"
	elif ! grep -q '^\[harness\] check: the series in .* is empty' "$log"; then
		printf '%s/check/rows\terror\tmake check wrote no table rows (%s)\n' "$base" "$log" >>"$RESULTS_TSV"
	fi
	if grep -q '^\[harness\] check: the series in .* is empty' "$log"; then
		printf '%s/check/series\tskip\tempty series: nothing to check\n' "$base" >>"$RESULTS_TSV"
	elif ! grep -q '^\[harness\] check: series passes every gate' "$log"; then
		printf '%s/check/series\tfail\t%s\n' "$base" "$(grep -m1 'ERROR' "$log" | cut -c1-200)" >>"$RESULTS_TSV"
	fi
}

# debug_fragments <base>: the debug kernel's fragments (kvm-host, debug and
# the KUnit suites built in), written once per base; empty on failure (the
# caller reports it).
debug_fragments() {
	local frag=$OUT/work/$1/patched/kunit-boot.config
	if [ ! -f "$frag.done" ]; then
		BASE=$1 VARIANT=patched "$S"/kunit.sh fragment "$frag" >"$OUT/tests/kunit-fragment-$1.log" 2>&1 || return 1
		touch "$frag.done"
	fi
	echo "kvm-host debug $frag"
}
rm -f "$OUT"/work/*/patched/kunit-boot.config.done
# run_entry <base:run>: one run of the list, its rows in RESULTS_TSV and
# its seconds in PHASES_TSV.
run_entry() {
	local br=$1 b r
	case "$br" in
		*:*) b=${br%%:*} r=${br#*:} ;;
		*) b=$BASE r=$br ;;
	esac
	boots=1
	case "$r" in
		install) return 0 ;;  # started in the background above
		kunit) BASE=$b "$S"/kunit.sh || true; boots= ;;  # kunit.py run (not in the default list)
		check) run_check "$b"; boots= ;;
		check-tests) BASE=$b CHECK_BUILD=$check_build "$S"/tests/check-tests.sh || true; boots= ;;
		mutants)
			boots=
			if [ "${FULL:-0}" != 1 ] && [ -z "$test_mutants" ]; then
				printf '%s/mutants\tskip\tTEST_MUTANTS is empty\n' "$b" >>"$RESULTS_TSV"
			else
				# On the debug run's config when it is among the runs:
				# its objects are in ccache.
				mfrag=kvm-host
				case " $runs " in *" $b:debug "*|*" $b:debug-nvhe "*) mfrag=$(debug_fragments "$b") || mfrag=kvm-host ;; esac
				info "make mutants BASE=$b MUTANTS='$test_mutants' FRAGMENTS='$mfrag' (log: $OUT/tests/mutants-$b.log)"
				BASE=$b MUTANTS="$test_mutants" FRAGMENTS="$mfrag" "$S"/mutants.sh >"$OUT/tests/mutants-$b.log" 2>&1 || true
				grep '^\[harness\] mutants: mutant .*: ' "$OUT/tests/mutants-$b.log" || true
				if ! grep -q "^$b/mutants/" "$RESULTS_TSV"; then
					printf '%s/mutants\terror\t%s\n' "$b" \
						"no mutant result: $(grep -m1 ERROR "$OUT/tests/mutants-$b.log" | cut -c1-200)" >>"$RESULTS_TSV"
					harness_errors=$((harness_errors + 1))
				fi
			fi ;;
		export) BASE=$b "$S"/tests/export-test.sh || true; boots= ;;
		modexport)
			# Debian's modules that the series reaches, linked by modpost
			# against Debian's Module.symvers (Documentation/check-export.rst,
			# "Module exports"): rows <base>/modexport/<dir>.
			boots=
			info "make modexport BASE=$b (log: $OUT/tests/modexport-$b.log)"
			BASE=$b "$S"/modexport.sh >"$OUT/tests/modexport-$b.log" 2>&1 || true
			grep -E '^\[harness\] modexport: (.*(PASS|FAIL)|.*ERROR: modpost)' "$OUT/tests/modexport-$b.log" || true
			if ! grep -q "^$b/modexport/" "$RESULTS_TSV"; then
				printf '%s/modexport\terror\t%s\n' "$b" \
					"no modexport result: $(grep -m1 ERROR "$OUT/tests/modexport-$b.log" | cut -c1-200)" >>"$RESULTS_TSV"
				harness_errors=$((harness_errors + 1))
			fi ;;
		vhe)
			# The nested tests (L2=1: Debian's QEMU in the guest, an
			# L2 guest) run where the debug run is, mainline's in the
			# default list; on another base's vhe run only with FULL=1
			# or when the list has no debug run (README, "make test").
			vl2=1
			if [ "${FULL:-0}" != 1 ]; then
				case " $runs " in
					*" $b:debug "*) ;;
					*":debug "*) vl2=0 ;;
				esac
			fi
			run_one "$b" vhe HOST_MODE=vhe FRAGMENTS=kvm-host L2=$vl2 ;;
		prebuilt)
			# reg_migrate restores what the patched kernel's run (vhe, or
			# debug) saved: its "regsave" lines from that run's TAP stream.
			# (The guest sees a file by its name: /harness/files/<name>.)
			saved=$OUT/tests/prebuilt-$b/reg_migrate.saved gf=""
			rm -f "$saved"
			mkdir -p "$OUT/tests/prebuilt-$b"
			for pr in vhe debug; do
				tap=$OUT/results/$b/test-$pr/tap.txt
				case " $runs " in *" $b:$pr "*) ;; *) continue ;; esac
				[ -f "$tap" ] && grep 'regsave 0x' "$tap" >"$saved" && break
			done
			if [ -s "$saved" ]; then
				gf=$saved
				info "prebuilt: reg_migrate restores $(wc -l <"$saved") registers saved by $b:$pr"
			elif grep -qs "^reg_migrate " "$HARNESS_ROOT/selftests/any-kernel-$b.txt"; then
				# Without saved registers it would only save again.
				printf '%s/prebuilt/reg_migrate-restore\tskip\t%s\n' "$b" \
					"no registers saved by $b:vhe or $b:debug in this make test (TEST_RUNS)" >>"$RESULTS_TSV"
			fi
			run_one "$b" prebuilt KERNEL_IMAGE=debian FRAGMENTS=kvm-host L2=0 ONLY="$test_prebuilt_only" GUEST_FILES="$gf" ;;
		lava)
			boots=
			lr=test-debug
			[ -f "$OUT/results/$b/$lr/artefacts/Image" ] || lr=test-vhe
			info "make lava BASE=$b LAVA_RUN=$lr LAVA_TESTS='$test_lava_tests' (log: $OUT/tests/lava-$b.log)"
			n0=$(grep -c "^$b/lava/" "$RESULTS_TSV" || true)
			BASE=$b LAVA_RUN=$lr LAVA_TESTS="$test_lava_tests" "$S"/ci/lava-run.sh >"$OUT/tests/lava-$b.log" 2>&1 || true
			grep '^\[harness\] lava: ' "$OUT/tests/lava-$b.log" | tail -n 3
			if [ "$(grep -c "^$b/lava/" "$RESULTS_TSV" || true)" -eq "$n0" ]; then
				printf '%s/lava/job\terror\t%s\n' "$b" "no LAVA result: $(grep -m1 ERROR "$OUT/tests/lava-$b.log" | cut -c1-200)" >>"$RESULTS_TSV"
				harness_errors=$((harness_errors + 1))
			fi ;;
		nvhe) run_one "$b" nvhe HOST_MODE=nvhe FRAGMENTS=kvm-host L2=1 ;;
		debug|debug-nvhe)
			# The KUnit suites are built into the debug kernel and
			# run at its boot, under lockdep and atomic-sleep checks;
			# debug-nvhe boots the same kernel as an nVHE host.
			mode=vhe; [ "$r" = debug-nvhe ] && mode=nvhe
			if frags=$(debug_fragments "$b"); then
				run_one "$b" "$r" HOST_MODE=$mode FRAGMENTS="$frags" L2=1
			else
				printf '%s\terror\t%s\n' "$b/$r/run" "no KUnit fragment: $(grep -m1 ERROR "$OUT/tests/kunit-fragment-$b.log")" >>"$RESULTS_TSV"
				harness_errors=$((harness_errors + 1))
			fi
			[ "$r" = debug ] && [ -f "$OUT/results/$b/test-debug/console.log" ] &&
				{ BASE=$b VARIANT=patched "$S"/kunit.sh parse "$OUT/results/$b/test-debug/console.log" || true; } ;;
	esac
}
# Two lanes (TEST_LANES=2): make check, its fixture cases and make export
# build little at a time (one object per patch state, checkpatch, sparse,
# git am: mostly one core), so they can run in a second lane beside the
# kernel builds and boots of the first, from the start (the bases they need
# are prepared before it starts). Their own work trees and logs; rows
# appended to the same results file; the lane's log is out/tests/lane-b.log
# and its phases are "lane-b:<base>:<run>". The default since 2026-12-08:
# the comparison that had made one lane the default set two runs of
# different series against each other (7893f85's debug run and lane, 2455 s
# together, against fe573df's 1846 s one after the other). Cold, on 2
# cores: 7893f85's two lanes reached the end of the mutants at 3275 s with
# make check, its fixtures and make export done; one lane (a846f8b,
# 2026-12-08, its kernel build slowed by other work on the machine) reached
# it at 2412 s with those three (over 1100 s cold) still to run. About four
# minutes to the lanes, not a measurement of the same code: the cold run
# that follows this change says (README, "make test"). TEST_LANES=1: one
# run at a time.
side_runs="" main_runs=""
for br in $runs; do
	case "$lanes:${br#*:}" in
		2:check|2:check-tests|2:export) side_runs="$side_runs $br" ;;
		*) main_runs="$main_runs $br" ;;
	esac
done
lane_b_pid=""
start_lane_b() {
	local br b
	[ -n "$side_runs" ] && [ -z "$lane_b_pid" ] || return 0
	for br in $side_runs; do  # every base it uses, prepared here, in this lane
		case "$br" in *:*) b=${br%%:*} ;; *) b=$BASE ;; esac
		BASE=$b "$S"/phases/base-tree.sh >"$OUT/tests/lane-b-base-$b.log" 2>&1 ||
			printf '%s/base\terror\t%s\n' "$b" "lane b: no base tree: $(grep -m1 ERROR "$OUT/tests/lane-b-base-$b.log" | cut -c1-200)" >>"$RESULTS_TSV"
	done
	info "lane b: ${side_runs# } beside the runs (log: ${OUT#"$PWD"/}/tests/lane-b.log)"
	(
		t_phase=$(date +%s) harness_errors=0
		for br in $side_runs; do
			run_entry "$br"
			phase_done "lane-b:$br"
		done
		echo "$harness_errors" >"$OUT/tests/lane-b.errors"
	) >"$OUT/tests/lane-b.log" 2>&1 &
	lane_b_pid=$!
}
rm -f "$OUT/tests/lane-b.errors"
start_lane_b
for br in $main_runs; do
	run_entry "$br"
	case "${br#*:}" in install) continue ;; esac
	phase_done "$br"
	# The guest hang/panic cases need an Image; the first run that boots
	# built one.
	if [ -n "$boots" ] && [ -z "${guest_cases_done:-}" ]; then
		case "$br" in *:*) gb=${br%%:*} ;; *) gb=$BASE ;; esac
		BASE=$gb "$S"/tests/harness-tests.sh guest
		guest_cases_done=1
		phase_done harness-guest
	fi
done
if [ -n "$lane_b_pid" ]; then
	t_wait=$(date +%s)
	wait "$lane_b_pid" || true
	grep -E '^\[harness\] (check|check-tests|export-test|test): .*(PASS|FAIL|ERROR|series passes|passed)' "$OUT/tests/lane-b.log" | tail -n 20 || true
	if [ -s "$OUT/tests/lane-b.errors" ]; then
		harness_errors=$((harness_errors + $(cat "$OUT/tests/lane-b.errors")))
	else
		printf 'harness/lane-b\terror\t%s\n' "the second lane ended without its count (log: $OUT/tests/lane-b.log)" >>"$RESULTS_TSV"
		harness_errors=$((harness_errors + 1))
	fi
	info "lane b: waited $(($(date +%s) - t_wait))s for it (log: ${OUT#"$PWD"/}/tests/lane-b.log)"
	phase_done lane-b-wait
fi

# The install test's results (it has run beside the others).
if [ -n "$install_pid" ]; then
	t_wait=$(date +%s)
	irc=0
	wait "$install_pid" || irc=$?
	cat "$OUT/tests/install.tsv" >>"$RESULTS_TSV"
	grep -E '^\[harness\] install-test: (PASS|FAIL|SKIP|ERROR)' "$OUT/tests/install.log" || true
	[ "$irc" -le 1 ] || printf 'install/harness\terror\t%s\n' "install-test.sh exit $irc: $(grep -m1 ERROR "$OUT/tests/install.log" | cut -c1-200)" >>"$RESULTS_TSV"
	info "install test: waited $(($(date +%s) - t_wait))s for it (log: ${OUT#"$PWD"/}/tests/install.log)"
	phase_done install-wait
fi

# Each cached base must be exactly as unpacked (scripts/phases/base-verify.sh).
for b in $BASES; do
	[ -f "$OUT/state/$b/base.env" ] || continue
	if v=$(BASE=$b "$S"/phases/base-verify.sh 2>&1); then
		printf 'harness/base-cache-untouched-%s\tpass\t%s\n' "$b" "$v" >>"$RESULTS_TSV"
	else
		printf 'harness/base-cache-untouched-%s\tfail\t%s\n' "$b" "$v" >>"$RESULTS_TSV"
	fi
done
phase_done base-cache-check
info "disk: $(du -sh "$OUT" 2>/dev/null | cut -f1) in $OUT, $(df -h --output=avail "$OUT" | tail -n 1 | tr -d ' ') free"

# Every run's KCIDB file (and make lava's, its LAVA job's results), merged
# into one a CI can submit, and checked.
mapfile -t kfiles < <(find "$OUT/results" \( -path '*/test-*/kcidb.json' -o -path '*/lava-test-*/kcidb.json' \) -newer "$OUT/tests/started" 2>/dev/null | sort)
if [ ${#kfiles[@]} -gt 0 ]; then
	if python3 "$S"/ci/kcidb.py --merge "${kfiles[@]}" -o "$OUT/tests/kcidb.json" 2>"$OUT/tests/kcidb.err"; then
		printf 'harness/kcidb\tpass\t%s\n' "$OUT/tests/kcidb.json: ${#kfiles[@]} runs, KCIDB v5.3 rules hold (scripts/ci/kcidb.py --check)" >>"$RESULTS_TSV"
	else
		printf 'harness/kcidb\tfail\t%s\n' "$(head -c 200 "$OUT/tests/kcidb.err")" >>"$RESULTS_TSV"
	fi
fi
python3 "$S"/lib/collect.py junit "$RESULTS_TSV" "$OUT/tests/junit.xml" || harness_errors=$((harness_errors + 1))
echo
echo "==== make test results ===="
awk -F'\t' '{ printf "%-52s %-5s %s\n", $1, toupper($2), $3 }' "$RESULTS_TSV"
pass=$(awk -F'\t' '$2 == "pass"' "$RESULTS_TSV" | wc -l)
fail=$(awk -F'\t' '$2 == "fail"' "$RESULTS_TSV" | wc -l)
err=$(awk -F'\t' '$2 == "error"' "$RESULTS_TSV" | wc -l)
skip=$(awk -F'\t' '$2 == "skip"' "$RESULTS_TSV" | wc -l)
echo "[harness] test: seconds per phase: $(awk -F'\t' '{ printf "%s%s %s", sep, $1, $2; sep = ", " }' "$PHASES_TSV")"
echo "[harness] test: finished in $(( $(date +%s) - t0 ))s; details in ${OUT}/tests (junit.xml) and ${OUT}/results"
[ "$err" -gt 0 ] && echo "[harness] test: $err of the failed could not run (ERROR above)"
echo "$pass passed, $((fail + err)) failed, $skip skipped"
rc=0
[ "$fail" -eq 0 ] && [ "$err" -eq 0 ] || rc=1
[ "$harness_errors" -gt 0 ] && rc=2
# make turns any failure into its own status 2; .ci/run reads this one.
echo "$rc" >"$OUT/tests/exit-status"
exit "$rc"
