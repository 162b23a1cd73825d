# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the harness scripts. Source it; do not run it.
#
# Every phase prints exactly one status line when it ends:
#   [harness] <phase>: <what happened> (<elapsed>s)
# and failures print "[harness] <phase>: ERROR: <what> -- <what to do next>"
# on stderr before exiting non-zero.

set -o pipefail

HARNESS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${OUT:-$HARNESS_ROOT/out}
case "$OUT" in /*) ;; *) OUT=$PWD/$OUT ;; esac
export OUT HARNESS_ROOT

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
if [ "$KARCH" != x86_64 ] && [ -z "${LLVM:-}" ]; then
	CROSS_COMPILE=${CROSS_COMPILE:-aarch64-linux-gnu-}
	export CROSS_COMPILE
fi
toolchain_for "$KARCH" "${LLVM:-}"
KMAKE_TOOLCHAIN=("${KMAKE_TC[@]}")
JOBS=${JOBS:-$(nproc)}

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

# die "what went wrong" ["what to do next"]
die() {
	if [ -n "${2:-}" ]; then
		echo "[harness] $PHASE: ERROR: $1 -- $2" >&2
	else
		echo "[harness] $PHASE: ERROR: $1" >&2
	fi
	exit 1
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

# series_list <patches-dir>: the patch names of a quilt series file, in order.
series_list() {
	[ -f "$1/series" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]\+-p[0-9].*//' -e 's/[[:space:]]*$//' \
		-e '/^$/d' "$1/series"
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

# run_logged <logfile> cmd...: run a command with its output in a log; on
# failure print the log's tail so the error is visible without opening it.
run_logged() {
	local log=$1
	shift
	if ! "$@" >"$log" 2>&1; then
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
	echo "$OUT/work/${VARIANT:-patched}/build-$name"
}

# prepare_native_selftests: for make hw-run / hw-bench on an arm64 host: the
# base tree and series in work tree $VARIANT (default hw), its UAPI headers
# (no kernel build needed) and the KVM selftests built natively against them.
# Sets build to the directory that holds them.
prepare_native_selftests() {
	export VARIANT=${VARIANT:-hw}
	"$HARNESS_ROOT"/scripts/base-tree.sh || exit 1
	"$HARNESS_ROOT"/scripts/apply-series.sh || exit 1
	build=$OUT/work/$VARIANT/build-hw
	mkdir -p "$build"
	make -s -C "$OUT/work/$VARIANT/src" O="$build" headers_install >"$build/headers.log" 2>&1 ||
		die "headers_install failed" "see $build/headers.log"
	BUILD_DIR=$build "$HARNESS_ROOT"/scripts/build-selftests.sh || exit 1
}

# default_skiplists <platform> [host mode] [gic]: the skip lists that apply,
# most general first: selftests/skip-<platform>.txt,
# skip-<platform>-<mode>.txt, skip-<platform>-gicv<N>.txt and
# skip-base-<major>.<minor>.txt for the prepared base tree.
default_skiplists() {
	local platform=$1 mode=${2:-} gic=${3:-} f ver=""
	[ -f "$OUT/state/base.env" ] && ver=$(. "$OUT/state/base.env" && echo "$BASE_VERSION" | cut -d. -f1,2)
	for f in "skip-$platform.txt" ${mode:+"skip-$platform-$mode.txt"} \
		 ${gic:+"skip-$platform-gicv$gic.txt"} ${ver:+"skip-base-$ver.txt"}; do
		[ -f "$HARNESS_ROOT/selftests/$f" ] && echo "$HARNESS_ROOT/selftests/$f"
	done
}
