# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# OUT, the one directory the harness writes, and the directories it
# removes: check_out (run by lib.sh for every script before anything else:
# never /, $HOME, the project or above them; no space or colon), need_disk
# (make test, LAVA's root), lock_out (one harness command at a time per OUT,
# taken by the top-level targets; out_problem says why OUT cannot be
# written) and safe_rm_target (a directory the harness would rm -rf must be
# its own: make export's EXPORT_DIR), with the path helpers path_holds and
# abspath they use (abspath also for run.sh and export.sh).
# Part of lib.sh, which sources it: source lib.sh, not this file.

# path_holds <dir> <path>...: the first <path> that <dir> is or holds, both
# resolved (symlinks, ..); false when it holds none.
path_holds() {
	local r top
	r=$(realpath -m "$1")
	shift
	for top in "$@"; do
		top=$(realpath -m "$top")
		case "$top/" in "$r"/*) echo "$top"; return 0 ;; esac
	done
	return 1
}

# check_out: OUT, for every script before anything else (a lock, a status
# file, a deletion, a download): never /, $HOME, the project or a directory
# above them, and no space or colon in its path (Kbuild refuses those in
# the trees and build directories under OUT, after the download).
check_out() {
	local top
	case "$OUT" in *[[:space:]:]*)
		die "OUT='$OUT' has a space or a colon: the kernel builds under it would fail (Kbuild refuses them)" \
			"set OUT=<a directory whose path has neither>" ;;
	esac
	top=$(path_holds "$OUT" / "${HOME:-/}" "$HARNESS_ROOT") || return 0
	die "OUT=$OUT is $(realpath -m "$OUT"), which holds $top: refusing it" \
		"set OUT to a directory of the harness's own (default: out/ in the project)"
}

# need_disk GB : fail early, with numbers, when $OUT's file system cannot hold
# GB gigabytes of harness output (what $OUT already holds counts towards it).
need_disk() {
	local need_kb=$(($1 * 1024 * 1024)) have_kb used_kb
	mkdir -p "$OUT"
	have_kb=$(df -Pk "$OUT" | awk 'NR == 2 { print $4 }')
	used_kb=$(du -sk "$OUT" 2>/dev/null | cut -f1)
	[ $((have_kb + used_kb)) -ge "$need_kb" ] && return 0
	echo "[harness] $PHASE: ERROR: $OUT needs about $1 GB (it holds $((used_kb / 1048576)) GB, $((have_kb / 1048576)) GB free on its file system) -- free space there or set OUT=<dir on a larger file system>" >&2
	return 1
}

# abspath <path>: <path> made absolute against the current directory (before
# any cd), without requiring it to exist.
abspath() {
	case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac
}

# safe_rm_target <VAR> <path>: refuse (exit 2) a directory the harness would
# rm -rf when it is not clearly its own: /, $HOME, the project, OUT or any
# directory above them, or an existing non-empty directory without the
# harness's .harness-owned marker. Creates the directory with the marker.
safe_rm_target() {
	local var=$1 p r top
	p=$(abspath "$2")
	r=$(realpath -m "$p")
	top=$(path_holds "$r" / "${HOME:-/}" "$HARNESS_ROOT" "$OUT") &&
		die "$var=$2 is $r, which holds $top: refusing to remove it" \
			"set $var to a directory of its own (e.g. \$OUT/<name>)"
	if [ -d "$r" ] && [ -n "$(ls -A "$r" 2>/dev/null)" ] && [ ! -e "$r/.harness-owned" ]; then
		die "$var=$2 ($r) exists, is not empty and was not made by the harness: refusing to remove it" \
			"remove it yourself or pick another $var"
	fi
	mkdir -p "$r" && touch "$r/.harness-owned"
}

# rm_tree <path>...: rm -rf that never leaves the file system it starts on.
# A root under OUT (mmdebstrap's LAVA and install-test roots) keeps proc,
# sys, dev/pts and dev/shm mounted in the host's mount table when mmdebstrap
# is killed mid-run, and a plain rm -rf descends into them (seen 2026-12-07:
# proc and sys of a killed LAVA root; read-only, so nothing was lost; a
# bind mount of a host directory would have been emptied). So: nothing is
# removed while a file system is mounted below a path (the command
# stops, naming the mounts and the fix), and rm runs with --one-file-system.
rm_tree() {
	local p r mounts
	for p in "$@"; do
		[ -e "$p" ] || [ -L "$p" ] || continue
		r=$(realpath -m "$p")
		# mountinfo's 5th field is the mount point (a space is \040).
		mounts=$(awk -v r="$r" '{ m = $5; gsub(/\\040/, " ", m)
			if (index(m, r "/") == 1) print m }' /proc/self/mountinfo | sort -r)
		[ -z "$mounts" ] || die "not removing $p: file systems are mounted below it: ${mounts//$'\n'/ }" \
			"unmount them (umount -R '$r', or each of them), then run the command again"
	done
	for p in "$@"; do
		if mountpoint -q "$p"; then  # a disk mounted as OUT: its contents
			find "$p" -mindepth 1 -maxdepth 1 -exec rm -rf --one-file-system -- {} +
		else
			rm -rf --one-file-system -- "$p"
		fi
	done
}

# lock_out: one harness command at a time per OUT (flock on $OUT/.lock),
# taken by the top-level targets; nested scripts on the same OUT inherit it
# (HARNESS_LOCKED names the OUT locked: a child on another OUT, or make
# clean started from a run, takes that OUT's own lock).
# out_problem: why OUT cannot be written, in words (for lock_out's message).
out_problem() {
	local d=$OUT
	while [ ! -d "$d" ]; do d=$(dirname "$d"); done
	if touch "$d/.harness-write-test" 2>/dev/null; then
		rm -f "$d/.harness-write-test"
		echo "$d is writable; see the error above"
	elif grep -qs " $(df --output=target "$d" 2>/dev/null | tail -n 1) [^ ]* ro[, ]" /proc/mounts; then
		echo "$d is on a read-only file system"
	elif [ "$(df --output=avail "$d" 2>/dev/null | tail -n 1 | tr -d ' ')" = 0 ]; then
		echo "the file system of $d is full"
	else
		echo "$d is not writable by $(id -un)"
	fi
}

lock_out() {
	[ -n "${HARNESS_LOCKED:-}" ] && [ "$HARNESS_LOCKED" = "$OUT" ] && return 0
	# An OUT the harness makes (or finds empty) is marked as its own: make
	# clean/distclean remove only such a directory (scripts/clean.sh).
	if [ ! -d "$OUT" ] || [ -z "$(ls -A "$OUT" 2>/dev/null)" ]; then
		mkdir -p "$OUT" 2>/dev/null && touch "$OUT/.harness-owned" 2>/dev/null ||
			die "cannot create OUT=$OUT ($(out_problem))" "set OUT=<a writable directory> (make's variable or the environment)"
	fi
	# A read-only or foreign OUT: say so (a harness error), not a raw bash
	# message and exit 1, which reads as a failed test.
	{ exec 9>"$OUT/.lock"; } 2>/dev/null ||
		die "cannot write OUT=$OUT ($(out_problem))" "set OUT=<a writable directory>, or fix its permissions"
	flock -n 9 || die "another harness command is using OUT=$OUT (lock $OUT/.lock held by: $(cat "$OUT/.lock.owner" 2>/dev/null || echo unknown))" \
		"wait for it to finish, or use another OUT=<dir>"
	echo "pid $$: $0" >"$OUT/.lock.owner"
	export HARNESS_LOCKED=$OUT
}
