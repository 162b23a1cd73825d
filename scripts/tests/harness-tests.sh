#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The harness's own behaviour on bad input and on its failure paths. Each
# case runs the real script, asserts its exit status (2 harness error, 1 test
# failure, 3 for boot-qemu.sh's guest failures) and the message a user
# needs, and appends "<name>\tpass|fail\t<detail>" to $RESULTS_TSV (or
# prints it, when run alone). Exits 1 if a case failed.
#
#   harness-tests.sh input   cases that need at most the base tree (seconds
#                            to a minute; make harness-test)
#   harness-tests.sh guest   cases that boot the built kernel (hang, panic,
#                            silent guest) or need its selftests
# The parsers, collectors, report and QEMU command line have unit tests of
# their own (scripts/tests/unit.sh).
. "$(dirname "$0")/../lib/lib.sh"
phase_start harness-tests
S=$HARNESS_ROOT/scripts
FX=$HARNESS_ROOT/scripts/tests/fixtures
LOGS=$OUT/tests/harness
mkdir -p "$LOGS"
# One run of these cases at a time per OUT: two make harness-test at once
# shared $LOGS and failed each other's cases. (Not the OUT lock: make test,
# which holds that one, runs these cases itself.) fd 8: out.sh's lock_out takes 9.
exec 8>"$LOGS/.lock"
flock -n 8 || die "another make harness-test is using OUT=$OUT ($LOGS/.lock)" "wait for it to finish, or use another OUT=<dir>"

# expect NAME RC REGEX -- CMD...: CMD must exit with status RC ("nonzero" for
# any non-zero status) and print a line matching REGEX (stdout or stderr).
expect() {
	local name=$1 want=$2 regex=$3
	shift 4
	local log=$LOGS/$name.log rc=0
	timeout "${EXPECT_TIMEOUT:-900}" "$@" >"$log" 2>&1 || rc=$?
	expect_check "$name" "$want" "$regex" "$rc"
}

# expect_bg NAME -- CMD...: start CMD in the background for a later
# expect_wait (a case that mostly waits for a timeout runs beside others).
expect_bg() {
	local name=$1
	shift 2
	( rc=0; timeout "${EXPECT_TIMEOUT:-900}" "$@" >"$LOGS/$name.log" 2>&1 || rc=$?; echo "$rc" >"$LOGS/$name.rc" ) &
	eval "EXPECT_BG_$(echo "$name" | tr -c 'A-Za-z0-9\n' _)=$!"
}

# expect_wait NAME RC REGEX: wait for expect_bg NAME, then judge it as expect.
expect_wait() {
	local name=$1 v
	v=EXPECT_BG_$(echo "$name" | tr -c 'A-Za-z0-9\n' _)
	wait "${!v}"
	expect_check "$name" "$2" "$3" "$(cat "$LOGS/$name.rc" 2>/dev/null || echo 0)"
}

# expect_check NAME RC REGEX STATUS: the verdict of expect on $LOGS/NAME.log.
expect_check() {
	local name=$1 want=$2 regex=$3 rc=$4
	local log=$LOGS/$name.log
	if [ "$rc" -eq 0 ]; then
		result "harness/$name" fail "exited 0 (log: $log)"
		return 1
	fi
	if [ "$want" != nonzero ] && [ "$rc" -ne "$want" ]; then
		result "harness/$name" fail "exit status $rc, expected $want (log: $log)"
		return 1
	fi
	if ! grep -qE -- "$regex" "$log"; then
		result "harness/$name" fail "no line matching '$regex' (log: $log)"
		return 1
	fi
	result "harness/$name" pass "exit $rc, '$(grep -m1 -E -- "$regex" "$log" | cut -c1-110)'"
}

# expect_ok NAME REGEX -- CMD...: CMD must exit 0 and print a line matching
# REGEX.
expect_ok() {
	local name=$1 regex=$2
	shift 3
	local log=$LOGS/$name.log rc=0
	timeout "${EXPECT_TIMEOUT:-900}" "$@" >"$log" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ]; then
		result "harness/$name" fail "exit status $rc, expected 0: $(grep -m1 ERROR "$log" | cut -c1-120) (log: $log)"
		return 1
	fi
	if ! grep -qE -- "$regex" "$log"; then
		result "harness/$name" fail "no line matching '$regex' (log: $log)"
		return 1
	fi
	result "harness/$name" pass "'$(grep -m1 -E -- "$regex" "$log" | cut -c1-110)'"
}

# sigterm_case <name> <dir> cmd...: start cmd (which starts <dir>'s stand-in
# QEMU, writing its pid to <dir>/pid), SIGTERM cmd, and check that the
# stand-in is gone too.
sigterm_case() {
	local name=$1 fq=$2 pid
	shift 2
	rm -f "$fq/pid"
	"$@" >"$fq/$name.log" 2>&1 &
	pid=$!
	for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s "$fq/pid" ] && break; sleep 1; done
	kill -TERM "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	sleep 2
	if [ -s "$fq/pid" ] && ! kill -0 "$(cat "$fq/pid")" 2>/dev/null; then
		result "harness/$name" pass "the stand-in QEMU is gone with its script"
	else
		result "harness/$name" fail "QEMU (pid $(cat "$fq/pid" 2>/dev/null)) outlived its script ($(tail -n 1 "$fq/$name.log"))"
		[ -s "$fq/pid" ] && kill -9 "$(cat "$fq/pid")" 2>/dev/null
	fi
}

input_cases() {
	# The two series in step: every mainline-series patch backported once
	# by a 6.12 patch that names it by number and subject.
	if python3 "$S"/tests/series-in-step.py "$HARNESS_ROOT/patches/mainline" "$HARNESS_ROOT/patches/6.12" \
		>"$LOGS/series-in-step.log" 2>&1; then
		result harness/series-in-step pass "$(grep -c '^Backport of mainline-series' "$HARNESS_ROOT"/patches/6.12/0*.patch | grep -vc ':0$') 6.12 patches backport the mainline series' $(series_list "$HARNESS_ROOT/patches/mainline" | wc -l)"
	else
		result harness/series-in-step fail "$(head -n 1 "$LOGS/series-in-step.log")"
	fi
	# Mutant headers: each names tests the run list or the KUnit list has.
	for b in $BASES; do
		[ -d "$HARNESS_ROOT/selftests/mutants/$b" ] || continue
		if n=$(python3 "$S"/lib/mutants.py list "$HARNESS_ROOT/selftests/mutants/$b" \
			--runlist "$HARNESS_ROOT/selftests/runlist-qemu.txt" \
			--kunit "$HARNESS_ROOT/selftests/kunit.txt" 2>"$LOGS/mutants-$b.log" | wc -l) && [ "$n" -gt 0 ]; then
			result "harness/mutant-headers-$b" pass "$n mutants"
		else
			result "harness/mutant-headers-$b" fail "$(head -n 1 "$LOGS/mutants-$b.log")"
		fi
	done
	expect kernel-src-missing 2 'ERROR: KERNEL_SRC=/nonexistent/linux does not exist' -- \
		env KERNEL_SRC=/nonexistent/linux "$S"/run.sh
	expect kernel-src-not-a-tree 2 'is not a Linux kernel tree' -- \
		env KERNEL_SRC="$HARNESS_ROOT/scripts" "$S"/run.sh
	expect bad-base 2 'BASE=7.4: use BASE=mainline .* or BASE=6.12' -- \
		env BASE=7.4 "$S"/run.sh
	expect bad-host-mode 2 'HOST_MODE=hvhe: use vhe or nvhe' -- \
		env HOST_MODE=hvhe "$S"/run.sh

	# Every input of make run is checked before any download or build:
	# each of these must fail within seconds (EXPECT_TIMEOUT), not after a
	# kernel build.

	# The script's own status survives make: out/status/<target> (in an
	# OUT the harness made).
	local st
	st=$(mktemp -d "$LOGS/status.XXXXXX")
	touch "$st/.harness-owned"
	make -s -C "$HARNESS_ROOT" run SMP=0 OUT="$st" >"$LOGS/status-bad.log" 2>&1
	local bad_rc=$? bad_st
	bad_st=$(cat "$st/status/run" 2>/dev/null)
	make -s -C "$HARNESS_ROOT" clean OUT="$st" >"$LOGS/status-ok.log" 2>&1
	if [ "$bad_rc" = 2 ] && [ "$bad_st" = 2 ] && [ "$(cat "$st/status/clean" 2>/dev/null)" = 0 ]; then
		result harness/make-status-file pass "make run with SMP=0: make 2, status/run 2; make clean: status/clean 0"
	else
		result harness/make-status-file fail "make $bad_rc, status/run '$bad_st', then status/clean '$(cat "$st/status/clean" 2>/dev/null)' (logs: $LOGS/status-*.log)"
	fi
	rm -rf "$st"
	# make refuses a variable no target reads, in its own parse (scripts/lib/params.tsv),
	# and make help gives every variable of that table a line.
	EXPECT_TIMEOUT=10 expect make-unknown-variable 2 'unknown variable\(s\) on the command line: (ARCH FRAGMENTZ|FRAGMENTZ ARCH) --' -- \
		make -s -C "$HARNESS_ROOT" run DRY_RUN=1 ARCH=x86_64 FRAGMENTZ=debug
	local missing="" v
	make -s -C "$HARNESS_ROOT" help >"$LOGS/make-help.log" 2>&1
	for v in $(python3 "$S"/lib/help.py --names); do
		grep -qE "^  $v +\[" "$LOGS/make-help.log" || missing="$missing $v"
	done
	if [ -z "$missing" ]; then result harness/make-help-variables pass "$(python3 "$S"/lib/help.py --names | wc -w) variables, one line each"
	else result harness/make-help-variables fail "no make help line for:$missing"; fi
	# No long step is silent (a progress line every PROGRESS_SECONDS), and
	# the harness's make command line does not reach the kernel builds.
	local plog=$LOGS/progress.log
	# (holding a lock as lock_out does: the ticker must not keep it afterwards)
	if bash -c '. "$1"/scripts/lib/lib.sh; exec 9>"$2.lock"; flock 9; PROGRESS_SECONDS=1 with_progress probe "$2.cmd" sleep 2.6' _ "$HARNESS_ROOT" "$plog" >"$plog" 2>&1 &&
	   [ "$(grep -c 'probe: [0-9]*s, ' "$plog")" -ge 2 ] && flock -n "$plog.lock" true; then
		result harness/progress-lines pass "$(grep -c 'probe: ' "$plog") progress lines over 2.6 s at PROGRESS_SECONDS=1, the lock free at once after"
	else
		result harness/progress-lines fail "$(head -c 200 "$plog")"
	fi
	if [ "$(env MAKEFLAGS='ARCH=x86_64 V=1 -j9' MAKEOVERRIDES='ARCH=x86_64' bash -c '. "$1"/scripts/lib/lib.sh; echo "${MAKEFLAGS-unset}${MAKEOVERRIDES-unset}"' _ "$HARNESS_ROOT")" = unsetunset ]; then
		result harness/makeflags-not-passed pass "MAKEFLAGS and MAKEOVERRIDES unset for the builds"
	else
		result harness/makeflags-not-passed fail "lib.sh leaves make's command line in the environment"
	fi
	EXPECT_TIMEOUT=30 expect bad-repeat 2 'REPEAT=0: use a whole number of runs, 1 or more' -- env REPEAT=0 "$S"/run.sh
	EXPECT_TIMEOUT=30 expect early-only-misspelt 2 "ONLY: 'vgic_iniit' is not in" -- env ONLY=vgic_iniit "$S"/run.sh
	EXPECT_TIMEOUT=30 expect early-smp 2 'SMP=0: use a whole number >= 1' -- env SMP=0 "$S"/run.sh
	EXPECT_TIMEOUT=30 expect early-mem 2 'MEM=lots: use a size like 2G' -- env MEM=lots "$S"/run.sh
	# This run holds the harness-test lock: a second run stops at once.
	EXPECT_TIMEOUT=30 expect harness-test-locked 2 'another make harness-test is using OUT=' -- "$S"/tests/harness-tests.sh input
	EXPECT_TIMEOUT=30 expect early-gicv2-smp 2 'SMP=9 with GIC=2: a GICv2 machine has at most 8 CPUs' -- env GIC=2 SMP=9 "$S"/run.sh
	EXPECT_TIMEOUT=30 expect early-test-mutants 2 "no mutant 'pv-never-sett' in .*selftests/mutants/mainline" -- env TEST_MUTANTS=pv-never-sett "$S"/test.sh
	local clang_have
	clang_have=$(clang_version)
	if [ -n "$clang_have" ] && ! version_ge "$clang_have" 17.0.1; then
		EXPECT_TIMEOUT=30 expect early-llvm-old-clang 2 'LLVM=1: BASE=mainline .* needs clang >= 17.0.1' -- env BASE=mainline LLVM=1 "$S"/run.sh
	else
		result harness/early-llvm-old-clang skip "clang ${clang_have:-absent}: nothing to refuse here"
	fi
	EXPECT_TIMEOUT=30 expect early-boot-timeout 2 'BOOT_TIMEOUT=abc: use a whole number' -- env BOOT_TIMEOUT=abc "$S"/run.sh
	# lib.sh's functions that die (exit 2) do so in the subshell of a
	# command substitution: every "$(fn)" of them must stop its caller too
	# (hw-pv-ab.sh copied an empty path on, newcomer trial 2026-12-02).
	local unguarded
	unguarded=$(cd "$HARNESS_ROOT" && grep -nE '[^=]"\$\(busybox_arm64\)"' scripts/*.sh scripts/phases/*.sh scripts/lib/*.sh scripts/ci/*.sh scripts/tests/*.sh || true)
	if [ -z "$unguarded" ]; then result harness/die-in-substitution pass "every \$(busybox_arm64) assigns and stops on failure"
	else result harness/die-in-substitution fail "used inline: $(echo "$unguarded" | head -n 3 | tr '\n' ' ')"; fi
	# The unit tests leave nothing in TMPDIR (they left 16 directories in
	# /tmp per run, newcomer trial 2026-12-02).
	local ut=$LOGS/unit-tmpdir
	rm -rf "$ut" && mkdir -p "$ut"
	TMPDIR=$ut python3 "$HARNESS_ROOT/scripts/tests/unit/run.py" >/dev/null 2>&1
	if [ -z "$(ls -A "$ut")" ]; then result harness/unit-tests-leave-no-temp pass "TMPDIR empty after the unit tests"
	else result harness/unit-tests-leave-no-temp fail "left in TMPDIR: $(ls -A "$ut" | head -n 5 | tr '\n' ' ')"; fi
	rm -rf "$ut"
	# A full disk is named as one (apt's "Failed to fetch ... No space left
	# on device" read as "check the network", newcomer trial 2026-12-02).
	printf 'E: Failed to fetch http://x/Packages  Write error - write (28: No space left on device)\n' >"$LOGS/enospc.log"
	local fix
	fix=$(bash -c '. "$1"/lib.sh; log_fix "$2" "check the network"' _ "$S/lib" "$LOGS/enospc.log" 2>&1)
	if [[ $fix == "the disk is full"*"free space on /"* ]]; then result harness/full-disk-named pass "$fix"
	else result harness/full-disk-named fail "fix named: $fix"; fi
	EXPECT_TIMEOUT=30 expect early-mutants-name 2 "MUTANTS: no mutant 'pv-never-sett'" -- env MUTANTS=pv-never-sett "$S"/mutants.sh
	# One rule for the private apt lists (apt.sh's private_apt): three
	# scripts built theirs by hand (newcomer read-through, 2026-12-03).
	local own_lists
	own_lists=$(cd "$HARNESS_ROOT" && grep -nE 'Dir::Etc::SourceList|Dir::State::Lists' scripts/*.sh scripts/phases/*.sh scripts/lib/*.sh scripts/ci/*.sh | grep -v '^scripts/lib/apt.sh:' || true)
	if [ -z "$own_lists" ]; then result harness/private-apt-one-rule pass "every private apt list comes from apt.sh's private_apt"
	else result harness/private-apt-one-rule fail "built by hand: $(echo "$own_lists" | head -n 3 | tr '\n' ' ')"; fi
	# A read-only OUT: a harness error that says so (it was a raw bash
	# message and exit 1).
	local ro=$LOGS/ro-out
	mkdir -p "$ro"
	if mount -t tmpfs -o ro,size=1m tmpfs "$ro" 2>/dev/null; then
		EXPECT_TIMEOUT=30 expect out-read-only 2 'cannot create OUT=.*read-only file system' -- env OUT="$ro/out" "$S"/run.sh
		umount "$ro"
	else
		result harness/out-read-only skip "cannot mount a read-only tmpfs here (not root, or no mount permission)"
	fi
	# A prebuilt kernel and make lava: bad input refused in seconds.
	# KERNEL_SRC and PATCHES before the lock, any deletion or download, also
	# in a dry run and for bench, check and kunit.
	EXPECT_TIMEOUT=30 expect early-kernel-src-dry-run 2 'KERNEL_SRC=/nonexistent/linux does not exist' -- env KERNEL_SRC=/nonexistent/linux "$S"/run.sh --dry-run
	EXPECT_TIMEOUT=30 expect early-bench-patches 2 'PATCHES=/nonexistent/series has no series file' -- env PATCHES=/nonexistent/series "$S"/bench.sh
	EXPECT_TIMEOUT=30 expect early-check-patches 2 'PATCHES=/nonexistent/series does not exist' -- env PATCHES=/nonexistent/series "$S"/check.sh
	EXPECT_TIMEOUT=30 expect early-kunit-src 2 'KERNEL_SRC=/nonexistent/linux does not exist' -- env KERNEL_SRC=/nonexistent/linux "$S"/kunit.sh
	EXPECT_TIMEOUT=30 expect early-kernel-image 2 'KERNEL_IMAGE=/nonexistent/Image does not exist' -- env KERNEL_IMAGE=/nonexistent/Image "$S"/run.sh
	EXPECT_TIMEOUT=30 expect early-kernel-image-magic 2 'is not an arm64 Image' -- env KERNEL_IMAGE="$HARNESS_ROOT/README.md" "$S"/run.sh
	EXPECT_TIMEOUT=30 expect early-kernel-has-series 2 'KERNEL_HAS_SERIES=yes: use 1' -- env KERNEL_HAS_SERIES=yes "$S"/run.sh
	EXPECT_TIMEOUT=30 expect early-kernel-modules-alone 2 'KERNEL_CONFIG/KERNEL_MODULES without KERNEL_IMAGE' -- env KERNEL_MODULES=/tmp "$S"/run.sh
	EXPECT_TIMEOUT=30 expect early-lava-run 2 "no make run named 'no-such-run'" -- env LAVA_RUN=no-such-run "$S"/ci/lava-run.sh
	EXPECT_TIMEOUT=30 expect early-lava-url 2 'LAVA_URL_BASE=ftp://x: use https://' -- env LAVA_URL_BASE=ftp://x "$S"/ci/lava-run.sh
	EXPECT_TIMEOUT=30 expect lava-unknown-arg 2 "unknown argument\(s\) '--dry-run'" -- "$S"/ci/lava-run.sh --dry-run
	# make lava-jobs needs no make run for the hardware template (it
	# demanded a QEMU debug run); the QEMU job is skipped with the way to
	# get one. The template carries the base.
	if EXPECT_TIMEOUT=60 expect_ok lava-jobs-without-run "QEMU job skipped: no make run named 'no-such-run'" -- \
		env BASE=6.12 LAVA_RUN=no-such-run "$S"/ci/lava-run.sh --jobs-only; then
		local hwj=$OUT/results/6.12/lava-jobs/hw-job.yaml
		if grep -q 'make hw-run BASE=6.12 ' "$hwj" 2>/dev/null && [ ! -e "$(dirname "$hwj")/qemu" ]; then
			result harness/lava-jobs-hw-base pass "hw-job.yaml runs make hw-run BASE=6.12; no qemu/"
		else
			result harness/lava-jobs-hw-base fail "$hwj: no 'make hw-run BASE=6.12', or a qemu/ job without a run"
		fi
	fi
	EXPECT_TIMEOUT=30 expect early-watchdog 2 'WATCHDOG=-5: use a whole number' -- env WATCHDOG=-5 "$S"/run.sh
	EXPECT_TIMEOUT=30 expect early-jobs 2 'JOBS=0: use a whole number of parallel jobs' -- env JOBS=0 "$S"/run.sh
	EXPECT_TIMEOUT=30 expect early-l2 2 'L2=yes: use 1' -- env L2=yes "$S"/run.sh
	EXPECT_TIMEOUT=30 expect early-runlist 2 'RUNLIST=.*no-such-list.txt not found' -- env RUNLIST=no-such-list.txt "$S"/run.sh
	EXPECT_TIMEOUT=30 expect early-skiplists 2 'SKIPLISTS: /nonexistent/skip.txt not found' -- \
		env SKIPLISTS=/nonexistent/skip.txt "$S"/run.sh
	EXPECT_TIMEOUT=30 expect early-fragment 2 "config fragment 'nosuch' not found" -- env FRAGMENTS="kvm-host nosuch" "$S"/run.sh
	EXPECT_TIMEOUT=30 expect unsafe-run-name 2 "RUN_NAME='..' is not a plain name" -- env RUN_NAME=.. "$S"/run.sh
	# Guessed dry runs and help flags are refused, never run for real.
	EXPECT_TIMEOUT=30 expect run-unknown-arg 2 "run.sh: unknown argument\(s\) '--dryrun'" -- "$S"/run.sh --dryrun
	EXPECT_TIMEOUT=30 expect check-arg 2 "check.sh takes no arguments \('--help'\)" -- "$S"/check.sh --help
	# A target no rule makes names make help (issue 55).
	EXPECT_TIMEOUT=30 expect unknown-target 2 "no target 'rnu' here -- make help lists" -- make -s -C "$HARNESS_ROOT" rnu
	EXPECT_TIMEOUT=30 expect hw-pv-ab-dry-run-value 2 'DRY_RUN=yes: use DRY_RUN=1' -- \
		make -s -C "$HARNESS_ROOT" hw-pv-ab DRY_RUN=yes
	EXPECT_TIMEOUT=30 expect_ok run-dry-run "^make run ONLY='vgic_init'$" -- make -s -C "$HARNESS_ROOT" run DRY_RUN=1 ONLY=vgic_init
	# ... and says what it would fetch, build and boot (it printed only the
	# reproducer: newcomer trial L2, 2026-12-07).
	EXPECT_TIMEOUT=30 expect_ok run-dry-run-plan "dry run: kernel: build with fragments 'kvm-host' .* min" -- make -s -C "$HARNESS_ROOT" run DRY_RUN=1 ONLY=vgic_init

	# A child started with another BASE (make test runs both bases from
	# one process) takes its own base's series, not its parent's default.
	got=$(env -u PATCHES BASE=mainline bash -c '. "$1"/lib.sh; BASE=6.12 bash -c ". \"\$1\"/lib.sh; echo \$PATCHES" _ "$1"' _ "$S/lib")
	if [ "$got" = "$HARNESS_ROOT/patches/6.12" ]; then
		result harness/series-per-base pass "BASE=6.12 under a BASE=mainline parent: patches/6.12"
	else
		result harness/series-per-base fail "BASE=6.12 under a BASE=mainline parent got PATCHES=$got"
	fi

	# Directories the harness would rm -rf: never one it did not make.
	EXPECT_TIMEOUT=30 expect unsafe-export-dir-home 2 'EXPORT_DIR=.* holds .*refusing to remove it' -- \
		env EXPORT_DIR="${HOME:-/root}" "$S"/export.sh
	rm -rf "$LOGS/foreign" && mkdir -p "$LOGS/foreign" && echo keep >"$LOGS/foreign/notes.txt"
	EXPECT_TIMEOUT=30 expect unsafe-export-dir-foreign 2 'exists, is not empty and was not made by the harness' -- \
		env EXPORT_DIR="$LOGS/foreign" "$S"/export.sh
	if [ -f "$LOGS/foreign/notes.txt" ]; then result harness/unsafe-export-dir-kept pass "the foreign directory is intact"
	else result harness/unsafe-export-dir-kept fail "export removed a directory it did not make"; fi

	# One harness command per OUT: a second one is refused at once.
	local lk=$LOGS/locked-out
	rm -rf "$lk" && mkdir -p "$lk"
	# (the holder as in clean_cases: the sleep itself, without fd 8)
	( exec 8>&- 9>"$lk/.lock"; flock 9; exec sleep 60 ) &
	local holder=$!
	sleep 1
	EXPECT_TIMEOUT=30 expect out-locked 2 "another harness command is using OUT=$lk" -- \
		env -u HARNESS_LOCKED OUT="$lk" "$S"/run.sh
	kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null

	# A rerun that fails before the guest reports leaves no summary of an
	# earlier run behind (make test would have counted it as this run's).
	local stale=$OUT/results/$BASE-src/test-stale
	mkdir -p "$stale"
	echo '{"run": "test-stale", "run_id": "an-earlier-run", "details": []}' >"$stale/summary.json"
	cp "$stale/summary.json" "$OUT/results/summary.json"
	# (a tree that passes the input checks, which come before any deletion,
	# and fails later: the series does not apply to it)
	local hollow=$LOGS/hollow-tree
	rm -rf "$hollow"
	mkdir -p "$hollow/arch/arm64/kvm" "$hollow/tools/testing/selftests/kvm"
	printf 'VERSION = 7\nPATCHLEVEL = 3\nSUBLEVEL = 4\nEXTRAVERSION =\n' >"$hollow/Makefile"
	if expect stale-summary-rerun 2 'ERROR' -- \
		env KERNEL_SRC="$hollow" RUN_NAME=test-stale L2=0 "$S"/run.sh; then
		if [ ! -e "$stale/summary.json" ] && [ ! -e "$OUT/results/summary.json" ]; then
			result harness/stale-summary-removed pass "no summary.json survives a failed rerun"
		else
			result harness/stale-summary-removed fail "a previous run's summary.json is still there"
		fi
	fi

	# A make target does not see the harness's internal variables from the
	# user's shell (an exported BUILD_DIR moved every build).
	if [ "$(env BUILD_DIR=/elsewhere DISK=/a.img OUT="$OUT" "$S"/status.sh probe bash -c 'echo "${BUILD_DIR-unset} ${DISK-unset}"')" = "unset unset" ]; then
		result harness/internal-vars-not-inherited pass "BUILD_DIR and DISK from the shell are unset for make's targets"
	else
		result harness/internal-vars-not-inherited fail "status.sh passes BUILD_DIR/DISK on"
	fi
	# One reproducer for every target (repro.sh's reproducer, from params.tsv):
	# hw-run's names the skip lists, the tree and the series too (it left
	# them out, newcomer trial 2026-12-02).
	local hr
	hr=$(env SKIPLISTS=/s.txt EXTRA_SKIPLISTS=/e.txt KERNEL_SRC=/k PATCHES=/p ONLY=vgic_init \
		bash -c '. "$1"/scripts/lib/lib.sh; reproducer hw-run' _ "$HARNESS_ROOT" 2>&1)
	if [ "$hr" = "make hw-run KERNEL_SRC='/k' PATCHES='/p' SKIPLISTS='/s.txt' EXTRA_SKIPLISTS='/e.txt' ONLY='vgic_init'" ]; then
		result harness/reproducer-hw-run pass "$hr"
	else
		result harness/reproducer-hw-run fail "got: $hr"
	fi
	# The reproducer names every input that differs from its default.
	if env L2=1 L2_IMAGES="old=$HARNESS_ROOT/README.md" SKIPLISTS="$HARNESS_ROOT/selftests/skip-base-6.12.txt" \
		BOOT_TIMEOUT=100 WATCHDOG=2000 "$S"/run.sh --dry-run >"$LOGS/repro.log" 2>&1; then
		miss=""
		for v in "L2='1'" "L2_IMAGES='old=" "SKIPLISTS='" "BOOT_TIMEOUT='100'" "WATCHDOG='2000'"; do
			grep -qF "$v" "$LOGS/repro.log" || miss="$miss $v"
		done
		if [ -z "$miss" ]; then result harness/reproducer-complete pass "$(cut -c1-100 "$LOGS/repro.log")"
		else result harness/reproducer-complete fail "missing:$miss (log: $LOGS/repro.log)"; fi
	else
		result harness/reproducer-complete fail "run.sh --dry-run failed (log: $LOGS/repro.log)"
	fi

	# make hw-run --dry-run on a fresh OUT (no state, no skip list for the
	# base): the commands, exit 0.
	rm -rf "$LOGS/fresh-out"
	for b in $BASES; do
		if env -u HARNESS_LOCKED BASE="$b" OUT="$LOGS/fresh-out" "$S"/hw-run.sh --dry-run >"$LOGS/hw-dry-$b.log" 2>&1 &&
		   grep -q 'run_kselftest.sh -t kvm:.*arch_timer -o' "$LOGS/hw-dry-$b.log"; then
			result "harness/hw-run-dry-run-fresh-$b" pass "$(grep -c 'run_kselftest.sh' "$LOGS/hw-dry-$b.log") commands printed"
		else
			result "harness/hw-run-dry-run-fresh-$b" fail "no runner commands (log: $LOGS/hw-dry-$b.log)"
		fi
	done
	rm -rf "$LOGS/fresh-out"

	# hw-run's kernel log: a dmesg that cannot be read is a warning and a
	# note in console.log, never a silent end of the run.
	mkdir -p "$LOGS/shim"
	printf '#!/bin/sh\necho "dmesg: read kernel buffer failed: Operation not permitted" >&2\nexit 1\n' >"$LOGS/shim/dmesg"
	chmod +x "$LOGS/shim/dmesg"
	if PATH="$LOGS/shim:$PATH" bash -c '. "$1"/lib.sh; set -e; kernel_log_since 0 "$2"; echo "after: rc=$?"' _ "$S/lib" \
		"$LOGS/kernel-log.txt" >"$LOGS/kernel-log.log" 2>&1 &&
	   grep -q 'after: rc=0' "$LOGS/kernel-log.log" && grep -q 'kernel log not readable' "$LOGS/kernel-log.txt"; then
		result harness/kernel-log-unreadable pass "warning and a note, the run goes on"
	else
		result harness/kernel-log-unreadable fail "$(tail -n 2 "$LOGS/kernel-log.log" | tr '\n' ' ')"
	fi

	# The static-link guard: a dynamically linked arm64 binary is found
	# without 'file' (which deps.sh does not install); a static one is not.
	rm -rf "$LOGS/elf" && mkdir -p "$LOGS/elf/kvm"
	printf 'int main(void) { return 0; }\n' >"$LOGS/elf/t.c"
	if aarch64-linux-gnu-gcc -o "$LOGS/elf/kvm/dyn" "$LOGS/elf/t.c" 2>"$LOGS/elf/cc.log" &&
	   aarch64-linux-gnu-gcc -static -o "$LOGS/elf/kvm/stat" "$LOGS/elf/t.c" 2>>"$LOGS/elf/cc.log"; then
		# PATH: every command of /usr/bin and /bin but 'file'.
		rm -rf "$LOGS/elf/nofile" && mkdir -p "$LOGS/elf/nofile"
		for tool in /bin/* /usr/bin/*; do
			case "${tool##*/}" in file) continue ;; esac
			ln -sf "$tool" "$LOGS/elf/nofile/${tool##*/}"
		done
		got=$(PATH="$LOGS/elf/nofile" "$BASH" -c '. "$1"/lib.sh; dynamic_binaries "$2"' _ "$S/lib" "$LOGS/elf/kvm" 2>&1)
		if [ "$got" = dyn ]; then result harness/static-link-guard pass "dyn found, stat not, no 'file' on PATH"
		else result harness/static-link-guard fail "got '$got'"; fi
	else
		result harness/static-link-guard fail "cannot compile the fixture binaries ($LOGS/elf/cc.log)"
	fi

	# SIGTERM to boot-qemu.sh stops QEMU too, and run-l2.sh (in the L1
	# guest, stopped by run-tests.sh's timeout) stops its QEMU: both with a
	# stand-in QEMU on this host.
	local fq=$LOGS/fake-qemu
	mkdir -p "$fq"
	printf '#!/bin/sh\necho $$ >"%s/pid"\nexec sleep 300\n' "$fq" >"$fq/qemu-system-aarch64"
	chmod +x "$fq/qemu-system-aarch64"
	: >"$fq/Image"; : >"$fq/initrd"
	sigterm_case boot-qemu-sigterm "$fq" env QEMU="$fq/qemu-system-aarch64" KERNEL="$fq/Image" \
		INITRD="$fq/initrd" RUN_DIR="$fq/run" "$S"/phases/boot-qemu.sh
	sigterm_case run-l2-sigterm "$fq" env L2_QEMU="$fq/qemu-system-aarch64" L2_KVM=/dev/null \
		L2_INITRD="$fq/initrd" L2_TIMEOUT=300 sh "$S"/guest/l2/run-l2.sh -image "$fq/Image"

	# run-l2.sh -smp Nx counts the CPUs it may run on (make hw-pv-ab
	# confines it with taskset).
	local fa=$LOGS/fake-ab
	mkdir -p "$fa"
	printf '#!/bin/sh\necho "[l2] exit 0"\n' >"$fa/qemu"
	chmod +x "$fa/qemu"
	if taskset -c 0 env L2_QEMU="$fa/qemu" L2_KVM=/dev/null L2_INITRD="$fq/initrd" sh "$S"/guest/l2/run-l2.sh \
		-image "$fq/Image" -smp 3x -kargs a=1,b=2 -cmd ab:mmap:1:0:2 >"$fa/out" 2>&1 &&
	   grep -q -- '-smp 3 .* a=1 b=2 l2cmd=ab:mmap:1:0:2' "$fa/out"; then
		result harness/run-l2-smp-x pass "-smp 3x on one CPU: 3 vCPUs, -kargs passed"
	else
		result harness/run-l2-smp-x fail "wrong L2 command line (log: $fa/out)"
	fi

	# The base cache check compares contents with the manifest made at
	# unpack time: a changed or added file is found, whatever its mtime.
	local fb=$LOGS/fake-base
	rm -rf "$fb" && mkdir -p "$fb/linux/kernel"
	echo one >"$fb/linux/Makefile"; echo two >"$fb/linux/kernel/irq.c"
	if "$S"/phases/base-verify.sh --make "$fb" >"$fb.log" 2>&1 && "$S"/phases/base-verify.sh "$fb" >>"$fb.log" 2>&1; then
		echo changed >"$fb/linux/kernel/irq.c"
		touch -r "$fb/linux/Makefile" "$fb/linux/kernel/irq.c"
		echo new >"$fb/linux/kernel/new.c"
		if ! "$S"/phases/base-verify.sh "$fb" >"$fb.out" 2>&1 &&
		   grep -q 'changed: 1 file(s) differ from the manifest (./kernel/irq.c ), 1 added (./kernel/new.c )' "$fb.out"; then
			result harness/base-cache-modified-file pass "$(cut -c1-100 "$fb.out")"
		else
			result harness/base-cache-modified-file fail "$(cat "$fb.out")"
		fi
	else
		result harness/base-cache-modified-file fail "no manifest or an unchanged tree failed (log: $fb.log)"
	fi

	# The cases below work on a work tree of their own.
	"$S"/phases/base-tree.sh >"$LOGS/base.log" 2>&1 ||
		{ result harness/base-tree fail "cannot prepare the base tree (log: $LOGS/base.log)"; return; }
	. "$STATE/base.env"

	# A run-list test without source in the tree: skipped (with the patch
	# as reason) when a patch of the series adds it, an error otherwise.
	printf 'vgic_irqfd 300\n' >"$LOGS/rl-series.txt"
	if python3 "$S"/lib/runlist.py "$LOGS/rl-series.txt" --tree "$BASE_DIR" \
		--patches "$HARNESS_ROOT/patches/6.12" -o "$LOGS/rl-series.tsv" >/dev/null 2>&1 &&
	   grep -qP '^skip\tvgic_irqfd\tnot in this tree: \d{4}-[^ ]*vgic_irqfd[^ ]* adds it' "$LOGS/rl-series.tsv"; then
		result harness/runlist-test-from-series pass "vgic_irqfd on the base: skipped, $(cut -f3 "$LOGS/rl-series.tsv" | head -n 1 | cut -c1-80)"
	else
		result harness/runlist-test-from-series fail "$(cat "$LOGS/rl-series.tsv" 2>/dev/null | head -n 1)"
	fi
	# Nested (l2-*) entries: no tree lookup; skipped with the reason when
	# the initramfs has no nested kit, run when it has.
	printf 'vgic_irqfd 300\nl2-pv-guest 600 -smp 4 -expect present\n' >"$LOGS/rl-l2.txt"
	if python3 "$S"/lib/runlist.py "$LOGS/rl-l2.txt" --tree "$BASE_DIR" --patches "$HARNESS_ROOT/patches/6.12" \
		--no-l2 "nested tests off" -o "$LOGS/rl-l2-off.tsv" >/dev/null 2>&1 &&
	   grep -qP '^skip\tl2-pv-guest\tnested tests off$' "$LOGS/rl-l2-off.tsv" &&
	   python3 "$S"/lib/runlist.py "$LOGS/rl-l2.txt" --tree "$BASE_DIR" --patches "$HARNESS_ROOT/patches/6.12" \
		-o "$LOGS/rl-l2-on.tsv" >/dev/null 2>&1 &&
	   grep -qP '^run\tl2-pv-guest\t600\t-smp 4 -expect present$' "$LOGS/rl-l2-on.tsv"; then
		result harness/runlist-nested-entries pass "l2-pv-guest: skipped with the reason without L2, run with it"
	else
		result harness/runlist-nested-entries fail "$(cat "$LOGS/rl-l2-off.tsv" "$LOGS/rl-l2-on.tsv" 2>/dev/null | tr '\n' '|')"
	fi
	# Every mutant of the base applies, without fuzz, on the base plus its
	# whole series: only the files the series and the mutants touch are
	# copied from the base tree (a mutant written against an older series
	# fails here in seconds, not as an "error" row of make mutants).
	md=$HARNESS_ROOT/selftests/mutants/$BASE
	if [ -d "$md" ]; then
		mt=$LOGS/mutants-apply
		rm -rf "$mt" && mkdir -p "$mt/tree"
		# The series, then the project's own patches (mutants.sh applies
		# each mutant after both)
		pd=$HARNESS_ROOT/patches/$BASE
		prj=$(PROJECT_PATCHES="" project_patches_dir default)
		stack=$(series_list "$pd" | sed "s|^|$pd/|"
			[ -n "$prj" ] && series_list "$prj" | sed "s|^|$prj/|")
		bad=
		for f in $( (echo "$stack" | xargs cat; cat "$md"/*.patch) |
				sed -n 's|^+++ b/||p' | sort -u); do
			[ -f "$BASE_DIR/$f" ] && install -D -m 644 "$BASE_DIR/$f" "$mt/tree/$f"
		done
		for p in $stack; do
			patch -d "$mt/tree" -p1 -s -F0 -N <"$p" >>"$mt/log" 2>&1 || bad="$bad series:$(basename "$p")"
		done
		n=0
		for m in "$md"/*.patch; do
			n=$((n + 1))
			patch -d "$mt/tree" -p1 -s -F0 --dry-run <"$m" >>"$mt/log" 2>&1 || bad="$bad $(basename "$m")"
		done
		if [ -z "$bad" ]; then
			result "harness/mutants-apply-$BASE" pass "$n mutants apply on the series and the project's patches without fuzz"
		else
			result "harness/mutants-apply-$BASE" fail "do not apply:$bad (log: $mt/log)"
		fi
	fi
	printf 'vgic_irqdf 300\n' >"$LOGS/rl-typo.txt"
	expect runlist-misspelt-test 2 "test 'vgic_irqdf' has no source in .* and no patch in .* adds it" -- \
		python3 "$S"/lib/runlist.py "$LOGS/rl-typo.txt" --tree "$BASE_DIR" \
		--patches "$HARNESS_ROOT/patches/6.12" -o "$LOGS/unused.tsv"

	export VARIANT=harness-test
	# The fixture series alone: the project's own patches need the real one
	export PROJECT_PATCHES=""
	if expect patch-does-not-apply 2 \
		'0002-bad.patch: kernel/irq/manage.c: Hunk #1 FAILED at 1' -- \
		env PATCHES="$FX/bad-series" "$S"/phases/apply-series.sh; then
		# Nothing half-patched: the first (good) patch was rolled back too.
		if cmp -s "$WORK/$VARIANT/src/virt/lib/irqbypass.c" "$BASE_DIR/virt/lib/irqbypass.c" &&
		   [ ! -e "$WORK/$VARIANT/applied.env" ]; then
			result harness/failed-apply-leaves-base pass "work tree back at the base, no stamp"
		else
			result harness/failed-apply-leaves-base fail "work tree differs from the base after a failed apply"
		fi
	fi
	expect patch-needs-fuzz 2 '0001-fuzzy.patch applies only with fuzz; fuzz is an error here' -- \
		env PATCHES="$FX/fuzz-series" "$S"/phases/apply-series.sh
	if env PATCHES="$FX/empty-series" "$S"/phases/apply-series.sh >"$LOGS/empty-series.log" 2>&1; then
		result harness/empty-series-is-base pass "$(tail -n 1 "$LOGS/empty-series.log" | cut -c1-100)"
		expect fragment-symbol-dropped 2 \
			"CONFIG_KVM_INTEL: bad-fragment.config requests 'CONFIG_KVM_INTEL=y', final .config has '<absent" -- \
			env FRAGMENTS="kvm-host $FX/bad-fragment.config" "$S"/phases/config.sh
	else
		result harness/empty-series-is-base fail "an empty series did not apply (log: $LOGS/empty-series.log)"
	fi
	# Two series with a common first patch: only the top comes off (make
	# mutants), the shared patch's file is not rewritten.
	ps=$LOGS/prefix-b
	rm -rf "$ps" && cp -r "$FX/prefix-series" "$ps" &&
		printf '0001-good.patch\n0003-top-3.patch\n' >"$ps/series"
	if env PATCHES="$FX/prefix-series" "$S"/phases/apply-series.sh >"$LOGS/prefix-a.log" 2>&1 &&
	   m1=$(stat -c %Y.%y "$WORK/$VARIANT/src/virt/lib/irqbypass.c") && sleep 1 &&
	   env PATCHES="$ps" "$S"/phases/apply-series.sh >"$LOGS/prefix-b.log" 2>&1 &&
	   grep -q 'kept the first 1 patches applied; popped 1' "$LOGS/prefix-b.log" &&
	   grep -q 'top 3' "$WORK/$VARIANT/src/kernel/irq/manage.c" &&
	   ! grep -q 'top 2' "$WORK/$VARIANT/src/kernel/irq/manage.c" &&
	   [ "$(stat -c %Y.%y "$WORK/$VARIANT/src/virt/lib/irqbypass.c")" = "$m1" ]; then
		result harness/series-common-prefix-kept pass "$(grep -m1 kept "$LOGS/prefix-b.log" | cut -c1-100)"
	else
		result harness/series-common-prefix-kept fail "logs: $LOGS/prefix-a.log $LOGS/prefix-b.log"
	fi
	env PATCHES="$FX/empty-series" "$S"/phases/apply-series.sh >/dev/null 2>&1 || true
	expect hw-run-refuses-non-arm64 2 'hw-run: ERROR: .*(not an arm64 host|no writable /dev/kvm)' -- \
		"$S"/hw-run.sh
	expect hw-pv-ab-refuses-non-arm64 2 'hw-pv-ab: ERROR: .*(not an arm64 host|no writable /dev/kvm)' -- \
		"$S"/hw-pv-ab.sh
	expect hw-pv-ab-bad-cpus 2 'hw-pv-ab: ERROR: HW_CPUS=1-x is not a CPU list' -- \
		env HW_CPUS=1-x "$S"/hw-pv-ab.sh --dry-run
	if env HW_CPUS=2-5 "$S"/hw-pv-ab.sh --dry-run >"$LOGS/hw-pv-ab-dry.log" 2>&1 &&
	   grep -q 'mmap-ab-2to1-pin: taskset -c 2-5 run-l2.sh -smp 2x -mem 2048 -pin 1' "$LOGS/hw-pv-ab-dry.log" &&
	   grep -q '4 CPUs' "$LOGS/hw-pv-ab-dry.log"; then
		result harness/hw-pv-ab-dry-run pass "$(grep -c 'taskset' "$LOGS/hw-pv-ab-dry.log") guest boots printed"
	else
		result harness/hw-pv-ab-dry-run fail "dry run did not print the boots (log: $LOGS/hw-pv-ab-dry.log)"
	fi
	# make hw-emulated: bad input fails in seconds, before packages,
	# kernels or the root file system.
	expect hw-emulated-bad-step 2 "HW_STEPS: 'tested' is not patched or base" -- \
		env HW_STEPS="patched tested" "$S"/hw-emulated.sh
	expect hw-emulated-bad-bench 2 "HW_BENCH_ONLY='nope' rejected" -- \
		env HW_BENCH_ONLY=nope "$S"/hw-emulated.sh
	expect hw-emulated-bad-disk 2 'HW_DISK_SIZE=16: use a size in G' -- \
		env HW_DISK_SIZE=16 "$S"/hw-emulated.sh
	expect hw-emulated-bad-skiplist 2 'HW_SKIPLISTS: selftests/skip-none.txt not found' -- \
		env HW_SKIPLISTS=selftests/skip-none.txt "$S"/hw-emulated.sh
	expect hw-emulated-no-kernel-src 2 'make hw-emulated takes its base from the package' -- \
		env KERNEL_SRC=/nonexistent "$S"/hw-emulated.sh
	# BASE_DEB (a host without network): a missing file and another
	# package are refused, naming the package the pin wants.
	expect base-deb-missing 2 "BASE_DEB=$LOGS/none.deb is not a file" -- \
		env -u HARNESS_LOCKED -u KERNEL_SRC OUT="$LOGS/deb-out" BASE_DEB="$LOGS/none.deb" "$S"/phases/base-tree.sh
	expect base-deb-wrong 2 'BASE_DEB=.*README.md has sha256 .*, the base table pins' -- \
		env -u HARNESS_LOCKED -u KERNEL_SRC OUT="$LOGS/deb-out" BASE_DEB="$HARNESS_ROOT/README.md" "$S"/phases/base-tree.sh
	rm -rf "$LOGS/deb-out"
	# The root disk of make hw-emulated on the one QEMU command line.
	# (printf %q escapes the commas and blanks: compare without them)
	if env KERNEL=/k DISK=/d.img RUN_DIR="$LOGS/disk-boot" "$S"/phases/boot-qemu.sh --print-cmd 2>&1 |
		tr -d '\\' >"$LOGS/disk-cmd.log" &&
	   grep -q 'file=/d.img,format=raw,if=none,id=root -device virtio-blk-device,drive=root' "$LOGS/disk-cmd.log" &&
	   grep -q 'root=/dev/vda rw rootwait' "$LOGS/disk-cmd.log" && ! grep -q -- '-initrd' "$LOGS/disk-cmd.log"; then
		result harness/boot-disk-root pass "virtio-blk root, no initrd"
	else
		result harness/boot-disk-root fail "$(cat "$LOGS/disk-cmd.log")"
	fi
	# The kit's packages (arm64 host or KIT=1): native compiler, no cross
	# toolchain, no pinned TCG QEMU.
	kp=$("$S"/deps.sh --kit-packages)
	if echo " $kp " | grep -q ' gcc ' && ! echo "$kp" | grep -q aarch64-linux-gnu &&
	   ! KIT=1 "$S"/deps.sh --print | grep -q "$HOST_QEMU_SUITE"; then
		result harness/deps-kit-packages pass "$kp"
	else
		result harness/deps-kit-packages fail "kit: $kp; KIT=1 --print: $(KIT=1 "$S"/deps.sh --print)"
	fi
	# EXTRA_SKIPLISTS adds to the base's own skip lists (6.12: set_id_regs),
	# SKIPLISTS would replace them (make hw-emulated on 6.12 lost it so).
	if env -u SKIPLISTS BASE=6.12 EXTRA_SKIPLISTS=selftests/skip-hw-tcg.txt "$S"/hw-run.sh --dry-run \
		>"$LOGS/hw-extra-skip.log" 2>&1 && grep -q '3 skipped' "$LOGS/hw-extra-skip.log"; then
		result harness/hw-run-extra-skiplists pass "$(grep -m1 'dry run:' "$LOGS/hw-extra-skip.log" | cut -c1-90)"
	else
		result harness/hw-run-extra-skiplists fail "expected arch_timer, arch_timer_edge_cases and set_id_regs skipped (log: $LOGS/hw-extra-skip.log)"
	fi
	# A dry run of the kit leaves the results of a real run alone.
	pvab=$RESULTS_DIR/hw-pv-ab-$(uname -r)
	mkdir -p "$RESULTS_DIR/hw-keep" "$pvab" && echo keep >"$RESULTS_DIR/hw-keep/summary.json" &&
		echo keep >"$RESULTS_DIR/hw-bench-keep.json" && echo keep >"$pvab/ab.json"
	if env RUN_NAME=hw-keep "$S"/hw-run.sh --dry-run >"$LOGS/hw-keep.log" 2>&1 &&
	   env RUN_NAME=hw-bench-keep "$S"/hw-bench.sh --dry-run >>"$LOGS/hw-keep.log" 2>&1 &&
	   "$S"/hw-pv-ab.sh --dry-run >>"$LOGS/hw-keep.log" 2>&1 &&
	   [ -f "$RESULTS_DIR/hw-keep/summary.json" ] && [ -f "$RESULTS_DIR/hw-bench-keep.json" ] &&
	   [ -f "$pvab/ab.json" ]; then
		result harness/hw-dry-run-keeps-results pass "hw-run, hw-bench and hw-pv-ab dry runs"
	else
		result harness/hw-dry-run-keeps-results fail "a dry run removed a real run's results (log: $LOGS/hw-keep.log)"
	fi
	rm -rf "$RESULTS_DIR/hw-keep" "$RESULTS_DIR/hw-bench-keep.json" "$pvab"
	if "$S"/hw-run.sh --dry-run >"$LOGS/hw-dry-run.log" 2>&1 &&
	   grep -q 'run_kselftest.sh -t kvm:.*arch_timer -o' "$LOGS/hw-dry-run.log"; then
		result harness/hw-run-dry-run pass "$(grep -c 'run_kselftest.sh' "$LOGS/hw-dry-run.log") commands printed"
	else
		result harness/hw-run-dry-run fail "dry run did not print the runner commands (log: $LOGS/hw-dry-run.log)"
	fi

	# make test checks every TEST_RUNS entry before any run (a typo after
	# the first entry cost that whole run before).
	EXPECT_TIMEOUT=30 expect test-runs-typo 2 "TEST_RUNS: 'mainline:vhee': unknown run 'vhee'" -- \
		env TEST_RUNS="mainline:debug mainline:vhee" "$S"/test.sh
	EXPECT_TIMEOUT=30 expect test-runs-bad-base 2 "TEST_RUNS: '7.4:vhe': unknown base '7.4'" -- \
		env TEST_RUNS="7.4:vhe" "$S"/test.sh
	# Too little disk is said before any download or install: deps.sh
	# (the LAVA root, 80 s of apt and dpkg on a fresh OUT) has not run.
	rm -rf "$LOGS/disk-out"
	EXPECT_TIMEOUT=30 expect test-disk-first 2 "needs about 1000000 GB" -- \
		env OUT="$LOGS/disk-out" TEST_DISK_GB=1000000 TEST_RUNS=mainline:export "$S"/test.sh
	if [ -e "$LOGS/disk-out/logs" ]; then
		result harness/test-disk-before-deps fail "deps.sh ran before the disk check: $(ls "$LOGS/disk-out/logs" | tr "\n" " ")"
	else
		result harness/test-disk-before-deps pass "nothing under the refused OUT's logs/ (deps.sh did not run)"
	fi
	rm -rf "$LOGS/disk-out"
	clean_cases
	safety_cases
	pin_cases

	# make kunit on a work tree that does not exist yet (a fresh clone):
	# it prepares the tree itself instead of asking for apply-series.
	rm -rf "$WORK/kunit-fresh"
	if env VARIANT=kunit-fresh "$S"/kunit.sh fragment "$LOGS/kunit-fresh.config" >"$LOGS/kunit-fresh.log" 2>&1 &&
	   grep -q '^CONFIG_KUNIT=y' "$LOGS/kunit-fresh.config"; then
		result harness/kunit-fresh-tree pass "$(tail -n 1 "$LOGS/kunit-fresh.log" | cut -c1-100)"
	else
		result harness/kunit-fresh-tree fail "$(grep -m1 ERROR "$LOGS/kunit-fresh.log") (log: $LOGS/kunit-fresh.log)"
	fi
	rm -rf "$WORK/kunit-fresh"
}

# make clean / distclean remove nothing outside OUT, nothing of a directory
# the harness did not make, and nothing while another command holds OUT.
# Run through make, as a user types them.
clean_cases() {
	local t tg
	t=$(mktemp -d "$LOGS/clean.XXXXXX")
	# A space (or colon) in OUT is refused before anything is removed, as
	# by every target (the neighbour '<dir>/x' never at risk either).
	mkdir -p "$t/x" "$t/x y/work/a" "$t/x y/results" "$t/x y/cache/base"
	echo keep >"$t/x/file"
	touch "$t/x y/.harness-owned"
	for tg in clean distclean; do
		EXPECT_TIMEOUT=20 expect "$tg-out-with-space" 2 "OUT='.*/x y' has a space or a colon" -- \
			make -s -C "$HARNESS_ROOT" "$tg" OUT="$t/x y"
	done
	if [ -f "$t/x/file" ] && [ -d "$t/x y/work/a" ] && [ -d "$t/x y/results" ] && [ -d "$t/x y/cache/base" ]; then
		result harness/clean-out-with-space-kept pass "OUT='<dir>/x y': everything in it and the neighbour '<dir>/x' kept"
	else
		result harness/clean-out-with-space-kept fail "$(ls -A "$t" "$t/x y" 2>&1 | tr '\n' ' ')"
	fi
	# A run holds the lock: make clean must leave its results alone.
	mkdir -p "$t/busy/results/r" && touch "$t/busy/.harness-owned"
	# The holder is the sleep itself (no child left behind), without this
	# script's own lock (fd 8): an orphan holding it stopped the next
	# make harness-test for 30 s.
	( exec 8>&- 9>"$t/busy/.lock"; flock 9; exec sleep 30 ) &
	local holder=$!
	sleep 1
	EXPECT_TIMEOUT=20 expect clean-while-locked 2 'another harness command is using OUT=' -- \
		make -s -C "$HARNESS_ROOT" clean OUT="$t/busy"
	[ -d "$t/busy/results/r" ] || result harness/clean-while-locked-kept fail "make clean removed results/ of a locked OUT"
	kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null
	EXPECT_TIMEOUT=20 expect distclean-root 2 'OUT=/ is /, which holds /: refusing' -- \
		make -s -C "$HARNESS_ROOT" distclean OUT=/
	EXPECT_TIMEOUT=20 expect distclean-project 2 'which holds .*: refusing it' -- \
		make -s -C "$HARNESS_ROOT" distclean OUT="$HARNESS_ROOT/scripts/.."
	EXPECT_TIMEOUT=20 expect distclean-foreign 2 'has no .harness-owned: the harness did not make it' -- \
		make -s -C "$HARNESS_ROOT" distclean OUT="$t"
	[ -f "$t/x/file" ] || result harness/distclean-foreign-kept fail "distclean of a foreign directory removed a file in it"
	rm -rf "$t"
}

# Dry runs and OUT are safe (issue 52; the newcomer and CI review of
# 7f17a1f, M1-M5): DRY_RUN=1 is a dry run or a refusal for every Makefile
# target, never a real run (M1); make clean and distclean remove only from
# an OUT with the harness's .harness-owned (M2); the status file goes only
# into such an OUT and never for a dry run (M3); OUT=/, $HOME, the project
# or a directory above it (M4) and an OUT with a space or colon (M5) are
# refused by every target before anything is written (a KERNEL_SRC with
# them is not: only its copy under OUT is built). Each command is also
# given an input that stops a real run early, should its refusal ever go
# missing.
safety_cases() {
	local t tg f rc had_root_status=""
	[ -e /status ] && had_root_status=1
	t=$(mktemp -d "$LOGS/safety.XXXXXX")
	# M1: every target without a dry run (the Makefile's .PHONY list)
	# refuses DRY_RUN=1. (Stand-ins for flock, apt-get and dpkg that fail
	# would stop a target that ran at its OUT lock, make deps before it
	# installs anything.)
	mkdir -p "$t/bin" "$t/own"
	touch "$t/own/.harness-owned"
	for f in flock apt-get dpkg; do printf '#!/bin/sh\nexit 1\n' >"$t/bin/$f" && chmod +x "$t/bin/$f"; done
	for tg in $(sed -n 's/^\.PHONY://p' "$HARNESS_ROOT/Makefile"); do
		case "$tg" in help|run|hw-run|hw-bench|hw-pv-ab|clean|distclean) continue ;; esac
		EXPECT_TIMEOUT=30 expect "dry-run-refused-$tg" 2 'DRY_RUN=1: this command has no dry run' -- \
			env PATH="$t/bin:$PATH" KERNEL_SRC=/nonexistent/linux PATCHES=/nonexistent/series LAVA_RUN=no-such-run \
			make -s -C "$HARNESS_ROOT" "$tg" DRY_RUN=1 OUT="$t/own"
	done
	# clean and distclean have a real dry run: what would go, nothing gone.
	mkdir -p "$t/dry/work/a" "$t/dry/results/r" "$t/dry/cache/base"
	touch "$t/dry/.harness-owned"
	EXPECT_TIMEOUT=20 expect_ok clean-dry-run 'would remove .*/dry/work$' -- \
		make -s -C "$HARNESS_ROOT" clean DRY_RUN=1 OUT="$t/dry"
	EXPECT_TIMEOUT=20 expect_ok distclean-dry-run 'would remove .*/dry$' -- \
		make -s -C "$HARNESS_ROOT" distclean DRY_RUN=1 OUT="$t/dry"
	if [ -d "$t/dry/work/a" ] && [ -d "$t/dry/results/r" ] && [ -d "$t/dry/cache/base" ] &&
	   [ "$(ls -A "$t/dry")" = "$(printf '.harness-owned\ncache\nresults\nwork')" ]; then
		result harness/clean-dry-run-kept pass "make clean and distclean DRY_RUN=1: OUT as it was (no lock, no status)"
	else
		result harness/clean-dry-run-kept fail "OUT holds: $(ls -A "$t/dry" 2>&1 | tr '\n' ' ')"
	fi
	if [ ! -e "$t/own/status" ]; then result harness/status-not-written-dry-run pass "no status/ from the refused DRY_RUN=1"
	else result harness/status-not-written-dry-run fail "status/$(ls "$t/own/status" | tr '\n' ' ')written by the refused DRY_RUN=1"; fi
	# M2: harness-like names (logs/, work/) do not make a directory the
	# harness's: without .harness-owned it is refused and kept.
	mkdir -p "$t/like/logs" "$t/like/work"
	echo keep >"$t/like/logs/app.log"
	echo keep >"$t/like/work/thesis.tex"
	for tg in clean distclean; do
		EXPECT_TIMEOUT=20 expect "$tg-lookalike" 2 'has no .harness-owned: the harness did not make it' -- \
			make -s -C "$HARNESS_ROOT" "$tg" OUT="$t/like"
	done
	if [ -f "$t/like/logs/app.log" ] && [ -f "$t/like/work/thesis.tex" ]; then
		result harness/clean-lookalike-kept pass "logs/app.log and work/thesis.tex kept"
	else
		result harness/clean-lookalike-kept fail "make clean or distclean removed files of a directory the harness did not make"
	fi
	# An OUT a target without the lock made (the hw-pv-ab dry run,
	# harness-test) is marked by status.sh: make clean takes it.
	if make -s -C "$HARNESS_ROOT" hw-pv-ab DRY_RUN=1 OUT="$t/fresh" >"$LOGS/fresh-out-marked.log" 2>&1 &&
	   [ -e "$t/fresh/.harness-owned" ] && make -s -C "$HARNESS_ROOT" clean OUT="$t/fresh" >>"$LOGS/fresh-out-marked.log" 2>&1; then
		result harness/fresh-out-marked pass "make hw-pv-ab DRY_RUN=1 made OUT and marked it; make clean took it"
	else
		result harness/fresh-out-marked fail "OUT holds: $(ls -A "$t/fresh" 2>&1 | tr '\n' ' ') (log: $LOGS/fresh-out-marked.log)"
	fi
	# make clean never removes through a mount below OUT (a killed
	# mmdebstrap leaves its root's proc, sys and dev mounted): it stops,
	# names the mount and the fix, and the mounted directory keeps its files.
	if [ "$(id -u)" = 0 ]; then
		mkdir -p "$t/mnt/work/root/mnt" "$t/outside" && touch "$t/mnt/.harness-owned" &&
			echo keep >"$t/outside/host-file" && mount --bind "$t/outside" "$t/mnt/work/root/mnt"
		make -s -C "$HARNESS_ROOT" clean OUT="$t/mnt" >"$LOGS/clean-mount-below.log" 2>&1
		rc=$?
		umount "$t/mnt/work/root/mnt" 2>/dev/null
		if [ -f "$t/outside/host-file" ] && [ $rc = 2 ] && grep -q "umount -R" "$LOGS/clean-mount-below.log"; then
			result harness/clean-mount-below pass "make clean stopped at a bind mount below OUT (exit 2, umount named); the mounted directory kept its file"
		else
			result harness/clean-mount-below fail "exit $rc; host-file $([ -f "$t/outside/host-file" ] && echo kept || echo REMOVED) (log: $LOGS/clean-mount-below.log)"
		fi
	else
		result harness/clean-mount-below skip "needs root (mount --bind)"
	fi
	# M3: a dry run leaves the last real run's status.
	mkdir -p "$t/st/status" && touch "$t/st/.harness-owned" && echo 1 >"$t/st/status/run"
	if make -s -C "$HARNESS_ROOT" run DRY_RUN=1 OUT="$t/st" >"$LOGS/status-dry-run.log" 2>&1 &&
	   [ "$(cat "$t/st/status/run")" = 1 ]; then
		result harness/status-dry-run-keeps-last pass "status/run 1 of the last real run kept by a dry run"
	else
		result harness/status-dry-run-keeps-last fail "status/run now '$(cat "$t/st/status/run")' (log: $LOGS/status-dry-run.log)"
	fi
	# A refused foreign directory gets no status/ either (make clean
	# OUT=$HOME made $HOME/status/clean).
	mkdir -p "$t/foreign" && echo keep >"$t/foreign/notes.txt"
	make -s -C "$HARNESS_ROOT" clean OUT="$t/foreign" >"$LOGS/status-foreign.log" 2>&1
	if [ ! -e "$t/foreign/status" ]; then result harness/status-not-in-foreign pass "make clean refused a foreign directory, wrote no status/ into it"
	else result harness/status-not-in-foreign fail "status/$(ls "$t/foreign/status" | tr '\n' ' ')written into a foreign directory (log: $LOGS/status-foreign.log)"; fi
	# M4: /, $HOME (here a stand-in), the project and a directory above
	# it: refused by the dry run and by the real targets, nothing written.
	EXPECT_TIMEOUT=20 expect run-dry-out-root 2 'OUT=/ is /, which holds /: refusing it' -- \
		make -s -C "$HARNESS_ROOT" run DRY_RUN=1 OUT=/
	mkdir -p "$t/home"
	EXPECT_TIMEOUT=20 expect run-dry-out-home 2 'OUT=.*/home is .*, which holds .*/home: refusing it' -- \
		env HOME="$t/home" make -s -C "$HARNESS_ROOT" run DRY_RUN=1 OUT="$t/home"
	EXPECT_TIMEOUT=20 expect hw-run-out-home 2 'OUT=.*/home is .*, which holds .*/home: refusing it' -- \
		env HOME="$t/home" RUNLIST=/nonexistent/list make -s -C "$HARNESS_ROOT" hw-run OUT="$t/home"
	if [ -z "$(ls -A "$t/home")" ]; then result harness/out-home-untouched pass "nothing written into \$HOME"
	else result harness/out-home-untouched fail "written into \$HOME: $(ls -A "$t/home" | tr '\n' ' ')"; fi
	EXPECT_TIMEOUT=20 expect run-dry-out-project 2 'which holds .*: refusing it' -- \
		make -s -C "$HARNESS_ROOT" run DRY_RUN=1 OUT="$HARNESS_ROOT"
	EXPECT_TIMEOUT=20 expect check-out-above-project 2 'which holds .*: refusing it' -- \
		env PATCHES=/nonexistent/series make -s -C "$HARNESS_ROOT" check OUT="$HARNESS_ROOT/.."
	# M5: a space or a colon in OUT (Kbuild refuses them after the
	# download): refused by the dry run and by the real targets.
	EXPECT_TIMEOUT=20 expect run-dry-out-space 2 "OUT='.*/a b' has a space or a colon" -- \
		make -s -C "$HARNESS_ROOT" run DRY_RUN=1 OUT="$t/a b"
	EXPECT_TIMEOUT=20 expect run-dry-out-colon 2 "OUT='.*/a:b' has a space or a colon" -- \
		make -s -C "$HARNESS_ROOT" run DRY_RUN=1 OUT="$t/a:b"
	EXPECT_TIMEOUT=20 expect check-out-space 2 "OUT='.*/a b' has a space or a colon" -- \
		env PATCHES=/nonexistent/series make -s -C "$HARNESS_ROOT" check OUT="$t/a b"
	# (KERNEL_SRC may have them: base-tree.sh copies it under OUT, and the
	# builds see only the copy.)
	local ks="$t/k src:1/linux"
	mkdir -p "$ks/arch/arm64/kvm" "$ks/tools/testing/selftests/kvm"
	printf 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 1\nEXTRAVERSION =\n' >"$ks/Makefile"
	EXPECT_TIMEOUT=30 expect_ok kernel-src-space-colon 'base: prepared 6\.12\.1 \(tree:.*/k src:1/linux\)' -- \
		env -u HARNESS_LOCKED OUT="$t/ks-out" KERNEL_SRC="$ks" BASE=6.12 "$S"/phases/base-tree.sh
	# As root, where / is writable, make run DRY_RUN=1 and make clean with
	# OUT=/ made /status (removed again here if they, or a case above,
	# still do).
	if [ "$(id -u)" != 0 ]; then
		result harness/status-not-in-root skip "not root: / is not writable here (status-not-in-foreign is this case)"
	elif [ -n "$had_root_status" ]; then
		result harness/status-not-in-root skip "/status exists on this machine: nothing to tell"
	else
		{ make -s -C "$HARNESS_ROOT" run DRY_RUN=1 OUT=/; make -s -C "$HARNESS_ROOT" clean OUT=/; } >"$LOGS/status-root.log" 2>&1
		if [ -e /status ]; then
			result harness/status-not-in-root fail "OUT=/ got /status/$(ls /status | tr '\n' ' ')(removed again)"
			rm -f /status/run /status/clean && rmdir /status
		else
			result harness/status-not-in-root pass "make run DRY_RUN=1 and make clean with OUT=/ as root: no /status"
		fi
	fi
	rm -rf "$t"
}

# The base pin outlives the archive: a stand-in apt index (a local
# repository signed with a throw-away key) that no longer has the pinned
# linux-source-6.12, as bookworm-security will not once 6.12.118 comes.
# base-tree.sh (make run's base phase) must take the newest 6.12.y there
# with one line saying so and record it (base.env, metadata.json), refuse
# an index with only another series, and refuse an index whose signature
# does not verify.
pin_cases() {
	local t=$LOGS/pin arch v k
	rm -rf "$t"
	if ! command -v dpkg-scanpackages >/dev/null || ! command -v gpg >/dev/null; then
		result harness/pin-fallback fail "the stand-in index needs dpkg-scanpackages and gpg: make deps (dpkg-dev, gpg)"
		return
	fi
	mkdir -p "$t/gnupg" && chmod 700 "$t/gnupg"
	arch=$(dpkg --print-architecture)
	# stand_in_deb <repo> <version>: a linux-source-6.12 of that version
	# holding the least of a kernel tree that base-tree.sh accepts.
	stand_in_deb() {
		local repo=$1 ver=$2 b=$t/build-$2 up=${2%%-*}
		rm -rf "$b" && mkdir -p "$b/tree/linux-source-6.12/arch/arm64/kvm" \
			"$b/tree/linux-source-6.12/tools/testing/selftests/kvm" "$b/root/usr/src" "$b/root/DEBIAN" "$repo/pool"
		printf 'VERSION = %s\nPATCHLEVEL = %s\nSUBLEVEL = %s\nEXTRAVERSION =\n' \
			"$(echo "$up" | cut -d. -f1)" "$(echo "$up" | cut -d. -f2)" "$(echo "$up" | cut -d. -f3)" \
			>"$b/tree/linux-source-6.12/Makefile"
		tar -C "$b/tree" -cJf "$b/root/usr/src/linux-source-6.12.tar.xz" linux-source-6.12
		printf 'Package: linux-source-6.12\nVersion: %s\nArchitecture: all\nMaintainer: harness test <test@invalid.example>\nDescription: stand-in for the harness test\n' \
			"$ver" >"$b/root/DEBIAN/control"
		dpkg-deb --build --root-owner-group "$b/root" "$repo/pool/linux-source-6.12_${ver}_all.deb" >/dev/null
	}
	# stand_in_index <repo> <key>: Packages, Release and InRelease signed by <key>.
	stand_in_index() {
		local repo=$1 key=$2 d=$1/dists/test/main/binary-$arch
		mkdir -p "$d"
		(cd "$repo" && dpkg-scanpackages --multiversion pool /dev/null 2>/dev/null) >"$d/Packages"
		{
			printf 'Origin: harness-test\nSuite: test\nCodename: test\nDate: %s\nArchitectures: %s\nComponents: main\nSHA256:\n' \
				"$(date -Ru)" "$arch"
			printf ' %s %s main/binary-%s/Packages\n' "$(sha256_file "$d/Packages")" "$(stat -c %s "$d/Packages")" "$arch"
		} >"$repo/dists/test/Release"
		gpg --homedir "$t/gnupg" --batch --yes -q -u "$key" --clearsign -o "$repo/dists/test/InRelease" "$repo/dists/test/Release"
	}
	for k in good other; do
		gpg --homedir "$t/gnupg" --batch -q --passphrase '' --quick-gen-key "harness $k <$k@invalid.example>" ed25519 sign never 2>/dev/null
	done
	gpg --homedir "$t/gnupg" --batch -q --export "good@invalid.example" >"$t/keyring.gpg"
	for v in 6.12.990-1 6.12.999-1; do stand_in_deb "$t/newer" "$v"; done
	stand_in_index "$t/newer" good@invalid.example
	stand_in_deb "$t/other-series" 6.13.1-1
	stand_in_index "$t/other-series" good@invalid.example
	cp -a "$t/newer" "$t/bad-sig"
	stand_in_index "$t/bad-sig" other@invalid.example
	# pin_env <repo>: the environment of a base phase on that stand-in index
	# (in array pe).
	pin_env() { pe=(env -u KERNEL_SRC -u BASE_DEB -u PATCHES -u VARIANT BASE=6.12 OUT="$t/out-$1" HARNESS_LOCKED=
		"BASE_APT_SUITE=file://$t/$1 test" "BASE_APT_KEYRING=$t/keyring.gpg"); }
	local pe

	pin_env newer
	if EXPECT_TIMEOUT=60 expect_ok pin-fallback 'WARNING: the pinned linux-source-6.12 6.12.118-1~deb12u1 is gone from test: using 6.12.999-1, the newest 6.12.y there, verified by apt' -- \
		"${pe[@]}" "$S"/phases/base-tree.sh; then
		# shellcheck disable=SC1091
		if (. "$t/out-newer/state/6.12/base.env" && [ "$BASE_PKG_VERSION" = 6.12.999-1 ] && [ "$BASE_VERSION" = 6.12.999 ] &&
		    [ "$BASE_PKG_PINNED" = 6.12.118-1~deb12u1 ] && [ -n "$BASE_PIN_NOTE" ]); then
			result harness/pin-fallback-recorded pass "base.env: 6.12.999-1 (pinned 6.12.118-1~deb12u1) with the note"
		else
			result harness/pin-fallback-recorded fail "base.env: $(grep -E 'BASE_(PKG|VERSION|PIN)' "$t/out-newer/state/6.12/base.env" | tr '\n' ' ')"
		fi
		# metadata.json says the same (the run's metadata writer, on the
		# stand-in base).
		mkdir -p "$t/out-newer/work/6.12/patched"
		printf 'APPLIED_SERIES_HASH=test\nAPPLIED_COUNT=0\n' >"$t/out-newer/work/6.12/patched/applied.env"
		if "${pe[@]}" QEMU=true "$S"/phases/metadata.sh "$t/metadata.json" pin-test "make run" >"$LOGS/pin-metadata.log" 2>&1 &&
		   python3 -c 'import json, sys; b = json.load(open(sys.argv[1]))["base"]; assert b["package_version"] == "6.12.999-1" and b["package_pinned"] == "6.12.118-1~deb12u1" and "gone from" in b["pin_fallback"], b' \
			"$t/metadata.json" 2>>"$LOGS/pin-metadata.log"; then
			result harness/pin-fallback-metadata pass "metadata.json base.package_version 6.12.999-1, base.pin_fallback set"
		else
			result harness/pin-fallback-metadata fail "$(tail -n 1 "$LOGS/pin-metadata.log")"
		fi
		# Offline afterwards (the index is gone): the verified file is
		# reused, with the same line.
		mv "$t/newer" "$t/newer.away"
		EXPECT_TIMEOUT=60 expect_ok pin-fallback-cached 'is gone from test: using 6.12.999-1' -- \
			"${pe[@]}" "$S"/phases/base-tree.sh
		mv "$t/newer.away" "$t/newer"
	fi
	pin_env other-series
	EXPECT_TIMEOUT=60 expect pin-other-series 2 'has no linux-source-6.12 6.12.118-1~deb12u1 any more, and no other 6.12.y \(it has: 6.13.1-1\)' -- \
		"${pe[@]}" "$S"/phases/base-tree.sh
	pin_env bad-sig
	EXPECT_TIMEOUT=60 expect pin-bad-signature 2 'apt-get update of test failed' -- \
		"${pe[@]}" "$S"/phases/base-tree.sh
	rm -rf "$t"
}

# A tiny initramfs: busybox plus one of the fixture inits.
tiny_initramfs() {
	local init=$1 out=$2 d bb
	bb=$(busybox_arm64) || return 2
	d=$(mktemp -d)
	mkdir -p "$d/bin" "$d/proc" "$d/dev"
	cp "$bb" "$d/bin/busybox"
	cp "$init" "$d/init"
	pack_cpio "$d" "$out"
	rm -rf "$d"
}

guest_cases() {
	local image
	local ksft
	# The newest kernel any run built (make test's first run may be the
	# debug kernel's: build-kvm-host+debug+...).
	image=$(ls -t "$WORK"/*/build-kvm-host*/arch/arm64/boot/Image 2>/dev/null | head -n 1)
	ksft=$(ls -td "$WORK"/patched/build-kvm-host*/kselftest_install 2>/dev/null | head -n 1)
	if [ -z "$image" ]; then
		for c in guest-hang guest-panic guest-silent initramfs-disk-full; do
			result "harness/$c" fail "no kernel Image built for BASE=$BASE (the first run failed)"
		done
		return
	fi
	tiny_initramfs "$FX/guest-hang/init" "$LOGS/hang.cpio"
	tiny_initramfs "$FX/guest-panic/init" "$LOGS/panic.cpio"
	tiny_initramfs "$FX/guest-silent/init" "$LOGS/silent.cpio"
	# The hang case waits 40 s for its watchdog: beside the other two.
	expect_bg guest-hang -- \
		env KERNEL="$image" INITRD="$LOGS/hang.cpio" RUN_DIR="$LOGS/hang" \
		BOOT_TIMEOUT=300 WATCHDOG=40 "$S"/phases/boot-qemu.sh
	expect guest-panic 3 'ERROR: kernel panic: Kernel panic - not syncing: Attempted to kill init' -- \
		env KERNEL="$image" INITRD="$LOGS/panic.cpio" RUN_DIR="$LOGS/panic" \
		BOOT_TIMEOUT=300 WATCHDOG=300 "$S"/phases/boot-qemu.sh
	# A guest that never says "[guest] up" is a guest result like a panic
	# (exit 3, boot.env says hang-boot), and the report still comes out:
	# summary.json and junit.xml with every planned test accounted for.
	rm -rf "$LOGS/silent" && mkdir -p "$LOGS/silent"
	cp "$FX/report/metadata.json" "$FX/report/runlist.tsv" "$LOGS/silent/"
	if expect guest-silent 3 "ERROR: guest hung: no '\[guest\] up' within 30s" -- \
		env KERNEL="$image" INITRD="$LOGS/silent.cpio" RUN_DIR="$LOGS/silent" \
		BOOT_TIMEOUT=30 WATCHDOG=300 "$S"/phases/boot-qemu.sh; then
		python3 "$S"/lib/report.py --run-dir "$LOGS/silent" --meta "$LOGS/silent/metadata.json" \
			--splats "$HARNESS_ROOT/selftests/console-splats.txt" >"$LOGS/silent/report.log" 2>&1
		if python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); assert s["boot"]["result"] == "hang-boot" and s["totals"]["errors"] == 4, s["totals"]' \
			"$LOGS/silent/summary.json" 2>>"$LOGS/silent/report.log" && [ -s "$LOGS/silent/junit.xml" ]; then
			result harness/guest-silent-report pass "summary.json (hang-boot, 1 failed, 4 not run) and junit.xml"
		else
			result harness/guest-silent-report fail "no report for a guest that never came up (log: $LOGS/silent/report.log)"
		fi
	fi
	expect_wait guest-hang 3 'ERROR: guest hung: watchdog fired after 40s'

	# A full disk while packing the initramfs is reported as one (a 1 MB
	# file size limit stands in for it), not as a kernel panic later.
	if [ -n "$ksft" ] && [ -x "$ksft/run_kselftest.sh" ]; then
		EXPECT_TIMEOUT=120 expect initramfs-disk-full 2 'cannot copy into the initramfs' -- \
			bash -c 'ulimit -f 1024; exec env VARIANT=patched BUILD_DIR="$3" RUN_DIR="$1" ONLY=vgic_init "$2"/initramfs.sh' \
			_ "$LOGS/disk-full" "$S/phases" "${ksft%/kselftest_install}"
		rm -rf "$LOGS/disk-full"
	else
		result harness/initramfs-disk-full fail "no installed selftests in $WORK/patched/build-kvm-host*"
	fi
}

case "${1:-}" in
	input) input_cases ;;
	guest) guest_cases ;;
	*) echo "usage: $0 input|guest" >&2; exit 2 ;;
esac
results_end
