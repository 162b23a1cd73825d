#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Phase "apply": a work tree = the cached base + the quilt series.
#
#   PATCHES=dir   the series to apply (default: patches/ of this project)
#   VARIANT=name  which work tree (default: patched); "base" keeps an empty series
#   PROJECT_PATCHES=dir  the project's own patches, applied after a non-empty
#                 series (default selftests/project/<base> if it exists; empty: none)
#
# The work tree is $WORK/$VARIANT/src, made from the pristine base: a full
# copy for "patched" (the tree people edit), hard links for the trees only the
# harness uses (check, base, harness-test, ...: about 30 MB instead of 1.7 GB
# each). quilt and patch never write a file in place: a patched file is a new
# file and the base's copy stays its backup in .pc/, so the cached base is
# never changed through a link. TREE=copy|link overrides the choice.
# the series is applied with quilt, fuzz 0. When the series changes, quilt pops
# the old one (restoring exactly the base files) and pushes the new one, so only
# touched files rebuild. A patch that does not apply stops the run, names the
# patch, the file and the hunk, and leaves the tree at the base (never
# half-patched). Writes $WORK/$VARIANT/applied.env.
. "$(dirname "$0")/../lib/lib.sh"
phase_start apply

[ -f "$STATE/base.env" ] || die "no base tree prepared" "run scripts/phases/base-tree.sh first"
. "$STATE/base.env"
need_tools quilt patch rsync

VARIANT=${VARIANT:-patched}
resolve_patches
[ -f "$PATCHES/series" ] || die "$PATCHES/series not found" "create it (an empty series is valid)"
# The project's own patches on top of a non-empty series (with_project_patches
# in series.sh); PROJECT_PATCHES= leaves them out (make check, make export, the
# base kernel of make bench).
[ -z "${PROJECT_PATCHES:-}" ] || [ -f "$PROJECT_PATCHES/series" ] || die "PROJECT_PATCHES=$PROJECT_PATCHES has no series file" \
	"name a directory with a quilt series, or set PROJECT_PATCHES= to build the mails alone"
project=$(project_patches_dir)
if [ -n "$project" ] && [ -n "$(series_list "$PATCHES")" ]; then
	with_project_patches "$PATCHES" "$project" "$WORK/$VARIANT/with-project"
	PATCHES=$WORK/$VARIANT/with-project
fi

work=$WORK/$VARIANT
src=$work/src
stamp=$work/applied.env
shash=$(series_hash "$PATCHES")
mapfile -t patches < <(series_list "$PATCHES")

for p in "${patches[@]}"; do
	[ -f "$PATCHES/$p" ] || die "series names $p but $PATCHES/$p does not exist" \
		"fix $PATCHES/series or add the patch"
done

if [ -f "$stamp" ]; then
	# shellcheck disable=SC1090
	. "$stamp"
	if [ "${APPLIED_BASE_ID:-}" = "$BASE_ID" ] && [ "${APPLIED_SERIES_HASH:-}" = "$shash" ] &&
	   [ -d "$src" ]; then
		status "work tree '$VARIANT' up to date (${#patches[@]} patches, series ${shash:0:12})"
		exit 0
	fi
fi

export QUILT_PATCHES=$PATCHES QUILT_PC=.pc
quilt() { command quilt --quiltrc=- "$@"; }

rm -f "$stamp"
if [ -d "$src" ] && [ -f "$work/base-id" ] && [ "$(cat "$work/base-id")" = "$BASE_ID" ]; then
	# Same base, other series: go back to the base with quilt (it restores
	# the saved originals and touches them so they rebuild).
	# quilt pops with the series that was pushed (a snapshot of it): the
	# patches directory may have renamed or dropped those patches since.
	# Only the patches above the longest common prefix of the pushed series
	# and the new one (same names, same bytes) come off: a series that
	# differs in its last patch (make mutants) rebuilds only what that
	# patch touches.
	keep=0
	if [ -f "$src/.pc/applied-patches" ] && [ -s "$src/.pc/applied-patches" ]; then
		mapfile -t old_patches <"$src/.pc/applied-patches"
		for ((i = 0; i < ${#old_patches[@]} && i < ${#patches[@]}; i++)); do
			[ "${old_patches[$i]}" = "${patches[$i]}" ] &&
				cmp -s "$work/applied-series/${old_patches[$i]}" "$PATCHES/${patches[$i]}" || break
			keep=$((i + 1))
		done
		if [ "$keep" -eq "${#old_patches[@]}" ]; then
			:   # the new series extends the pushed one
		# -f: quilt restores each file from its backup under .pc whatever
		# the tree holds now. Without it, quilt refused to pop a mutant
		# ("does not remove cleanly") and the tree was copied and rebuilt
		# anew, about ten minutes per mutant. The work tree is the
		# harness's; nothing in it is anyone's edit.
		elif [ "$keep" -gt 0 ] &&
		     (cd "$src" && QUILT_PATCHES=$work/applied-series quilt pop -f -q "${old_patches[$((keep - 1))]}") >"$work/pop.log" 2>&1; then
			info "kept the first $keep patches applied; popped $(( ${#old_patches[@]} - keep ))"
		elif keep=0; ! (cd "$src" && QUILT_PATCHES=$work/applied-series quilt pop -f -a -q) >"$work/pop.log" 2>&1; then
			info "could not pop the old series; recreating the work tree"
			# The copy gets the base's old mtimes: files the old series
			# changed (quilt keeps a backup of each under .pc/<patch>/)
			# must look newer than their objects in build-*/.
			retouch=$(cd "$src/.pc" && while read -r p; do
				(cd "$p" 2>/dev/null && find . -type f | sed 's|^\./||'); done <applied-patches | sort -u)
			rm -rf "$src"
		fi
	fi
else
	# Another base (or none recorded): objects in the build directories
	# may be newer than the new sources; rebuild from scratch (ccache).
	rm -rf "$src" "$work"/build-*
fi
if [ ! -d "$src" ]; then
	tree=${TREE:-$([ "$VARIANT" = patched ] && echo copy || echo link)}
	case $tree in
	copy) info "copying base $BASE_VERSION into work tree '$VARIANT'"; cpflag=-a ;;
	link) info "linking base $BASE_VERSION into work tree '$VARIANT' (hard links)"; cpflag=-al ;;
	*) die "TREE=$tree: use copy or link" ;;
	esac
	mkdir -p "$work"
	rm -rf "$src.tmp"
	copy_failed() {
		die "cannot copy $BASE_DIR into $src.tmp ($(head -n 1 "$work/copy.log"))" \
			"check free space in $OUT (df -h $OUT)"
	}
	if ! cp $cpflag "$BASE_DIR" "$src.tmp" 2>"$work/copy.log"; then
		[ "$cpflag" = -al ] || copy_failed
		warn "hard links failed ($(head -n 1 "$work/copy.log")); copying instead"
		rm -rf "$src.tmp"
		cp -a "$BASE_DIR" "$src.tmp" 2>"$work/copy.log" || copy_failed
	fi
	mv "$src.tmp" "$src"
	echo "$BASE_ID" >"$work/base-id"
	for f in ${retouch:-}; do
		# A linked file shares its mtime with the base cache: give the
		# tree its own copy before touching it.
		[ -e "$src/$f" ] || continue
		cp -p "$src/$f" "$src/$f.retouch" && mv -f "$src/$f.retouch" "$src/$f" && touch "$src/$f"
	done
fi
# quilt remembers the patches directory it last used in .pc: the kept
# patches are pushed again from $PATCHES, not from the old snapshot.
[ "${keep:-0}" -gt 0 ] && [ -d "$src/.pc" ] || { keep=0; rm -rf "$src/.pc"; }
rm -f "$src/.pc/.quilt_patches" "$src/.pc/.quilt_series"

# Snapshot of the series being pushed, for the next pop.
snapshot_series "$PATCHES" "$work"

n=0
offsets=0
for p in "${patches[@]}"; do
	n=$((n + 1))
	[ "$n" -le "$keep" ] && continue
	log=$work/push-$n.log
	if ! (cd "$src" && quilt push --fuzz=0 "$p") >"$log" 2>&1; then
		echo "[harness] apply: ERROR: patch $n/${#patches[@]} $p does not apply to $BASE_VERSION:" >&2
		explain_patch_failure "$p" "$PATCHES/$p" "$src" "$log" &&
			echo "  $p applies only with fuzz; fuzz is an error here" >&2
		(cd "$src" && quilt pop -a -q) >/dev/null 2>&1 || rm -rf "$src"
		rm -rf "$src/.pc"
		die "series stopped at $p; the work tree is back at the base" \
			"rebase $p onto $BASE_VERSION (quilt push -f, fix the .rej, quilt refresh) and rerun"
	fi
	if grep -q 'with fuzz\|(offset [-0-9]* lines\?)' "$log"; then
		offsets=$((offsets + 1))
		grep -h 'with fuzz\|offset' "$log" | sed "s|^|  $p: |" >&2
		warn "$p applied with offsets (make check treats this as an error; refresh the patch)"
	fi
done

APPLIED_BASE_ID=$BASE_ID APPLIED_SERIES_HASH=$shash APPLIED_PATCHES=$PATCHES APPLIED_COUNT=${#patches[@]}
write_env "$stamp" APPLIED_BASE_ID APPLIED_SERIES_HASH APPLIED_PATCHES APPLIED_COUNT
if [ ${#patches[@]} -eq 0 ]; then
	status "work tree '$VARIANT' = base $BASE_VERSION (empty series)"
else
	note=""
	[ "$offsets" -gt 0 ] && note=", $offsets with offsets"
	status "applied ${#patches[@]} patches to $BASE_VERSION in '$VARIANT' (series ${shash:0:12}$note)"
fi
