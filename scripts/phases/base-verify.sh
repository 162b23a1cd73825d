#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# base-verify.sh [<base dir>]: the cached base tree must be exactly as
# unpacked. The hard-linked work trees share its files, so a tool writing one
# of them in place would change the base of every later run. Compares every
# file's content with the manifest base-tree.sh wrote at unpack time
# (<base dir>/manifest.sha256; mtimes do not matter: quilt touches the files
# it backs up) and lists files added since.
# Prints one line; exit 0 unchanged, 1 changed, 2 no manifest.
#
# base-verify.sh --make <base dir>: write the manifest (base-tree.sh, once,
# right after unpacking).
. "$(dirname "$0")/../lib/lib.sh"
phase_start base-verify
if [ "${1:-}" = --make ]; then
	dir=${2:?base-verify.sh --make <base dir>}
	(cd "$dir/linux" && find . -type f -print0 | LC_ALL=C sort -z |
		xargs -0 -r -P "$JOBS" -n 2000 sha256sum) | LC_ALL=C sort -k2 >"$dir/manifest.sha256.tmp" ||
		die "cannot hash $dir/linux" "check free space in $dir"
	mv "$dir/manifest.sha256.tmp" "$dir/manifest.sha256"
	exit 0
fi
dir=${1:-}
if [ -z "$dir" ]; then
	[ -f "$STATE/base.env" ] || die "no base prepared for BASE=$BASE" "run scripts/phases/base-tree.sh first"
	dir=$(. "$STATE/base.env" && dirname "$BASE_DIR")
fi
man=$dir/manifest.sha256
[ -f "$man" ] || die "$man not found (base unpacked by an older harness)" \
	"remove $dir; the next run unpacks it again with a manifest"
cd "$dir/linux" || die "no tree in $dir"
changed=$(sha256sum -c --quiet "$man" 2>/dev/null | sed -n 's/: FAILED.*$//p; s/: FAILED open or read$//p' | sort -u)
# The manifest's path is everything after "<64 hex digits><2 spaces>" (paths
# with spaces exist: tools/testing/selftests/devices/probe/boards/).
added=$(find . -type f | LC_ALL=C sort | LC_ALL=C comm -23 - <(cut -c67- "$man" | LC_ALL=C sort))
n=$(wc -l <"$man")
if [ -z "$changed" ] && [ -z "$added" ]; then
	echo "unchanged: $n files as unpacked"
	exit 0
fi
echo "changed: $(echo "$changed" | grep -c .) file(s) differ from the manifest${changed:+ ($(echo "$changed" | head -n 3 | tr '\n' ' '))}, $(echo "$added" | grep -c .) added${added:+ ($(echo "$added" | head -n 3 | tr '\n' ' '))}"
exit 1
