# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Patch series: a quilt series file's patches and mail series
# (series_list, series_mails, mail_dest_address: make export), its hash
# (series_hash: apply-series.sh's staleness check, check.sh), the
# directories it touches (series_dirs: make export's sparse checkout), the
# base it was checked against (series_checked_against), the project's own
# patches on top of the mails (project_patches_dir, with_project_patches),
# the copy a work tree was patched with (snapshot_series), why a patch did
# not apply (explain_patch_failure) and the empty series of a base kernel
# (empty_series: bench.sh, hw-emulated.sh). Used by the phases
# (apply-series.sh, base-tree.sh, initramfs.sh), check.sh, export.sh,
# mutants.sh, run.sh and runlist.sh.
# Part of lib.sh, which sources it: source lib.sh, not this file.

# series_hash <patches-dir>: hash of the series file and every patch it names,
# in order. An absent or empty series hashes to the empty-series value.
series_hash() {
	local dir=$1
	{
		echo "series-v1"
		if [ -f "$dir/series" ]; then
			series_list "$dir" | while read -r p; do
				echo "$p $(sha256_file "$dir/$p")"
			done
		fi
	} | sha256sum | cut -d' ' -f1
}

# series_list <patches-dir>: the patch names of a quilt series file, in order
# (series_mails below reads the file).
series_list() {
	series_mails "$1" | cut -f3
}

# series_mails <patches-dir>: which mail series (the unit sent to one
# maintainer tree, with its own cover letter) each patch belongs to, in
# order: "<id><TAB><destination><TAB><patch>" per patch. A series file
# starts a mail series with a comment line
#   # mail: <id> -- <destination, free text>
# and patches before the first such line belong to mail series "series"
# (destination empty): a series file without markers is one mail series.
series_mails() {
	[ -f "$1/series" ] || return 0
	awk '
		BEGIN { id = "series"; dest = "" }
		/^#[[:space:]]*mail:/ {
			s = $0; sub(/^#[[:space:]]*mail:[[:space:]]*/, "", s)
			id = s; sub(/[[:space:]].*/, "", id)
			dest = ""
			if (index(s, "--")) { dest = substr(s, index(s, "--") + 2); sub(/^[[:space:]]+/, "", dest); sub(/[[:space:]]+$/, "", dest) }
			next
		}
		# A patch line: comments, the quilt -pN option, trailing blanks dropped.
		{ p = $0; sub(/#.*/, "", p); sub(/[[:space:]]+-p[0-9].*/, "", p); sub(/[[:space:]]+$/, "", p) }
		p != "" { printf "%s\t%s\t%s\n", id, dest, p }
	' "$1/series"
}

# mail_dest_address <destination>: the first e-mail address a "# mail:"
# destination names (6.12's stable set: stable@vger.kernel.org), or nothing:
# make export makes it the To: of the mail series.
mail_dest_address() {
	printf '%s\n' "$1" | grep -oE '[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]+' | head -n 1 || true
}

# series_dirs <patches-dir>: the directories holding a file the series
# touches (each patch's ---/+++ paths), one per line, sorted: the cone of a
# sparse checkout in which git am of the series works (top-level files are
# always in a cone). make export and its test check out only these: a full
# checkout of the base is ~90,000 files (35 s here) for ~40 the series edits.
series_dirs() {
	series_list "$1" | while read -r p; do cat "$1/$p"; done |
		awk '/^(---|\+\+\+) [ab]\// { f = $2; sub(/^[ab]\//, "", f); sub(/\t.*/, "", f)
			if (f ~ /\//) { sub(/\/[^\/]*$/, "", f); print f } }' | sort -u
}

# series_checked_against <patches-dir>: the base version named on the
# series file's "# checked-against:" line (empty if none).
series_checked_against() {
	sed -n 's/^#[[:space:]]*checked-against:[[:space:]]*//p' "$1/series" 2>/dev/null | head -n 1
}

# project_patches_dir [default]: the project's own patches (tests and test
# aids that are not mailed) for this base, as an absolute directory, or
# nothing: selftests/project/<base> when it has a series, or PROJECT_PATCHES
# (empty: none; make check, make export, make bench's base kernel). With
# "default", the base's directory whatever PROJECT_PATCHES says (what could
# add a test, for the run list's skip reasons). The one rule of apply-series,
# mutants, hw-emulated, tree_skip_args and initramfs.
project_patches_dir() {
	local d=$HARNESS_ROOT/selftests/project/$BASE
	[ "${1:-}" = default ] || d=${PROJECT_PATCHES-$d}
	[ -n "$d" ] && [ -f "$d/series" ] && (cd "$d" && pwd)
	return 0
}

# with_project_patches <series dir> <project dir> <dest>: a quilt directory
# <dest> (made anew, symbolic links) whose series is the series of <series
# dir> followed by that of <project dir> (empty: none), its patches named
# project/<name>.
# The project's own patches (selftests/project/<base>: tests and test aids
# that are not mailed) go on top of the mails wherever the harness builds a
# kernel to run; make check and make export see the mails alone.
with_project_patches() {
	local s=$1 p=$2 d=$3 n
	rm -rf "$d"
	mkdir -p "$d/project"
	series_list "$s" | while read -r n; do
		mkdir -p "$d/$(dirname "$n")"
		ln -s "$s/$n" "$d/$n"
		echo "$n"
	done >"$d/series"
	[ -n "$p" ] || return 0
	series_list "$p" | while read -r n; do
		ln -s "$p/$n" "$d/project/$n"
		echo "project/$n"
	done >>"$d/series"
}

# snapshot_series <patches-dir> <work-dir>: copy the series file and its
# patches to <work-dir>/applied-series, so that the work tree can be popped
# later even if the patches directory has changed by then.
snapshot_series() {
	local dir=$1 work=$2 p
	rm -rf "$work/applied-series"
	mkdir -p "$work/applied-series"
	cp "$dir/series" "$work/applied-series/"
	series_list "$dir" | while read -r p; do
		mkdir -p "$work/applied-series/$(dirname "$p")"
		cp "$dir/$p" "$work/applied-series/$p"
	done
}

# explain_patch_failure <name> <patch file> <tree> <quilt log>: on stderr,
# the file and hunk of each failure in the log; returns 0 when the patch
# would apply to <tree> with fuzz (which the harness refuses), 1 otherwise.
explain_patch_failure() {
	local name=$1 mail=$2 tree=$3 log=$4
	awk -v p="$name" '
		/^patching file / { f = substr($0, 15) }
		/^Hunk #[0-9]+ FAILED/ { printf "  %s: %s: %s\n", p, f, $0 }
		/can.t find file to patch/ { printf "  %s: a file it patches does not exist\n", p }
		/Reversed .or previously applied. patch detected/ { printf "  %s: %s: already applied (reversed patch)\n", p, f }
	' "$log" >&2
	(cd "$tree" && patch -p1 --dry-run --fuzz=2 -s <"$mail" >/dev/null 2>&1)
}

# empty_series: the series directory of the base kernel (no patches);
# prints its path.
empty_series() {
	mkdir -p "$STATE/empty-series"
	echo "# the base kernel: no patches" >"$STATE/empty-series/series"
	echo "$STATE/empty-series"
}
