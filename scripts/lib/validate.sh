# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Input validation: every variable of a target is checked before any lock,
# deletion, download or build, and a bad one is a harness error (exit 2)
# naming the fix. The tools (need_tools), plain names and numbers
# (check_name, check_uint), the series and kernel trees (resolve_patches,
# check_tree, validate_tree_inputs), the QEMU machine and make run's
# variables (validate_machine_inputs, validate_run_inputs), a prebuilt
# kernel (validate_prebuilt_inputs) and the arm64 KVM host of the hw-*
# targets (require_kvm_arm64_host). Used by the front ends (run.sh,
# bench.sh, check.sh, export.sh, mutants.sh, hw-*.sh, ...) and the phases.
# lib.sh's own checks (BASE, JOBS, DRY_RUN, arguments) run when it is
# sourced; OUT's are in out.sh.
# Part of lib.sh, which sources it: source lib.sh, not this file.

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

# require_kvm_arm64_host <hint>: the hw-* commands run only on an arm64 KVM
# host, as root; a harness error otherwise (hint: what to run here instead).
require_kvm_arm64_host() {
	[ "$(uname -m)" = aarch64 ] || die "this is not an arm64 host ($(uname -m))" "$1"
	[ -c /dev/kvm ] && [ -w /dev/kvm ] || die "no writable /dev/kvm" \
		"boot the kernel under test as a KVM host and run as root"
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
