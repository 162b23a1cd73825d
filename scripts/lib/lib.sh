# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The harness's shell library: the one file every harness script sources,
# as . "$(dirname "$0")/../lib/lib.sh"; do not run it. It sets the globals
# every phase reads (OUT and HARNESS_ROOT; the base table: BASE's package,
# pinned version, suite, sha256 and minimum clang; the host QEMU pin; the
# per-base WORK, STATE, RESULTS_DIR and PATCHES; this run's toolchain:
# KARCH, CROSS_COMPILE, LLVM, KMAKE_TOOLCHAIN, USER_CROSS; JOBS; the
# reproducible-build and ccache variables; PHASE), sources its parts, which
# define the functions (each part's head says what it holds and who uses
# it), and, when sourced, refuses before any work a bad BASE, JOBS,
# KCIDB_URL_BASE or DRY_RUN, arguments the target does not take, and a
# dangerous OUT (check_out). The status and error lines every phase
# prints: output.sh.

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

# The parts, each defining functions only (results.sh also zeroes its
# counters), in dependency order: output.sh's die and status lines are
# used by all the others.
# shellcheck source=scripts/lib/output.sh
. "$HARNESS_ROOT/scripts/lib/output.sh"
# shellcheck source=scripts/lib/versions.sh
. "$HARNESS_ROOT/scripts/lib/versions.sh"
# shellcheck source=scripts/lib/state.sh
. "$HARNESS_ROOT/scripts/lib/state.sh"
# shellcheck source=scripts/lib/out.sh
. "$HARNESS_ROOT/scripts/lib/out.sh"
# shellcheck source=scripts/lib/validate.sh
. "$HARNESS_ROOT/scripts/lib/validate.sh"
# shellcheck source=scripts/lib/series.sh
. "$HARNESS_ROOT/scripts/lib/series.sh"
# shellcheck source=scripts/lib/runlist.sh
. "$HARNESS_ROOT/scripts/lib/runlist.sh"
# shellcheck source=scripts/lib/apt.sh
. "$HARNESS_ROOT/scripts/lib/apt.sh"
# shellcheck source=scripts/lib/build.sh
. "$HARNESS_ROOT/scripts/lib/build.sh"
# shellcheck source=scripts/lib/results.sh
. "$HARNESS_ROOT/scripts/lib/results.sh"
# shellcheck source=scripts/lib/repro.sh
. "$HARNESS_ROOT/scripts/lib/repro.sh"

# A bad BASE, JOBS or KCIDB_URL_BASE is reported with die (output.sh) once
# the globals are set, before any work.
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

# This run's toolchain (versions.sh's toolchain_for).
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

# OUT, for every script before anything else (out.sh).
check_out
