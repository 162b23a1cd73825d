# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The shell side of runlist.py: the skip lists that apply to a platform,
# host mode, GIC, base and config (default_skiplists) and the run-list
# tests a tree lacks because a series adds them (tree_skip_args), given to
# runlist.py by initramfs.sh and hw-run.sh.
# Part of lib.sh, which sources it: source lib.sh, not this file.

# tree_skip_args <tree>: runlist.py arguments that skip (with the reason)
# the run-list tests <tree> lacks because a patch adds them: this base's
# series ($PATCHES), or another base's series it was not ported from yet.
tree_skip_args() {
	local b project
	TREE_SKIP_ARGS=(--tree "$1" --patches "$PATCHES")
	# The project's own patches add tests too (pv_state_timing)
	project=$(project_patches_dir default)
	[ -z "$project" ] || TREE_SKIP_ARGS+=(--patches "$project")
	for b in $BASES; do
		[ "$b" = "$BASE" ] || TREE_SKIP_ARGS+=(--other-series "$HARNESS_ROOT/patches/$b")
	done
}

# default_skiplists <platform> [host mode] [gic]: the skip lists that apply,
# most general first: selftests/skip-<platform>.txt,
# skip-<platform>-<mode>.txt, skip-<platform>-gicv<N>.txt and
# skip-base-<major>.<minor>.txt and skip-<platform>-base-<major>.<minor>.txt
# for the prepared base tree (or, before it is prepared, the version its
# series was checked against), and skip-<platform>-<fragment>.txt for each
# config fragment of FRAGMENTS.
default_skiplists() {
	local platform=$1 mode=${2:-} gic=${3:-} f ver=""
	if [ -f "$STATE/base.env" ]; then ver=$(. "$STATE/base.env" && echo "$BASE_VERSION" | cut -d. -f1,2)
	else ver=$(series_checked_against "$PATCHES" | cut -d. -f1,2); fi
	for f in "skip-$platform.txt" ${mode:+"skip-$platform-$mode.txt"} \
		 ${gic:+"skip-$platform-gicv$gic.txt"} ${ver:+"skip-base-$ver.txt"} ${ver:+"skip-$platform-base-$ver.txt"} \
		 $(for x in ${FRAGMENTS:-}; do case "$x" in */*) ;; *) echo "skip-$platform-${x%.config}.txt" ;; esac; done); do
		[ -f "$HARNESS_ROOT/selftests/$f" ] && echo "$HARNESS_ROOT/selftests/$f"
	done
	return 0
}
