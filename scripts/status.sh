#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# status.sh <target> <command>...: how the Makefile runs a target's script.
# make exits 2 whenever a recipe fails, so a CI that runs "make <target>"
# cannot tell a test failure from a harness error by make's status alone;
# this keeps the script's own status (0 pass, 1 test failure, 2 harness
# error) in $OUT/status/<target> (one number), and exits with it. Not for
# make distclean (it removes OUT). The status file goes only into an OUT
# the harness made (its .harness-owned: out.sh's lock_out, or below): a
# refused /, $HOME or foreign directory gets nothing. A dry run (DRY_RUN
# set, also to a refused value) writes none: the last real run's status
# stays. An OUT that cannot be written (read-only) keeps no status file;
# the command has already said why.
target=$1
shift
# The harness's internal variables are not the user's: one exported in the
# shell (BUILD_DIR, DISK, RUN_DIR, ...) must not move a make target's builds
# or boot a disk. The phase scripts keep them as their interface when run
# by hand (scripts/phases/boot-qemu.sh KERNEL=... INITRD=...).
unset BUILD_DIR DISK RUN_DIR RUN_ID INITRD KERNEL TESTS_TIMEOUT PLATFORM BENCH_BIN \
	RESULTS_TSV MODE KUNIT_LIST KERNEL_UNDER_TEST KERNEL_CONFIG_UNDER_TEST KERNEL_ORIGIN \
	HARNESS_LOCKED PHASE BENCH_DIR EXPORT_PROOF_ONLY
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/out}
case "$out" in /*) ;; *) out=$PWD/$out ;; esac
# An OUT that was missing or empty and that the command filled is the
# harness's, marked as lock_out marks the OUT it makes: harness-test and
# the hw-pv-ab dry run write into OUT without the lock, and make clean
# removes only from a marked OUT.
fresh=""
[ -n "$(ls -A "$out" 2>/dev/null)" ] || fresh=1
"$@"
rc=$?
[ -n "$fresh" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ] && touch "$out/.harness-owned" 2>/dev/null
if [ "${DRY_RUN-0}" = 0 ] && [ -e "$out/.harness-owned" ] && mkdir -p "$out/status" 2>/dev/null; then
	echo "$rc" >"$out/status/$target" 2>/dev/null || true
fi
exit "$rc"
