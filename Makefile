# SPDX-License-Identifier: GPL-2.0
# Entry points. Each target is wired to one script under scripts/; the
# variables (BASE, KERNEL_SRC, HOST_MODE, FRAGMENTS, ...) are read by the
# scripts from the environment and documented in Documentation/harness.rst.
# Exit status of every target: 0 pass, 1 test failure, 2 harness error.

.PHONY: help deps run test harness-test kunit mutants check export bench hw-run hw-bench hw-pv-ab hw-emulated clean distclean

help:
	@echo "make run      build base tree + patches/<base>/series, boot under QEMU, run the KVM selftests"
	@echo "make test     the project's tests (harness, run lists on both bases; FULL=1: every run on both)"
	@echo "make harness-test  the harness's own unit tests, lint gate (shellcheck, pyflakes) and input tests, no kernel build"
	@echo "make kunit    the KUnit suites of selftests/kunit.txt with kunit.py run (arm64, QEMU)"
	@echo "make mutants  each mutant kernel (series + one deliberate bug) must fail the tests its header names"
	@echo "make check    per-patch gates: apply, checkpatch, bisect builds (arm64, x86_64), sparse, W=1, kernel-doc, clang"
	@echo "make export   mail-ready series (format-patch + cover letter) from your git identity, proven git am-able"
	@echo "make bench    base vs patched kernel, same config and QEMU, interleaved boots"
	@echo "make hw-run   the hardware run list natively on an arm64 KVM host (no QEMU)"
	@echo "make hw-bench the benchmark list natively on an arm64 KVM host"
	@echo "make hw-pv-ab the PV vcpu_is_preempted A/B table on an arm64 KVM host (guests under its QEMU)"
	@echo "make hw-emulated  hw-run and hw-bench for real inside an emulated arm64 Debian host, patched and base kernel"
	@echo "make deps     install missing Debian packages (as root)"
	@echo "make clean    remove everything under OUT but the base cache (never outside OUT; not while a command uses it)"
	@echo "make distclean  remove everything under out/, base downloads included (ccache lives outside it: ~/.cache/kvm-irq-scaling)"
	@echo "Variables: BASE (mainline = 7.3.4, the default; 6.12) KERNEL_SRC PATCHES FRAGMENTS LLVM"
	@echo "           HOST_MODE GIC SMP MEM APPEND"
	@echo "           RUNLIST SKIPLISTS ONLY REPEAT RUN_NAME OUT JOBS BOOT_TIMEOUT WATCHDOG L2 L2_IMAGES"
	@echo "           REPS BENCHLIST BASE_PATCHES (bench) MUTANTS MUTANTS_DIR (mutants) CHECK_X86 CHECK_CLANG CHECK_BUILD (check) FULL TEST_RUNS TEST_MUTANTS (test)"
	@echo "           RESULTS EXPORT_PREFIX EXPORT_VERSION EXPORT_DIR (export)"
	@echo "           BASE_DEB BASE_DEB_SHA256 (a host without network) BASE_APT_SUITE BASE_APT_KEYRING (a mirror) KIT=1 (deps: the hardware kit's packages)"
	@echo "           DRY_RUN=1 (run, hw-run, hw-bench, hw-pv-ab: check the inputs and print the command, run nothing; refused elsewhere)"
	@echo "           HW_RUN_ONLY HW_SKIPLISTS HW_BENCH_ONLY HW_REPS HW_STEPS HW_WATCHDOG HW_DISK_SIZE (hw-emulated)"

deps:
	@scripts/deps.sh

run:
	@scripts/run.sh $(if $(filter 1,$(DRY_RUN)),--dry-run)

test:
	@scripts/test.sh

harness-test:
	@scripts/tests/unit.sh && scripts/tests/lint.sh && scripts/tests/harness-tests.sh input

kunit:
	@scripts/kunit.sh

mutants:
	@scripts/mutants.sh

check:
	@scripts/check.sh

export:
	@scripts/export.sh

bench:
	@scripts/bench.sh

hw-run:
	@scripts/hw-run.sh $(if $(filter 1,$(DRY_RUN)),--dry-run)

hw-bench:
	@scripts/hw-bench.sh $(if $(filter 1,$(DRY_RUN)),--dry-run)

hw-pv-ab:
	@scripts/hw-pv-ab.sh $(if $(filter 1,$(DRY_RUN)),--dry-run)

hw-emulated:
	@scripts/hw-emulated.sh

clean:
	@scripts/clean.sh

distclean:
	@scripts/clean.sh --all
