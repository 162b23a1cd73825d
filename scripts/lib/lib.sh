# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared helpers for the harness scripts. Source it; do not run it.
#
# Every phase prints exactly one status line when it ends:
#   [harness] <phase>: <what happened> (<elapsed>s)
# and failures print "[harness] <phase>: ERROR: <what> -- <what to do next>"
# on stderr before exiting non-zero.

set -o pipefail

# The harness's make command line (MAKEFLAGS: -j and its jobserver, the
# variables given to make run and the others) must not reach the kernel and
# selftest builds, which get their -j and variables from the harness: V=1
# there is the harness's (with_progress), not Kbuild's.
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL

HARNESS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${OUT:-$HARNESS_ROOT/out}
case "$OUT" in /*) ;; *) OUT=$PWD/$OUT ;; esac
export OUT HARNESS_ROOT

# die and the status helpers are defined below; a bad BASE is reported with
# them before any work.
_input_error=""

# The bases: the kernel trees a series is written for. This table is their
# only description; everything else derives from BASE.
#   BASE=mainline  the maintainers' tree: Debian's linux-source-7.3 (7.3.4)
#                  from trixie-backports; series patches/mainline (default)
#   BASE=6.12      the LTS backport: Debian 12's linux-source-6.12; series
#                  patches/6.12
# Each base is one pinned Debian package fetched with a private apt sources
# list under $OUT/cache/apt (the system's apt configuration is not touched)
# and checked against the sha256 below. When the suite no longer has the
# pinned version (Debian drops a stable update when the next one comes),
# base-tree.sh takes the newest version of the same upstream series
# (BASE_SERIES: 7.3.y, 6.12.y) in the same suite, verified by apt against the
# suite's signed index instead of the pin, says so, and records it
# (metadata.json: base.package_version, base.pin_fallback); another series
# is refused. BASE_APT_SUITE='<uri> <suite>' and BASE_APT_KEYRING=<file>
# replace the suite and its signing keyring (a mirror; the harness test's
# stand-in index). KERNEL_SRC=<tree> replaces the package; BASE then only
# picks the series and the work/results namespace.
BASE=${BASE:-mainline}
# BASE_DEB_SHA256 from the caller: the sha256 of a BASE_DEB file of a newer
# version of the series than the pin (base-tree.sh, fetch_deb).
BASE_DEB_SHA256_GIVEN=${BASE_DEB_SHA256:-}
case "$BASE" in
	mainline)
		BASE_PACKAGE=linux-source-7.3 BASE_PACKAGE_VERSION=7.3.4-1~bpo13+1 BASE_SERIES=7.3
		BASE_SUITE="http://deb.debian.org/debian trixie-backports"
		BASE_DEB_SHA256=703e369ddd4cce971452f5a593ee55df3a5c10c83caf0fa0df039633ed181ee3
		BASE_DEB_TARBALL=usr/src/linux-source-7.3.tar.xz
		BASE_CLANG_MIN=17.0.1 ;;  # Documentation/process/changes.rst
	6.12)
		BASE_PACKAGE=linux-source-6.12 BASE_PACKAGE_VERSION=6.12.118-1~deb12u1 BASE_SERIES=6.12
		BASE_SUITE="http://deb.debian.org/debian-security bookworm-security"
		BASE_DEB_SHA256=896aff3b39299fa0dd36fef4f5db56ab189182e39abbbb1227dafdc7fcfe3fc3
		BASE_DEB_TARBALL=usr/src/linux-source-6.12.tar.xz
		BASE_CLANG_MIN=13.0.1 ;;
	*) _input_error="BASE=$BASE: use BASE=mainline (7.3.4, the default) or BASE=6.12" ;;
esac
BASE_SUITE=${BASE_APT_SUITE:-${BASE_SUITE:-}}
BASE_KEYRING=${BASE_APT_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}
BASES="mainline 6.12"
# The QEMU of the TCG test machine (host side): Debian 12's backports build,
# installed by deps.sh through a private apt list (Documentation/harness.rst,
# "QEMU": 7.2 cannot run the mainline host's guests).
HOST_QEMU_PACKAGE=qemu-system-arm
HOST_QEMU_VERSION=1:10.0.2+ds-2+deb13u1~bpo12+1
HOST_QEMU_SUITE=bookworm-backports
# upstream_series <debian version>: its upstream major.minor ("1:10.0.2+ds-2"
# -> 10.0, "6.12.117-1~deb12u1" -> 6.12; "7.3~rc7-1" -> 7.3~rc7, no series).
upstream_series() {
	local v=${1#*:}
	v=${v%-*}
	echo "$v" | sed -E 's/^([0-9]+\.[0-9]+)([.+].*)?$/\1/'
}
# newest_in_series <series> <version>...: the newest Debian version of that
# upstream series (dpkg's ordering); nothing if none.
newest_in_series() {
	local want=$1 v best=""
	shift
	for v in "$@"; do
		[ "$(upstream_series "$v")" = "$want" ] || continue
		if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then best=$v; fi
	done
	[ -n "$best" ] && echo "$best"
	return 0
}
# pick_version <pinned> <series> <version>...: the pinned version when it
# is among the versions, else the newest of its series (newest_in_series);
# nothing if neither.
pick_version() {
	local pin=$1 series=$2
	shift 2
	if printf '%s\n' "$@" | grep -qxF -- "$pin"; then echo "$pin"; else newest_in_series "$series" "$@"; fi
}
# version_ge <a> <b>: version a >= version b.
version_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" = "$2" ]; }
# clang_version: this machine's clang as x.y.z, empty without one.
clang_version() { clang --version 2>/dev/null | head -n 1 | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -n 1; }
# Work trees, state and results of different bases (and of a KERNEL_SRC
# tree) never share a directory.
if [ -n "${KERNEL_SRC:-}" ]; then BASE_NS=$BASE-src; else BASE_NS=$BASE; fi
WORK=$OUT/work/$BASE_NS
STATE=$OUT/state/$BASE_NS
RESULTS_DIR=$OUT/results/$BASE_NS
SERIES_DEFAULT=$HARNESS_ROOT/patches/$BASE
# PATCHES given by the user is exported (absolute) to every child; the
# default is not, so that a child started with another BASE (make test)
# takes its own base's series.
if [ -n "${PATCHES:-}" ]; then
	case "$PATCHES" in /*) ;; *) PATCHES=$PWD/$PATCHES ;; esac
	export PATCHES
else
	PATCHES=$SERIES_DEFAULT
fi
export BASE BASE_NS WORK STATE RESULTS_DIR

# Cross toolchain and kernel build variables shared by every phase.
# KARCH=x86_64 (make check only) builds the kernel for x86_64 instead, with
# the host's gcc on an x86_64 host or x86_64-linux-gnu-gcc elsewhere.
KARCH=${KARCH:-arm64}
ARCH=$KARCH
export ARCH

# toolchain_for <karch> [<llvm>]: set KMAKE_TC to the make variables that
# build for <karch> (arm64 or x86_64), with LLVM=<llvm> when given (arm64).
# ARCH is not among them: it comes from the environment or the caller.
toolchain_for() {
	local karch=$1 llvm=${2:-} x c
	if [ "$karch" = x86_64 ]; then
		if [ "$(uname -m)" = x86_64 ]; then x=${X86_CROSS:-}; else x=${X86_CROSS:-x86_64-linux-gnu-}; fi
		KMAKE_TC=(CROSS_COMPILE="$x" CC="ccache ${x}gcc")
	elif [ -n "$llvm" ]; then
		KMAKE_TC=(LLVM="$llvm" CC="ccache clang")
	else
		c=${CROSS_COMPILE:-aarch64-linux-gnu-}
		KMAKE_TC=(CROSS_COMPILE="$c" CC="ccache ${c}gcc")
	fi
}

# This run's toolchain.
[ -n "${LLVM:-}" ] && [ "$KARCH" != x86_64 ] && export LLVM
if [ "$KARCH" = x86_64 ]; then
	# An x86_64 build (make check) must not inherit the arm64 prefix of
	# the script that started it: merge_config.sh and olddefconfig read
	# CROSS_COMPILE from the environment to probe the compiler.
	toolchain_for x86_64
	CROSS_COMPILE=${KMAKE_TC[0]#CROSS_COMPILE=}
	export CROSS_COMPILE
elif [ -z "${LLVM:-}" ]; then
	CROSS_COMPILE=${CROSS_COMPILE:-aarch64-linux-gnu-}
	export CROSS_COMPILE
fi
toolchain_for "$KARCH" "${LLVM:-}"
KMAKE_TOOLCHAIN=("${KMAKE_TC[@]}")

# USER_CROSS: the GCC prefix for arm64 user programs (KVM selftests,
# benchmark programs, test fixtures): always GCC, also when the kernel is
# built with LLVM=1 (Debian's cross libc gives the static libc); empty on
# an arm64 host unless FORCE_CROSS is set.
if [ "$(uname -m)" = aarch64 ] && [ -z "${FORCE_CROSS:-}" ]; then
	USER_CROSS=""
else
	USER_CROSS=aarch64-linux-gnu-
	case "${CROSS_COMPILE:-}" in *aarch64*) USER_CROSS=$CROSS_COMPILE ;; esac
fi

# kernel_cc_version: the first line of the kernel compiler's --version.
kernel_cc_version() {
	if [ -n "${LLVM:-}" ]; then clang --version | head -n 1
	else "${CROSS_COMPILE}gcc" --version | head -n 1; fi
}
JOBS=${JOBS:-$(nproc)}
case "$JOBS" in ''|0|*[!0-9]*) _input_error=${_input_error:-"JOBS=$JOBS: use a whole number of parallel jobs, 1 or more"} ;; esac
case "${KCIDB_URL_BASE:-}" in *[[:space:]]*) ;; ''|https://?*|http://?*|file://?*) _kub_ok=1 ;; esac
[ -n "${_kub_ok:-}" ] || _input_error=${_input_error:-"KCIDB_URL_BASE=$KCIDB_URL_BASE: use https://<file server>/<dir> (or http://, file://), the URL of out/results/<base>/"}
unset _kub_ok

# Reproducible, cache-friendly builds: the same inputs give the same objects.
export KBUILD_BUILD_USER=harness KBUILD_BUILD_HOST=harness
export KBUILD_BUILD_TIMESTAMP="${KBUILD_BUILD_TIMESTAMP:-1970-01-01}"
# ccache lives outside the clone (and outside OUT), so that a fresh clone on a
# used machine, as in CI, builds warm; CCACHE_BASEDIR makes the objects of one
# clone's out/ hit for another's. CCACHE_DIR overrides; make distclean keeps it.
if [ -z "${CCACHE_DIR:-}" ]; then
	if [ -n "${XDG_CACHE_HOME:-}" ] || [ -n "${HOME:-}" ]; then
		CCACHE_DIR=${XDG_CACHE_HOME:-$HOME/.cache}/kvm-irq-scaling/ccache
	else
		CCACHE_DIR=$OUT/cache/ccache
	fi
fi
export CCACHE_DIR
export CCACHE_BASEDIR=$OUT
export CCACHE_NOHASHDIR=1
export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-time_macros,include_file_mtime,include_file_ctime}

PHASE=${PHASE:-harness}
_phase_t0=$(date +%s.%N)

phase_start() {
	PHASE=$1
	_phase_t0=$(date +%s.%N)
}

elapsed() {
	awk -v a="$_phase_t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'
}

# status "message": the phase's one status line.
status() {
	echo "[harness] $PHASE: $* ($(elapsed)s)"
}

info() {
	echo "[harness] $PHASE: $*"
}

warn() {
	echo "[harness] $PHASE: WARNING: $*" >&2
}

# die "what went wrong" ["what to do next"]: a harness error (bad input, a
# missing tool, a build that failed): exit status 2. Test failures are 1.
die() {
	if [ -n "${2:-}" ]; then
		echo "[harness] $PHASE: ERROR: $1 -- $2" >&2
	else
		echo "[harness] $PHASE: ERROR: $1" >&2
	fi
	exit 2
}
[ -z "$_input_error" ] || die "$_input_error"

# The make targets take their input from variables, never from arguments:
# a guessed "scripts/run.sh --help" or "--dryrun" is refused, not ignored
# into a real run. The one argument is --dry-run, of the targets that have
# a dry run (make: DRY_RUN=1; clean.sh reads DRY_RUN itself); DRY_RUN
# anywhere else, or with another value, is refused: a real run would start.
case "$(basename "$0")" in
	run.sh|hw-run.sh|hw-bench.sh|hw-pv-ab.sh|clean.sh)
		case "${DRY_RUN-0}" in 0|1) ;; *)
			die "DRY_RUN=$DRY_RUN: use DRY_RUN=1 (a dry run) or DRY_RUN=0 (a real one)" ;;
		esac ;;
	*)
		case "${DRY_RUN-0}" in 0) ;; *)
			die "DRY_RUN=$DRY_RUN: this command has no dry run and would run for real" \
				"unset DRY_RUN (dry runs: make run, hw-run, hw-bench, hw-pv-ab, clean, distclean with DRY_RUN=1)" ;;
		esac ;;
esac
if [ "${BASH_SOURCE[1]:-}" = "$0" ]; then
	case "$(basename "$0")" in
		run.sh|hw-run.sh|hw-bench.sh|hw-pv-ab.sh)
			case "$*" in ""|--dry-run) ;; *)
				die "$(basename "$0"): unknown argument(s) '$*'" \
					"the only one is --dry-run (make: DRY_RUN=1); the rest are variables (make help)" ;;
			esac ;;
		test.sh|check.sh|modexport.sh|mutants.sh|export.sh|bench.sh|hw-emulated.sh)
			[ $# -gt 0 ] && die "$(basename "$0") takes no arguments ('$*')" \
				"set variables instead, as make does (make help; Documentation/harness.rst)" ;;
	esac
fi

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
check_out

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

# need_tools tool... : fail with the Debian package line when a tool is missing.
need_tools() {
	local missing=()
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 || missing+=("$t")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	die "missing tool(s): ${missing[*]}" "run 'make deps' as root (or: $("$HARNESS_ROOT"/scripts/deps.sh --print))"
}

# write_env <file> VAR...: the one writer of the harness's env files
# (base.env, applied.env, initramfs.env, boot.env): VAR=value lines, each
# value quoted with printf %q so that any value (quotes, spaces) survives;
# written to a temporary file and renamed. Read them with bash's "." or
# with read_env() in scripts/lib/harnesslib.py (shlex), nothing else.
write_env() {
	local f=$1 v
	shift
	for v in "$@"; do
		printf '%s=%q\n' "$v" "${!v}"
	done >"$f.tmp" && mv "$f.tmp" "$f"
}

sha256_file() {
	sha256sum "$1" | cut -d' ' -f1
}

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

# show_build_errors <log>: the error lines of a failed build, on stderr.
show_build_errors() {
	echo "---- errors from $1 ----" >&2
	grep -E 'error:|Error [0-9]+|undefined reference|undefined!' "$1" | head -n 20 >&2
	echo "----" >&2
}

# with_progress <what> <log> <cmd>...: <cmd>'s output goes to <log>; while
# it runs, one line "<what>: <N>s, <L> lines of <log>" every PROGRESS_SECONDS
# (30), so that no download, unpack or build is silent for minutes. V=1
# shows the log on the console as it is written instead. Returns <cmd>'s
# exit status.
with_progress() {
	local what=$1 log=$2 t0 ticker rc=0
	shift 2
	t0=$(date +%s)
	if [ "${V:-0}" = 1 ]; then
		"$@" 2>&1 | tee "$log"
		return "${PIPESTATUS[0]}"
	fi
	# The ticker must not outlive the command: a sleep left behind would
	# keep the OUT lock (fd 9) for up to PROGRESS_SECONDS after the
	# script ends. So it does not hold fd 9, and takes its sleep with it.
	(
		exec 9>&-
		sp=
		trap 'kill $sp 2>/dev/null; exit 0' TERM
		while :; do
			sleep "${PROGRESS_SECONDS:-30}" &
			sp=$!
			wait "$sp"
			kill -0 $$ 2>/dev/null || exit 0
			info "$what: $(($(date +%s) - t0))s, $(wc -l <"$log" 2>/dev/null || echo 0) lines of $log"
		done
	) &
	ticker=$!
	"$@" >"$log" 2>&1 || rc=$?
	kill "$ticker" 2>/dev/null || true
	wait "$ticker" 2>/dev/null || true
	return "$rc"
}

# private_apt_opts NAME: set APT_OPTS, the options that make apt-get and
# apt-cache read only the private source list $OUT/cache/apt/sources-NAME.list
# and keep its index in lists-NAME (the system's sources and lists are never
# touched). private_apt NAME LINE...: also write that list (one LINE each)
# and the directories apt needs. The one rule for the three private lists:
# the base's package (base-tree.sh), the pinned host QEMU (deps.sh) and a
# prebuilt Debian kernel (ci/debian-kernel.sh).
private_apt_opts() {
	local apt=$OUT/cache/apt
	APT_OPTS=(-o "Dir::Etc::SourceList=$apt/sources-$1.list" -o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$apt/lists-$1")
}
private_apt() {
	local name=$1 apt=$OUT/cache/apt
	shift
	mkdir -p "$apt/lists-$name/partial" "$apt/archives/partial" "$apt/debs"
	printf '%s\n' "$@" >"$apt/sources-$name.list"
	private_apt_opts "$name"
}

# log_fix <log> <fix>: the fix to name for a command that failed with its
# output in <log>: a full disk when the log says so (apt reports one as a
# failed fetch), <fix> otherwise.
log_fix() {
	if grep -q 'No space left on device' "$1" 2>/dev/null; then
		echo "the disk is full (No space left on device, in $1): free space on $(df -P "$(dirname "$1")" | awk 'NR == 2 { print $6 }') and rerun"
	else
		echo "$2"
	fi
}

# run_logged <logfile> cmd...: run a command with its output in a log; on
# failure print the log's tail so the error is visible without opening it.
run_logged() {
	local log=$1
	shift
	if ! with_progress "$(basename "$log" .log)" "$log" "$@"; then
		echo "---- last 40 lines of $log ----" >&2
		tail -n 40 "$log" >&2
		echo "----" >&2
		return 1
	fi
}

# build_dir: the O= directory of the current VARIANT, FRAGMENTS and toolchain
# (BUILD_DIR in the environment wins). Derived, never stored, so that runs
# with different configs cannot pick up each other's build.
build_dir() {
	if [ -n "${BUILD_DIR:-}" ]; then
		echo "$BUILD_DIR"
		return
	fi
	local f name=""
	for f in ${FRAGMENTS:-kvm-host}; do
		f=$(basename "$f" .config)
		name=${name:+$name+}$f
	done
	[ -n "${LLVM:-}" ] && name=$name-llvm
	echo "$WORK/${VARIANT:-patched}/build-$name"
}

# empty_series: the series directory of the base kernel (no patches);
# prints its path.
empty_series() {
	mkdir -p "$STATE/empty-series"
	echo "# the base kernel: no patches" >"$STATE/empty-series/series"
	echo "$STATE/empty-series"
}

# build_kernel_variant <variant> <series dir>: the work tree, .config and
# kernel image of one variant (make bench's and make hw-emulated's base and
# patched kernels: the same pipeline, two work trees). Exits the caller
# with the phase's status when one fails.
build_kernel_variant() {
	VARIANT=$1 PATCHES=$2 "$HARNESS_ROOT"/scripts/phases/apply-series.sh || exit $?
	VARIANT=$1 "$HARNESS_ROOT"/scripts/phases/config.sh || exit $?
	VARIANT=$1 "$HARNESS_ROOT"/scripts/phases/build-kernel.sh || exit $?
}

# prepare_native_selftests: for make hw-run / hw-bench on an arm64 host: the
# base tree and series in work tree $VARIANT (default hw), its UAPI headers
# (no kernel build needed) and the KVM selftests built natively against them.
# Sets build to the directory that holds them.
prepare_native_selftests() {
	export VARIANT=${VARIANT:-hw}
	# The kit's packages (an arm64 host has no cross toolchain to need).
	KIT=1 "$HARNESS_ROOT"/scripts/deps.sh || exit 2
	"$HARNESS_ROOT"/scripts/phases/base-tree.sh || exit 2
	"$HARNESS_ROOT"/scripts/phases/apply-series.sh || exit 2
	build=$WORK/$VARIANT/build-hw
	mkdir -p "$build"
	make -s -C "$WORK/$VARIANT/src" O="$build" headers_install >"$build/headers.log" 2>&1 ||
		die "headers_install failed" "see $build/headers.log"
	BUILD_DIR=$build "$HARNESS_ROOT"/scripts/phases/build-selftests.sh || exit 2
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

# require_kvm_arm64_host <hint>: the hw-* commands run only on an arm64 KVM
# host, as root; a harness error otherwise (hint: what to run here instead).
require_kvm_arm64_host() {
	[ "$(uname -m)" = aarch64 ] || die "this is not an arm64 host ($(uname -m))" "$1"
	[ -c /dev/kvm ] && [ -w /dev/kvm ] || die "no writable /dev/kvm" \
		"boot the kernel under test as a KVM host and run as root"
}

# private_apt_arm64: APT_OPTS (and an updated index) for Debian 12's arm64
# packages, which the harness downloads and unpacks but never installs (the
# guest's busybox, the L2 VMM): a private sources list and lists directory,
# an empty dpkg status and arm64 as apt's only architecture, so dpkg's
# architectures and the system's apt configuration stay as they are. The
# index is refreshed once a day.
private_apt_arm64() {
	local apt=$OUT/cache/apt kr='[arch=arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]'
	need_tools apt-get apt-cache dpkg-deb
	private_apt arm64 "deb $kr http://deb.debian.org/debian bookworm main" \
		"deb $kr http://deb.debian.org/debian bookworm-updates main" \
		"deb $kr http://deb.debian.org/debian-security bookworm-security main"
	[ -f "$apt/status-arm64" ] || : >"$apt/status-arm64"
	APT_OPTS+=(-o "Dir::State::status=$apt/status-arm64" -o APT::Architecture=arm64 -o APT::Architectures::=arm64
		-o "Dir::Cache=$apt" -o APT::Sandbox::User=root -q)
	if [ -z "$(find "$apt/lists-arm64" -maxdepth 1 -name '*_Packages*' -mmin -1440 2>/dev/null | head -n 1)" ]; then
		run_logged "$apt/update-arm64.log" apt-get "${APT_OPTS[@]}" update >&2 ||
			die "apt-get update of bookworm's arm64 index failed (log: $apt/update-arm64.log)" \
				"$(log_fix "$apt/update-arm64.log" "check the network and deb.debian.org")"
	fi
}

# busybox_arm64: the path of an arm64 busybox-static binary (checked to be
# an aarch64 ELF) for the guests' initramfs, or a harness error. The
# installed busybox-static:arm64 where there is one (an arm64 host, the
# hardware kit); elsewhere Debian 12's arm64 package, downloaded and
# unpacked under $OUT/cache/busybox/<version>/ (data for the initramfs,
# not a host tool: nothing is installed).
busybox_arm64() {
	local bb ver dir
	bb=$(dpkg -L busybox-static:arm64 2>/dev/null | grep -m1 '/busybox$' || true)
	if [ -z "$bb" ] || [ ! -f "$bb" ]; then
		private_apt_arm64
		ver=$(apt-cache "${APT_OPTS[@]}" policy busybox-static 2>/dev/null | awk '/Candidate:/ { print $2 }')
		[ -n "$ver" ] && [ "$ver" != "(none)" ] ||
			die "bookworm's arm64 index has no busybox-static" "see $OUT/cache/apt/update-arm64.log"
		dir=$OUT/cache/busybox/$(echo "$ver" | tr ':~+' '___')
		bb=$dir/root/bin/busybox
		if [ ! -f "$dir/.ok" ]; then
			rm -rf "$dir"
			mkdir -p "$dir/root"
			(cd "$dir" && run_logged "$dir/download.log" apt-get "${APT_OPTS[@]}" download "busybox-static=$ver") >&2 ||
				die "cannot download busybox-static=$ver (arm64; log: $dir/download.log)" \
					"$(log_fix "$dir/download.log" "check the network and deb.debian.org")"
			dpkg-deb -x "$dir"/busybox-static_*_arm64.deb "$dir/root" ||
				die "cannot unpack $(echo "$dir"/busybox-static_*_arm64.deb)" "check free space under $dir"
			[ -f "$bb" ] || die "busybox-static $ver (arm64) has no bin/busybox" "see $dir"
			echo "$ver" >"$dir/.ok"
		fi
	fi
	[ "$(od -An -tx1 -j18 -N2 "$bb" | tr -d ' ')" = b700 ] ||
		die "$bb is not an aarch64 binary" "remove it (make clean keeps cache/: rm -r $OUT/cache/busybox) and rerun"
	echo "$bb"
}

# in_root <root> <command>...: run a command inside a Debian root file
# system the harness made under OUT (LAVA's dispatcher, the bare-system
# install test), as root. A private mount namespace holds its /proc, /sys,
# /dev, /tmp and a bind mount of OUT at the same path (so the command sees
# the harness's files where the host does): the mounts end with the
# command, whatever way it ends, and are never visible on the host (make
# clean can never walk into a bound /dev). IN_ROOT_TIMEOUT=<seconds> bounds
# it (timeout's exit 124).
in_root() {
	local root=$1 tmo=()
	shift
	[ -z "${IN_ROOT_TIMEOUT:-}" ] || tmo=(timeout "$IN_ROOT_TIMEOUT")
	[ "$(id -u)" -eq 0 ] || die "running a command in $root needs root (chroot, mounts)" "run as root"
	need_tools unshare chroot
	[ -x "$root/bin/sh" ] || die "$root is not a root file system (no bin/sh)" "remove it and rerun: it is rebuilt"
	"${tmo[@]}" unshare --mount --propagation private -- sh -ec '
		r=$1; o=$2; shift 2
		mount -t proc proc "$r/proc"
		mount -t sysfs sys "$r/sys"
		mount --rbind /dev "$r/dev"
		mount -t tmpfs tmp "$r/tmp"
		mkdir -p "$r$o"
		mount --bind "$o" "$r$o"
		[ -f /etc/resolv.conf ] && [ -f "$r/etc/resolv.conf" ] && mount --bind /etc/resolv.conf "$r/etc/resolv.conf"
		exec chroot "$r" "$@"' in_root "$root" "$OUT" "$@"
}

# pack_cpio <dir> <out>: <dir> as a newc initramfs owned by root, files in
# a stable order (the same tree gives the same bytes); a harness error if
# it cannot be written (a full disk).
pack_cpio() {
	need_tools cpio
	(cd "$1" && find . | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0 >"$2") ||
		die "cannot write the initramfs $2" "check free space (df -h $(dirname "$2"))"
}

# result <group/name> <pass|fail|skip|error> [note]: the one writer of a
# test result of the harness's own test scripts: a results.tsv line when
# RESULTS_TSV is set, a status line always; RESULTS_PASSED/RESULTS_FAILED
# count them (skip counts as neither; error as failed).
RESULTS_PASSED=0
RESULTS_FAILED=0
result() {
	case "$2" in
		pass) RESULTS_PASSED=$((RESULTS_PASSED + 1)) ;;
		fail|error) RESULTS_FAILED=$((RESULTS_FAILED + 1)) ;;
		skip) ;;
		*) die "result $1: '$2' is not pass, fail, skip or error" ;;
	esac
	[ -n "${RESULTS_TSV:-}" ] && printf '%s\t%s\t%s\n' "$1" "$2" "$(echo "${3:-}" | tr '\t\n' '  ')" >>"$RESULTS_TSV"
	echo "[harness] $PHASE: $(echo "$2" | tr a-z A-Z) $1${3:+: $3}"
	return 0
}

# results_end: the test script's last line and exit status (1 if any failed).
results_end() {
	status "$RESULTS_PASSED passed, $RESULTS_FAILED failed"
	[ "$RESULTS_FAILED" -eq 0 ] || exit 1
	exit 0
}

# dynamic_binaries <dir>: the executables under <dir> that need a dynamic
# loader (a PT_INTERP program header), one per line. readelf (binutils, which
# deps.sh installs) reads any ELF; a missing readelf is an error, never a pass.
dynamic_binaries() {
	local f
	need_tools readelf
	while IFS= read -r -d '' f; do
		[ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
		readelf -lW "$f" 2>/dev/null | grep -q 'Requesting program interpreter' && echo "${f#"$1"/}"
	done < <(find "$1" -type f -perm -u+x -print0)
	return 0
}

# kernel_log_since <lines before> <out>: the kernel log written since a
# snapshot of <lines before> lines was taken, into <out>. A kernel log that
# cannot be read (no root, dmesg_restrict) gives a note in <out> and a
# warning, never an early exit.
kernel_log_since() {
	local before=$1 out=$2 log
	if log=$(dmesg 2>&1); then
		printf '%s\n' "$log" | tail -n +"$((before + 1))" >"$out" || true
	else
		warn "cannot read the kernel log ($log); the splat scan sees nothing (run as root)"
		echo "harness: kernel log not readable: $log" >"$out"
	fi
	return 0
}

# abspath <path>: <path> made absolute against the current directory (before
# any cd), without requiring it to exist.
abspath() {
	case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac
}

# resolve_patches: PATCHES made absolute, or a harness error that names the
# value given (the old "PATCHES=$(cd ...) || die PATCHES=$PATCHES" of four
# scripts printed it empty).
resolve_patches() {
	local p
	p=$(cd "$PATCHES" 2>/dev/null && pwd) ||
		die "PATCHES=$PATCHES does not exist" "name a series directory (patches/<base>, the default)"
	PATCHES=$p
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

# check_name <VAR> <value>: a name used as one path component.
check_name() {
	case "$2" in
		''|.|..|*/*|*[!A-Za-z0-9._@+-]*) die "$1='$2' is not a plain name" \
			"use letters, digits and . _ @ + - only (no '/', not '.' or '..')" ;;
	esac
}

# check_uint <VAR> <value> <min>: a whole number >= min.
check_uint() {
	case "$2" in ''|*[!0-9]*) die "$1=$2: use a whole number (>= $3)" ;; esac
	[ "$2" -ge "$3" ] || die "$1=$2: use a whole number >= $3"
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

kernel_version() {
	awk -F' *= *' '
		$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 }
		$1 == "SUBLEVEL" { s = $2 } $1 == "EXTRAVERSION" { e = $2 }
		END { if (v != "") printf "%s.%s.%s%s\n", v, p, s, e }' "$1/Makefile"
}

check_tree() {
	local t=$1
	[ -f "$t/Makefile" ] && [ -n "$(kernel_version "$t")" ] ||
		die "$t is not a Linux kernel tree (no top-level Makefile with VERSION)" \
			"point KERNEL_SRC at the top of a kernel source tree"
	[ -d "$t/arch/arm64/kvm" ] ||
		die "$t has no arch/arm64/kvm" "KERNEL_SRC must be a kernel tree with arm64 KVM"
	[ -d "$t/tools/testing/selftests/kvm" ] ||
		die "$t has no tools/testing/selftests/kvm" "use a complete kernel tree (with tools/)"
}

# validate_tree_inputs: KERNEL_SRC (a complete kernel tree) and PATCHES (a
# series directory), before any lock, deletion or download (base-tree.sh
# checks KERNEL_SRC again when it copies it).
validate_tree_inputs() {
	if [ -n "${KERNEL_SRC:-}" ]; then
		[ -e "$KERNEL_SRC" ] || die "KERNEL_SRC=$KERNEL_SRC does not exist" \
			"set KERNEL_SRC to an existing kernel tree, or unset it to use $BASE_PACKAGE"
		[ -d "$KERNEL_SRC" ] || die "KERNEL_SRC=$KERNEL_SRC is not a directory" \
			"set KERNEL_SRC to the top directory of a kernel tree"
		check_tree "$(cd "$KERNEL_SRC" && pwd)"
	fi
	[ -d "$PATCHES" ] && [ -f "$PATCHES/series" ] || die "PATCHES=$PATCHES has no series file" \
		"point PATCHES at a directory with a quilt series file (patches/<base>)"
}

# validate_machine_inputs: the tree inputs, and HOST_MODE, GIC, SMP and MEM of
# the QEMU machine (make run, make bench, make mutants), before any work; a
# bad one exits 2.
validate_machine_inputs() {
	validate_tree_inputs
	case "${HOST_MODE:-vhe}" in vhe|nvhe) ;; *) die "HOST_MODE=$HOST_MODE: use vhe or nvhe" ;; esac
	case "${GIC:-3}" in 2|3) ;; *) die "GIC=$GIC: use 3 (GICv3+ITS) or 2" ;; esac
	check_uint SMP "${SMP:-2}" 1
	# QEMU's virt machine takes at most 8 CPUs with a GICv2 (its GIC has
	# no more CPU interfaces); it would refuse only after the build.
	[ "${GIC:-3}" != 2 ] || [ "${SMP:-2}" -le 8 ] ||
		die "SMP=$SMP with GIC=2: a GICv2 machine has at most 8 CPUs" "use SMP=8 or less, or GIC=3"
	case "${MEM:-2G}" in [1-9]*[0-9][MG]|[1-9][MG]) ;; *) die "MEM=$MEM: use a size like 2G or 1536M" ;; esac
	# LLVM=1 needs the clang the base supports; found out here, not after a
	# half-built kernel.
	if [ -n "${LLVM:-}" ] && command -v clang >/dev/null; then
		local have
		have=$(clang_version)
		version_ge "${have:-0}" "$BASE_CLANG_MIN" ||
			die "LLVM=1: BASE=$BASE ($BASE_SERIES) needs clang >= $BASE_CLANG_MIN, this machine has ${have:-an unknown one}" \
				"build with GCC (leave LLVM unset), or BASE=6.12 (clang >= 13.0.1)"
	fi
}

# validate_run_inputs: every variable of make run, checked before any work;
# a bad one exits 2 naming the fix.
validate_run_inputs() {
	local f s
	validate_machine_inputs
	case "${REPEAT:-1}" in ''|0*|*[!0-9]*) die "REPEAT=${REPEAT:-}: use a whole number of runs, 1 or more" ;; esac
	[ -z "${BOOT_TIMEOUT:-}" ] || check_uint BOOT_TIMEOUT "$BOOT_TIMEOUT" 1
	[ -z "${WATCHDOG:-}" ] || check_uint WATCHDOG "$WATCHDOG" 1
	case "${L2:-0}" in 0|1) ;; *) die "L2=$L2: use 1 (nested tests on) or 0" ;; esac
	check_name RUN_NAME "$RUN_NAME"
	[ -z "${VARIANT:-}" ] || check_name VARIANT "$VARIANT"
	for f in ${FRAGMENTS:-kvm-host}; do
		case "$f" in */*) s=$f ;; *) s=$HARNESS_ROOT/kernel-config/${f%.config}.config ;; esac
		[ -f "$s" ] || die "config fragment '$f' not found ($s)" \
			"available: $(cd "$HARNESS_ROOT/kernel-config" && ls *.config | tr '\n' ' ')"
	done
	for f in ${L2_IMAGES:-}; do
		[ -f "${f#*=}" ] || die "L2_IMAGES: ${f#*=} does not exist" "use name=<path to an arm64 Image>"
	done
	[ -f "$RUNLIST" ] || die "RUNLIST=$RUNLIST not found" "name a file like selftests/runlist-qemu.txt"
	for s in ${SKIPLISTS:-}; do
		[ -f "$s" ] || die "SKIPLISTS: $s not found" "name existing skip lists (selftests/skip-*.txt)"
	done
	validate_prebuilt_inputs
	# The run list, skip lists and ONLY against each other (the tree is
	# checked later, once it exists).
	local args=()
	for s in ${SKIPLISTS:-}; do args+=(--skip "$s"); done
	python3 "$HARNESS_ROOT/scripts/lib/runlist.py" "$RUNLIST" "${args[@]}" --only "${ONLY:-}" \
		--repeat "${REPEAT:-1}" -o /dev/null >/dev/null || exit 2
}

# validate_prebuilt_inputs: a kernel the harness did not build
# (KERNEL_IMAGE=<Image>, or "debian": Debian's arm64 kernel package, fetched
# by scripts/ci/debian-kernel.sh) with its KERNEL_CONFIG and KERNEL_MODULES
# (its lib/modules/<release>, with modules.dep), and KERNEL_HAS_SERIES.
validate_prebuilt_inputs() {
	case "${KERNEL_HAS_SERIES:-0}" in 0|1) ;; *) die "KERNEL_HAS_SERIES=$KERNEL_HAS_SERIES: use 1 (KERNEL_IMAGE carries the series) or 0" ;; esac
	if [ -z "${KERNEL_IMAGE:-}" ]; then
		[ -z "${KERNEL_CONFIG:-}${KERNEL_MODULES:-}" ] ||
			die "KERNEL_CONFIG/KERNEL_MODULES without KERNEL_IMAGE" "name the kernel: KERNEL_IMAGE=<arm64 Image> (or debian)"
		return 0
	fi
	[ "$KERNEL_IMAGE" = debian ] && return 0
	[ -f "$KERNEL_IMAGE" ] || die "KERNEL_IMAGE=$KERNEL_IMAGE does not exist" "name an arm64 Image (or KERNEL_IMAGE=debian)"
	case "$(head -c 64 "$KERNEL_IMAGE" | od -An -tx1 -j56 -N4 | tr -d ' \n')" in
		41524d64) ;;
		*) die "KERNEL_IMAGE=$KERNEL_IMAGE is not an arm64 Image (no ARM\\x64 magic at offset 56)" \
			"use the uncompressed arch/arm64/boot/Image (a distro's /boot/vmlinuz-* on arm64 is one; gunzip an Image.gz)" ;;
	esac
	[ -z "${KERNEL_CONFIG:-}" ] || [ -f "$KERNEL_CONFIG" ] || die "KERNEL_CONFIG=$KERNEL_CONFIG does not exist"
	[ -z "${KERNEL_MODULES:-}" ] || [ -f "$KERNEL_MODULES/modules.dep" ] ||
		die "KERNEL_MODULES=$KERNEL_MODULES has no modules.dep" "name the kernel's lib/modules/<release> directory (run depmod -b <root> <release> first)"
	[ -n "${KERNEL_MODULES:-}" ] || [ -z "${HARNESS_MODULES:-}" ] ||
		die "HARNESS_MODULES without KERNEL_MODULES" "name the kernel's lib/modules/<release> directory"
}

# param_default <target> <VAR>: VAR's default for <target>, as the scripts
# set it; "<unset>" where only setting it (even empty) changes something.
param_default() {
	case "$2" in
		BASE) echo mainline ;;
		PATCHES) echo "$SERIES_DEFAULT" ;;
		PROJECT_PATCHES|SKIPLISTS) echo "<unset>" ;;
		FRAGMENTS) echo kvm-host ;;
		HOST_MODE) echo vhe ;;
		GIC) echo 3 ;;
		SMP) case "$1" in bench) echo 4 ;; *) echo 2 ;; esac ;;
		MEM) case "$1" in bench) echo 3G ;; *) echo 2G ;; esac ;;
		RUNLIST) case "$1" in hw-run) echo "$HARNESS_ROOT/selftests/runlist-hw.txt" ;;
			*) echo "$HARNESS_ROOT/selftests/runlist-qemu.txt" ;; esac ;;
		BENCHLIST) case "$1" in hw-bench) echo "$HARNESS_ROOT/selftests/benchlist-hw.txt" ;;
			*) echo "$HARNESS_ROOT/selftests/benchlist-qemu.txt" ;; esac ;;
		REPS) case "$1" in hw-bench) echo 5 ;; *) echo 3 ;; esac ;;
		REPEAT) echo 1 ;;
		L2|KERNEL_HAS_SERIES) echo 0 ;;
		BOOT_TIMEOUT) echo 300 ;;
		VARIANT) echo patched ;;
		QEMU) echo qemu-system-aarch64 ;;
		*) echo "" ;;
	esac
}

# reproducer <target>: the make command that repeats a run of <target>:
# every variable params.tsv marks "repro" for it (scripts/lib/help.py
# --repro-vars) that is set and differs from its default. The one writer of
# every run's metadata.json "reproduce" (make run, bench, hw-run, hw-bench).
reproducer() {
	local t=$1 r="make $1" v d val
	for v in $(python3 "$HARNESS_ROOT/scripts/lib/help.py" --repro-vars "$t"); do
		[ -n "${!v+set}" ] || continue
		val=${!v}
		# (the base table sets BASE_DEB_SHA256 itself; the caller's is kept)
		[ "$v" = BASE_DEB_SHA256 ] && val=$BASE_DEB_SHA256_GIVEN
		d=$(param_default "$t" "$v")
		[ "$val" = "$d" ] && continue
		[ -z "$val" ] && [ "$d" != "<unset>" ] && continue
		r="$r $v='$val'"
	done
	echo "$r"
}

# run_reproducer: make run's reproducer (reproducer run).
run_reproducer() {
	reproducer run
}
