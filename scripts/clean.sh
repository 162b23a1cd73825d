#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make clean / make distclean: remove what the harness made under OUT, and
# nothing outside it.
#
#   clean.sh          everything under OUT but the base cache (cache/: the
#                     downloaded packages, the unpacked bases, the L2 VMM)
#   clean.sh --all    OUT itself (make distclean); ccache lives outside OUT
#                     (~/.cache/kvm-irq-scaling) and is kept
#
# DRY_RUN=1: print what would be removed, remove nothing (no lock either).
# Refused (exit 2, nothing removed): an OUT that is /, $HOME, the project
# or a directory above them (out.sh's check_out, as for every target), an
# existing OUT without the .harness-owned that lock_out writes into the
# OUT it makes (the harness did not make it), and an OUT another harness
# command is using (the OUT lock, as for every other target).
. "$(dirname "$0")/lib/lib.sh"
phase_start clean
all=""
case "${1:-}" in
	"") ;;
	--all) all=1 ;;
	*) die "unknown argument '$1'" "use: clean.sh [--all]" ;;
esac

r=$(realpath -m "$OUT")
if [ ! -e "$r" ]; then
	status "OUT=$OUT does not exist: nothing to remove"
	exit 0
fi
[ -d "$r" ] || die "OUT=$OUT ($r) is not a directory: refusing to remove anything" "set OUT to the harness's output directory"
[ -e "$r/.harness-owned" ] ||
	die "OUT=$OUT ($r) has no .harness-owned: the harness did not make it, refusing to remove anything" \
		"remove what you want gone yourself, or point OUT at the harness's output directory (one an older harness made, without the marker: touch $r/.harness-owned first)"

# list_gone: what this command removes, in the array gone (for distclean OUT
# itself: its lock file goes with it, and holding the descriptor keeps the
# lock until this script ends).
list_gone() {
	gone=()
	if [ -n "$all" ]; then
		gone=("$r")
		what="OUT=$r (ccache kept: $CCACHE_DIR)"
		return
	fi
	for e in "$r"/* "$r"/.[!.]* "$r"/..?*; do
		[ -e "$e" ] || [ -L "$e" ] || continue
		case "${e##*/}" in cache|.lock|.lock.owner|.harness-owned) continue ;; esac
		gone+=("$e")
	done
	what="${#gone[@]} entr$( [ ${#gone[@]} = 1 ] && echo y || echo ies) of OUT=$r; kept cache/ (base packages and trees)"
}
if [ "${DRY_RUN:-0}" = 1 ]; then
	list_gone
	[ ${#gone[@]} = 0 ] || printf '  would remove %s\n' "${gone[@]}"
	status "dry run: would remove $what; nothing removed"
	exit 0
fi
# Not while another command uses it (its results would go from under it).
lock_out
list_gone
[ ${#gone[@]} = 0 ] || rm_tree "${gone[@]}"
status "removed $what"
