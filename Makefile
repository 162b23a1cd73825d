# SPDX-License-Identifier: GPL-2.0
# Entry points. Each target is wired to one script under scripts/; the
# variables (BASE, KERNEL_SRC, HOST_MODE, FRAGMENTS, ...) are read by the
# scripts from the environment and documented in Documentation/harness.rst.
# Exit status of every target's script: 0 pass, 1 test failure, 2 harness
# error. make itself exits 2 for any failure, so scripts/status.sh keeps the
# script's status in $(OUT)/status/<target> (in an OUT the harness made; not
# for distclean or a dry run).

# A variable given on the command line that no target reads is refused: a
# typo would otherwise be ignored, and make's own ARCH= or V= would reach
# the kernel builds. scripts/lib/params.tsv is the list (make help prints it).
PARAMS := $(shell python3 $(CURDIR)/scripts/lib/help.py --names)
ifeq ($(PARAMS),)
$(error scripts/lib/help.py --names printed nothing: is python3 installed? (apt-get install python3))
endif
UNKNOWN_VARS := $(filter-out $(PARAMS),$(foreach v,$(.VARIABLES),$(if $(filter command line,$(origin $(v))),$(v))))
ifneq ($(UNKNOWN_VARS),)
$(error unknown variable(s) on the command line: $(UNKNOWN_VARS) -- make help lists the ones the targets read (scripts/lib/params.tsv))
endif

.PHONY: help deps run test harness-test lava lava-jobs kunit mutants check modexport export bench hw-run hw-bench hw-pv-ab hw-emulated clean distclean

help:
	@echo "make run      build base tree + patches/<base>/series, boot under QEMU, run the KVM selftests"
	@echo "make test     the project's tests (harness, run lists on both bases; FULL=1: every run on both)"
	@echo "make harness-test  the harness's own unit tests, lint gate (shellcheck, pyflakes) and input tests, no kernel build"
	@echo "make lava     the QEMU run of LAVA_RUN as a LAVA job, run by Debian's lava-dispatcher (lava-run), results checked against make run's"
	@echo "make lava-jobs  write the LAVA jobs only: the arm64 server template (BASE; no run needed) and, if LAVA_RUN kept its artefacts, the QEMU job"
	@echo "make kunit    the KUnit suites of selftests/kunit.txt with kunit.py run (arm64, QEMU)"
	@echo "make mutants  each mutant kernel (series + one deliberate bug) must fail the tests its header names"
	@echo "make check    per-patch gates: apply, checkpatch, bisect builds (arm64, x86_64), sparse, W=1, kernel-doc, clang"
	@echo "make modexport  the modules of Debian's arm64 config that the series' header changes reach, built (make M=) and linked by modpost against Debian's Module.symvers"
	@echo "make export   mail-ready series (format-patch + cover letter) from your git identity, proven git am-able"
	@echo "make bench    base vs patched kernel, same config and QEMU, interleaved boots"
	@echo "make hw-run   the hardware run list natively on an arm64 KVM host (no QEMU)"
	@echo "make hw-bench the benchmark list natively on an arm64 KVM host"
	@echo "make hw-pv-ab the PV vcpu_is_preempted A/B table on an arm64 KVM host (guests under its QEMU)"
	@echo "make hw-emulated  hw-run and hw-bench for real inside an emulated arm64 Debian host, patched and base kernel"
	@echo "make deps     install missing Debian packages (as root)"
	@echo "make clean    remove everything under OUT but the base cache (never outside OUT; only an OUT the harness made; not while a command uses it; DRY_RUN=1: list it)"
	@echo "make distclean  remove everything under out/, base downloads included (ccache lives outside it: ~/.cache/kvm-irq-scaling; DRY_RUN=1: list it)"
	@python3 scripts/lib/help.py

deps:
	@scripts/status.sh deps scripts/deps.sh

run:
	@scripts/status.sh run scripts/run.sh $(if $(filter 1,$(DRY_RUN)),--dry-run)

test:
	@scripts/status.sh test scripts/test.sh

harness-test:
	@scripts/status.sh harness-test bash -c 'scripts/tests/unit.sh && scripts/tests/lint.sh && scripts/tests/harness-tests.sh input'

lava:
	@scripts/status.sh lava scripts/ci/lava-run.sh

lava-jobs:
	@scripts/status.sh lava-jobs scripts/ci/lava-run.sh --jobs-only

kunit:
	@scripts/status.sh kunit scripts/kunit.sh

mutants:
	@scripts/status.sh mutants scripts/mutants.sh

check:
	@scripts/status.sh check scripts/check.sh

modexport:
	@scripts/status.sh modexport scripts/modexport.sh

export:
	@scripts/status.sh export scripts/export.sh

bench:
	@scripts/status.sh bench scripts/bench.sh

hw-run:
	@scripts/status.sh hw-run scripts/hw-run.sh $(if $(filter 1,$(DRY_RUN)),--dry-run)

hw-bench:
	@scripts/status.sh hw-bench scripts/hw-bench.sh $(if $(filter 1,$(DRY_RUN)),--dry-run)

hw-pv-ab:
	@scripts/status.sh hw-pv-ab scripts/hw-pv-ab.sh $(if $(filter 1,$(DRY_RUN)),--dry-run)

hw-emulated:
	@scripts/status.sh hw-emulated scripts/hw-emulated.sh

clean:
	@scripts/status.sh clean scripts/clean.sh

distclean:
	@scripts/clean.sh --all

# A target no rule makes: name make help (make's own "No rule to make
# target" says nothing of where the targets are listed).
.DEFAULT:
	@echo "make: no target '$@' here -- make help lists the targets and variables" >&2; exit 2
