# SPDX-License-Identifier: GPL-2.0
# Entry points. Each target is wired to one script under scripts/; the
# variables (KERNEL_SRC, HOST_MODE, FRAGMENTS, ...) are read by the scripts
# from the environment and documented in Documentation/harness.rst.

.PHONY: help deps run test hw-run clean distclean

help:
	@echo "make run      build base tree + patches/series, boot under QEMU, run the KVM selftests"
	@echo "make test     the project's tests (harness behaviour + run list on VHE, nVHE, debug)"
	@echo "make hw-run   the hardware run list natively on an arm64 KVM host (no QEMU)"
	@echo "make deps     install missing Debian packages (as root)"
	@echo "make clean    remove work trees and results (keeps the base cache and ccache)"
	@echo "make distclean  remove everything under out/"
	@echo "Variables: KERNEL_SRC PATCHES FRAGMENTS LLVM HOST_MODE GIC SMP MEM APPEND"
	@echo "           RUNLIST SKIPLISTS ONLY RUN_NAME OUT JOBS BOOT_TIMEOUT WATCHDOG"

deps:
	@scripts/deps.sh

run:
	@scripts/run.sh

test:
	@scripts/test.sh

hw-run:
	@scripts/hw-run.sh

clean:
	rm -rf $(or $(OUT),out)/work $(or $(OUT),out)/results $(or $(OUT),out)/state $(or $(OUT),out)/tests

distclean:
	rm -rf $(or $(OUT),out)
