#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make check: the gates a maintainer applies before taking the series.
#
# The series is pushed patch by patch onto the base in work tree
# $WORK/$VARIANT (default "check"), one table row per patch; the first
# real problem stops the run with the patch named. Per patch:
#   apply       quilt push --fuzz=0; fuzz or an offset is an error
#   checkpatch  scripts/checkpatch.pl --strict on the mail; a message passes
#               only through a line in <series dir>/checkpatch-waivers.txt
#   arm64       incremental build (kvm-host config + check.config, which
#               selects every file the series changes) when kernel code changed;
#               a compiler warning the base build does not have is an error
#   x86_64      when code outside arch/arm64 changed (kernel/, virt/,
#               include/...; Documentation/ and tools/ exempt): the
#               x86-kvm config must build (CHECK_X86=all|final|none)
#   sparse      make C=2 on the touched .c files built in the arm64 config,
#               compared with the same files on the base
#   W=1         make W=1 on the same files, compared with the base
#   kdoc        scripts/kernel-doc -none on touched files with /** comments
#   selftests   the KVM selftests build when tools/testing/selftests/kvm
#               changed
# Then the final state is built with clang (LLVM=1, CHECK_CLANG=0 to skip):
# a warning is an error unless the base clang build has it too.
#
#   PATCHES=dir     series to check (default patches/)
#   CHECK_X86=all   x86_64 build after every patch that needs it (default);
#            final  only once, for the final state; none: never
#   CHECK_BUILD=full  every state builds the whole kernel (Image; x86_64:
#                     bzImage): a bisect build (default)
#               dirs  every state builds only the kbuild directories that
#                     hold the series' .c files (arm64; x86_64: its generic
#                     ones, and arch/x86/kvm/ when the series touches virt/ or
#                     the KVM/irqbypass headers), as a maintainer rebuilds a
#                     subsystem per patch; no vmlinux link
#               objs  every state builds the objects of the series' .c files
#                     that exist at that state (arm64; a header a patch
#                     changes rebuilds those of them that include it);
#                     x86_64 as with dirs; no vmlinux link. make test's
#                     default (README, "make test": what it does not catch)
#   VARIANT=check   work tree
# Results: $OUT/check/<base>/<run>/table.txt, check.json, logs/.
. "$(dirname "$0")/lib/lib.sh"
phase_start check
resolve_patches
validate_tree_inputs
lock_out
t_start=$(date +%s)
S=$HARNESS_ROOT/scripts

VARIANT=${VARIANT:-check}
CHECK_X86=${CHECK_X86:-all}
CHECK_CLANG=${CHECK_CLANG:-1}
CHECK_BUILD=${CHECK_BUILD:-full}
case "$CHECK_X86" in all|final|none) ;; *) die "CHECK_X86=$CHECK_X86" "use all, final or none" ;; esac
case "$CHECK_BUILD" in full|dirs|objs) ;; *) die "CHECK_BUILD=$CHECK_BUILD" "use full (whole kernel per state), dirs (the series' directories) or objs (the series' objects)" ;; esac
resolve_patches
[ -f "$PATCHES/series" ] || die "$PATCHES/series not found"
export VARIANT PATCHES

# clang only for its gate (make test runs without it).
clang_pkgs=""
[ "$CHECK_CLANG" = 0 ] || clang_pkgs="clang lld llvm"
EXTRA_PACKAGES="${EXTRA_PACKAGES:-} sparse $clang_pkgs" "$S"/deps.sh || exit 2
need_tools sparse perl quilt
[ "$CHECK_CLANG" = 0 ] || need_tools clang ld.lld
# The clang gate needs the clang the base supports; an older one is reported
# as not run (in the table and the status line), never as a pass.
clang_skip=""
if [ "$CHECK_CLANG" != 0 ]; then
	have_clang=$(clang_version)
	version_ge "${have_clang:-0}" "$BASE_CLANG_MIN" ||
		clang_skip="not run: needs clang >= $BASE_CLANG_MIN for $BASE, this machine has ${have_clang:-none}"
fi

"$S"/phases/base-tree.sh || exit 2
. "$STATE/base.env"

work=$WORK/$VARIANT
src=$work/src
res=$OUT/check/$BASE_NS/${CHECK_NAME:-$VARIANT}
rm -rf "$res"
mkdir -p "$res/logs"
table=$res/table.txt
rows=$res/rows.tsv
: >"$rows"
waivers=$PATCHES/checkpatch-waivers.txt
mapfile -t patches < <(series_list "$PATCHES")
if [ ${#patches[@]} -eq 0 ]; then
	echo "empty" >"$res/empty"
	status "the series in ${PATCHES#"$HARNESS_ROOT"/} is empty: nothing to check"
	exit 0
fi
for p in "${patches[@]}"; do
	[ -f "$PATCHES/$p" ] || die "series names $p but $PATCHES/$p does not exist"
done

# --- the work tree at the base -------------------------------------------
empty=$res/empty-series
mkdir -p "$empty"
: >"$empty/series"
PATCHES=$empty "$S"/phases/apply-series.sh || exit 2
# From here on the tree carries (a prefix of) this series: record it so the
# next apply-series.sh pops it, and mark the stamp so that it is never "up
# to date" for a real series.
# shellcheck disable=SC1091
. "$work/applied.env"
APPLIED_SERIES_HASH=checking-$(series_hash "$PATCHES")
write_env "$work/applied.env" APPLIED_BASE_ID APPLIED_SERIES_HASH APPLIED_PATCHES APPLIED_COUNT
snapshot_series "$PATCHES" "$work"
export QUILT_PATCHES=$PATCHES QUILT_PC=.pc
quilt() { command quilt --quiltrc=- "$@"; }

# kvm-host plus what compiles every file the series touches (check.config):
# CHECK_BUILD=objs builds exactly those objects, and one the config does not
# select would fail to build for that reason alone.
FRAGMENTS="kvm-host check" "$S"/phases/config.sh || exit 2
build=$(FRAGMENTS="kvm-host check" build_dir)
x86build=$(FRAGMENTS=x86-kvm build_dir)
# W=1 compiles with other flags: in the build directory of the gate, every
# W=1 call would make the next build recompile the files it checked and the
# prepare stage (vdso, asm-offsets, modpost), and the next W=1 call the
# same again. The W=1 objects live in a directory of their own, with the
# same .config, so that each side rebuilds only what a patch changed.
w1build=$build-W1
mkdir -p "$w1build"
cmp -s "$build/.config" "$w1build/.config" 2>/dev/null || cp "$build/.config" "$w1build/.config"
# The sparse this tree's Kbuild accepts (scripts/checker-valid.sh): with one
# it rejects, make C=2 warns and runs no sparse at all, and the gate would
# pass on nothing (it did on mainline with Debian 12's 0.6.4 until
# 2026-12-07). sparse_for (scripts/lib/apt.sh) builds Debian's newer one.
SPARSE=$(sparse_for "$src") || exit 2
info "sparse: $SPARSE ($("$SPARSE" --version 2>&1 | head -n 1))"

# --- helpers -------------------------------------------------------------
# The table is data: one record per row (scripts/lib/checklib.py writes
# rows.tsv, the table and the status line from it).
python3 "$S"/lib/checklib.py header "$table"
# row <n> <name> [gate=value...]: gates not named are "-".
row() {
	python3 "$S"/lib/checklib.py row "$rows" "$table" "$@"
}
# The current patch's cells, set as its gates pass; emit_row writes them.
declare -A cell
emit_row() {
	local g a=()
	for g in "${!cell[@]}"; do a+=("$g=${cell[$g]}"); done
	row "$n" "$p" "${a[@]}"
}
# gate_fail <gate[,gate...]> <label> <what> <next>: the row with these
# gates FAIL, then stop the check at this patch.
gate_fail() {
	local g
	for g in ${1//,/ }; do cell[$g]=FAIL; done
	emit_row
	fail "$p" "$2" "$3" "$4"
}

fail() { # fail <patch> <gate> <what> <next>
	echo "[harness] check: ERROR: $1: $2: $3" >&2
	[ -n "${4:-}" ] && echo "[harness] check:   next: $4" >&2
	finish 1 "$1" "$2" "$3"
}

# norm_warnings <log>...: the normalised warnings of build logs, sorted
# (checklib.py norm); new_lines <candidate> <baseline>: the lines of
# candidate not in baseline, as a multiset (checklib.py new).
norm_warnings() {
	python3 "$S"/lib/checklib.py norm "$src" "$@"
}
new_lines() {
	python3 "$S"/lib/checklib.py new "$1" "$2"
}

kmake() { # kmake <logfile> <build dir> [VAR=value...] targets...: make in
	# the check tree with this run's toolchain; variables given here come
	# later on make's command line, so they override it (x86_64, clang).
	local log=$1 dir=$2
	shift 2
	make -C "$src" O="$dir" "${KMAKE_TOOLCHAIN[@]}" -j"$JOBS" "$@" >"$log" 2>&1
}

# Files of a patch (new names), and their classes.
patch_files() {
	grep -E '^\+\+\+ b/' "$1" | sed -e 's#^+++ b/##' -e 's/\t.*//' | sort -u
}
is_kernel_code() { case "$1" in Documentation/*|tools/*|LICENSES/*|MAINTAINERS|.*) return 1 ;; *) return 0 ;; esac; }
is_generic_code() { is_kernel_code "$1" && case "$1" in arch/arm64/*) return 1 ;; *) return 0 ;; esac; }

# Every touched .c file of the whole series, and every touched file with
# kernel-doc comments: their base state is the reference.
all_files=$(for p in "${patches[@]}"; do patch_files "$PATCHES/$p"; done | sort -u)
cfiles_of() { echo "$1" | grep -E '\.c$' | while read -r f; do is_kernel_code "$f" && echo "$f"; done; }

# sparse and W=1 on <label> <files...> into $res/<label>.{sparse,w1}: one
# make C=2 and one make W=1 over all the files that build (each make call
# costs the whole prepare stage), logs $res/logs/<label>.{sparse,w1}.log.
file_checks() {
	local label=$1 f objs=() built=()
	shift
	: >"$res/$label.sparse"
	: >"$res/$label.w1"
	: >"$res/$label.notbuilt"
	for f in "$@"; do
		[ -f "$src/$f" ] || continue
		# A file the arm64 config does not build (a KUnit test, say) is
		# compiled on its own if it can be; otherwise it is "n/b".
		if [ ! -f "$build/${f%.c}.o" ] &&
		   ! kmake "$res/logs/$label.single.${f//\//_}.log" "$build" "${f%.c}.o"; then
			echo "$f" >>"$res/$label.notbuilt"
			continue
		fi
		objs+=("${f%.c}.o")
		built+=("$f")
	done
	[ ${#objs[@]} -gt 0 ] || return 0
	kmake "$res/logs/$label.sparse.log" "$build" C=2 CHECK="$SPARSE" "${objs[@]}" || return 1
	! grep -q 'specified, but .* is not available or not up to date' "$res/logs/$label.sparse.log" ||
		die "Kbuild ran no sparse ($SPARSE: see $res/logs/$label.sparse.log)" "set SPARSE_VERSION to a newer sparse of Debian sid"
	norm_warnings "$res/logs/$label.sparse.log" | own "${built[@]}" >"$res/$label.sparse"
	kmake "$res/logs/$label.w1.log" "$w1build" W=1 "${objs[@]}" || return 1
	norm_warnings "$res/logs/$label.w1.log" | own "${built[@]}" >"$res/$label.w1"
}
# Only what concerns the files: their own warnings and those in headers
# (make may also check objects of the prepare stage). A header warning
# appears once per file that includes it, as with one make call per file.
own() { awk -v fl="$*" 'BEGIN { n = split(fl, a, " "); for (i = 1; i <= n; i++) f[a[i]] = 1 }
	{ w = $1; sub(/:$/, "", w) } (w in f) || w ~ /\.h$/'; }
# Line numbers go: a patch that moves a comment does not make its old
# warnings new. kernel-doc prints "<file>:<line>: warning: ..." (6.12) or
# "Warning: <file>:<line> ..." (7.x).
kdoc_checks() {
	local label=$1 f
	shift
	: >"$res/$label.kdoc"
	for f in "$@"; do
		[ -f "$src/$f" ] || continue
		grep -q '/\*\*' "$src/$f" || continue
		(cd "$src" && perl scripts/kernel-doc -none "$f" 2>&1) |
			sed -E 's/:[0-9]+: /: /; s/^(Warning: [^ :]+):[0-9]+ /\1: /; s/ line [0-9]+/ line N/' >>"$res/$label.kdoc"
	done
	sort -o "$res/$label.kdoc" "$res/$label.kdoc"
}

x86_build() { # x86_build <label>: configure (once) and build x86_64
	local log=$res/logs/$1.x86_64.log
	KARCH=x86_64 FRAGMENTS=x86-kvm "$S"/phases/config.sh >"$res/logs/x86-config.log" 2>&1 || {
		cat "$res/logs/x86-config.log" >&2
		return 2
	}
	toolchain_for x86_64
	kmake "$log" "$x86build" ARCH=x86_64 "${KMAKE_TC[@]}" "${x86_targets[@]}"
}

finish() { # finish <rc> [patch gate what]
	local rc=$1 secs
	secs=$(( $(date +%s) - t_start ))
	python3 "$S"/lib/checklib.py json "$rows" "$res/check.json" "$rc" "$secs" "${2:-}" "${3:-}" "${4:-}" \
		"$CHECK_X86" "$BASE_VERSION" "$PATCHES"
	{
		echo
		echo "legend: ok = passed; - = gate does not apply to this patch; NOT-RUN = the gate could not run here (reason in the row);"
		echo "        (final) = x86_64 built once for the final state (CHECK_X86=final)"
		[ "$CHECK_BUILD" = dirs ] &&
			echo "        ok(dirs) = built only the series' directories (CHECK_BUILD=dirs): ${arm64_dirs[*]} (arm64), ${x86_dirs[*]:-bzImage} (x86_64)"
		[ "$CHECK_BUILD" = objs ] &&
			echo "        ok(objs) = built only the series' objects (CHECK_BUILD=objs) on arm64, ${x86_dirs[*]:-bzImage} on x86_64"
		echo "time: ${secs}s; base $BASE_VERSION; logs in logs/"
	} >>"$table"
	if [ "$rc" -eq 0 ]; then
		status "series passes every gate (${#patches[@]} patches${clang_skip:+; clang gate $clang_skip}; table: $table)"
		exit 0
	fi
	echo "[harness] check: the check tree stays at the failing state: $src" >&2
	# A gate that fails is a test failure (exit 1), not a harness error.
	echo "[harness] check: ERROR: stopped at $2 ($3) -- fix the patch, refresh patches/$BASE/, rerun make check" >&2
	exit 1
}

# What each state builds. CHECK_BUILD=dirs: the kbuild directory (the
# nearest one with a Makefile or Kbuild) of every kernel .c file the series
# touches, the same set at every state so that the base's warnings are the
# reference for each patch's.
kbuild_dir() {
	local d
	d=$(dirname "$1")
	while [ "$d" != . ] && [ ! -f "$src/$d/Makefile" ] && [ ! -f "$src/$d/Kbuild" ]; do d=$(dirname "$d"); done
	[ "$d" != . ] && echo "$d/"
}
arm64_targets=(Image headers_install)
x86_targets=(bzImage)
build_what="Image"
if [ "$CHECK_BUILD" != full ]; then
	mapfile -t arm64_dirs < <(cfiles_of "$all_files" | while read -r f; do kbuild_dir "$f"; done | sort -u)
	mapfile -t x86_dirs < <({
		cfiles_of "$all_files" | while read -r f; do is_generic_code "$f" && kbuild_dir "$f"; done
		# The x86 users of the generic KVM code and of irqbypass.
		echo "$all_files" | grep -qE '^virt/|^include/linux/(kvm[a-z_]*|irqbypass)\.h$' && echo arch/x86/kvm/
	} | sort -u)
	[ ${#arm64_dirs[@]} -gt 0 ] && { arm64_targets=("${arm64_dirs[@]}" headers_install); build_what="${arm64_dirs[*]}"; }
	[ ${#x86_dirs[@]} -gt 0 ] && x86_targets=("${x86_dirs[@]}")
	[ "$CHECK_BUILD" = dirs ] &&
		info "CHECK_BUILD=dirs: each state builds ${arm64_dirs[*]:-Image} (arm64), ${x86_dirs[*]:-bzImage} (x86_64), no vmlinux link"
fi
# CHECK_BUILD=objs: the object of every series .c file that exists at the
# state (a file the series adds joins when its patch does), the same set
# for every state so that the base's warnings are the reference; kbuild
# compiles a named object whether or not the config links it. A header
# change rebuilds the objects that include it.
# headers_install (for the selftests gate) is a make call of its own there:
# named beside objects in other directories it cost 15 s a state, alone
# 0.2 s.
build_state() { # build_state <log>: the arm64 build of the current state
	local f objs=()
	[ "$CHECK_BUILD" = objs ] || { kmake "$1" "$build" "${arm64_targets[@]}"; return; }
	for f in $(cfiles_of "$all_files"); do
		[ -f "$src/$f" ] && objs+=("${f%.c}.o")
	done
	kmake "$1" "$build" "${objs[@]}" && kmake "${1%.log}.headers.log" "$build" headers_install
}
[ "$CHECK_BUILD" = objs ] &&
	info "CHECK_BUILD=objs: each state builds the series' objects (arm64), ${x86_dirs[*]:-bzImage} (x86_64), no vmlinux link"
# The cell of a build gate that passed: "ok", or "ok(dirs)"/"ok(objs)" when
# only the series' directories or objects were built.
bok=ok
[ "$CHECK_BUILD" = full ] || bok="ok($CHECK_BUILD)"

# --- state 0: the base ---------------------------------------------------
[ "$CHECK_BUILD" = objs ] && build_what="the series' objects"
info "base: arm64 build of $build_what (log: $res/logs/base.arm64.log)"
build_state "$res/logs/base.arm64.log" || {
	show_build_errors "$res/logs/base.arm64.log"
	die "the base $BASE_VERSION does not build with the kvm-host + check config" "see $res/logs/base.arm64.log"
}
# Warnings of the base build: accumulated per base and config, because an
# incremental base build (after a pop) prints only the files it rebuilt.
bw=$build/base-warnings.$BASE_ID
norm_warnings "$res/logs/base.arm64.log" | cat - "$bw" 2>/dev/null | sort -u >"$bw.new"
mv "$bw.new" "$bw"
mapfile -t all_c < <(cfiles_of "$all_files")
file_checks base "${all_c[@]}" || die "sparse/W=1 on the base files failed" "see $res/logs/"
mapfile -t all_list <<<"$all_files"
kdoc_checks base "${all_list[@]}"
row 0 "(base $BASE_VERSION)" arm64="$bok" sparse="$(wc -l <"$res/base.sparse")w" w1="$(wc -l <"$res/base.w1")w" \
	kdoc="$(grep -c 'warning' "$res/base.kdoc")w"
any_generic=""

# --- each patch ----------------------------------------------------------
n=0
for p in "${patches[@]}"; do
	n=$((n + 1))
	last=""; [ $n -eq ${#patches[@]} ] && last=1
	cell=()
	mail=$PATCHES/$p

	# apply
	log=$res/logs/$n.apply.log
	if ! (cd "$src" && quilt push --fuzz=0 "$p") >"$log" 2>&1; then
		how="does not apply"
		explain_patch_failure "$p" "$mail" "$src" "$log" && how="applies only with fuzz"
		gate_fail apply apply "$how to $BASE_VERSION + the patches before it" \
			"rebase it (quilt push -f, fix the .rej, quilt refresh)"
	fi
	if grep -E 'with fuzz|\(offset -?[0-9]+ lines?\)' "$log" >"$res/$n.offsets"; then
		sed "s|^|  $p: |" "$res/$n.offsets" >&2
		gate_fail apply apply "applies with offset/fuzz (hunks listed above)" \
			"quilt push it, quilt refresh, and copy the refreshed patch to patches/"
	fi
	cell[apply]=ok

	# checkpatch
	log=$res/logs/$n.checkpatch.log
	(cd "$src" && perl scripts/checkpatch.pl --strict --terse --no-summary --showfile "$mail") >"$log" 2>&1
	# --terse: "<file>:<line>: TYPE: message" (the file is empty for
	# messages about the commit message); the message is what counts.
	grep -oE '(ERROR|WARNING|CHECK): .*' "$log" | sort -u >"$res/$n.cp" || true
	: >"$res/$n.cp.bad"
	while IFS= read -r msg; do
		[ -n "$msg" ] || continue
		w=$(grep -F -- "$p: $msg" "$waivers" 2>/dev/null | grep -v '^#' | head -n 1)
		if [ -n "$w" ]; then
			case "$w" in *"  # "?*) continue ;; esac
			echo "$msg (waiver without a reason)" >>"$res/$n.cp.bad"
		else
			echo "$msg" >>"$res/$n.cp.bad"
		fi
	done <"$res/$n.cp"
	if [ -s "$res/$n.cp.bad" ]; then
		sed "s|^|  $p: |" "$res/$n.cp.bad" >&2
		gate_fail checkpatch checkpatch "$(wc -l <"$res/$n.cp.bad") message(s) (log: $log)" \
			"fix them, or add '<patch>: <message>  # <reason>' to checkpatch-waivers.txt"
	fi
	cell[checkpatch]=ok
	[ -s "$res/$n.cp" ] && cell[checkpatch]="ok($(wc -l <"$res/$n.cp")wv)"

	mapfile -t files < <(patch_files "$mail")
	kernel=""; generic=""; selftests=""
	for f in "${files[@]}"; do
		is_kernel_code "$f" && kernel=1
		is_generic_code "$f" && generic=1
		case "$f" in tools/testing/selftests/kvm/*) selftests=1 ;; esac
	done
	[ -n "$generic" ] && any_generic=1

	# arm64 build
	if [ -n "$kernel" ]; then
		log=$res/logs/$n.arm64.log
		if ! build_state "$log"; then
			show_build_errors "$log"
			gate_fail arm64 arm64 "the kernel does not build with the series up to this patch (log: $log)" \
				"fix the patch so that it builds on its own (bisectability)"
		fi
		norm_warnings "$log" >"$res/$n.arm64.w"
		new_lines "$res/$n.arm64.w" "$bw" >"$res/$n.arm64.new"
		if [ -s "$res/$n.arm64.new" ]; then
			sed "s|^|  $p: |" "$res/$n.arm64.new" >&2
			gate_fail arm64 arm64 "new compiler warning(s) (log: $log)" "fix them"
		fi
		cell[arm64]=$bok
	fi

	# x86_64 build
	if [ -n "$generic" ] || { [ -n "$last" ] && [ -n "$any_generic" ]; }; then
		if [ "$CHECK_X86" = all ] || { [ "$CHECK_X86" = final ] && [ -n "$last" ]; }; then
			info "$p: x86_64 build (log: $res/logs/$n.x86_64.log)"
			x86_build "$n"
			case $? in
				0) cell[x86_64]=$bok ;;
				2) gate_fail x86_64 x86_64 "x86-kvm config failed" "see the messages above" ;;
				*) show_build_errors "$res/logs/$n.x86_64.log"
				   gate_fail x86_64 x86_64 "the x86_64 KVM kernel does not build (log: $res/logs/$n.x86_64.log)" \
					"the generic code must build without arm64 (check #includes and stubs)" ;;
			esac
		elif [ "$CHECK_X86" = final ] && [ -n "$generic" ]; then
			cell[x86_64]="(final)"
		fi
	fi

	# sparse, W=1, kernel-doc on this patch's files
	mapfile -t cf < <(cfiles_of "$(printf '%s\n' "${files[@]}")")
	if [ ${#cf[@]} -gt 0 ]; then
		file_checks "$n" "${cf[@]}" || {
			gate_fail sparse,w1 sparse "make C=2/W=1 on the touched files failed" "see $res/logs/$n.*"
		}
		for kind in sparse w1; do
			new_lines "$res/$n.$kind" "$res/base.$kind" >"$res/$n.$kind.new"
		done
		if [ -s "$res/$n.sparse.new" ] || [ -s "$res/$n.w1.new" ]; then
			sed "s|^|  $p: sparse: |" "$res/$n.sparse.new" >&2
			sed "s|^|  $p: W=1: |" "$res/$n.w1.new" >&2
			cell[sparse]=ok; [ -s "$res/$n.sparse.new" ] && cell[sparse]=FAIL
			cell[w1]=ok; [ -s "$res/$n.w1.new" ] && cell[w1]=FAIL
			emit_row
			fail "$p" "sparse/W=1" "new warnings in the files it touches" "fix them"
		fi
		if [ -s "$res/$n.notbuilt" ] && [ "$(wc -l <"$res/$n.notbuilt")" -eq ${#cf[@]} ]; then
			cell[sparse]="n/b"; cell[w1]="n/b"
		else
			cell[sparse]=ok; cell[w1]=ok
		fi
	fi
	kdoc_checks "$n" "${files[@]}"
	if [ -s "$res/$n.kdoc" ]; then
		new_lines "$res/$n.kdoc" "$res/base.kdoc" >"$res/$n.kdoc.new"
		if [ -s "$res/$n.kdoc.new" ]; then
			sed "s|^|  $p: kernel-doc: |" "$res/$n.kdoc.new" >&2
			gate_fail kdoc kernel-doc "new kernel-doc warnings" "fix the comments"
		fi
	fi
	for f in "${files[@]}"; do
		[ -f "$src/$f" ] && grep -q '/\*\*' "$src/$f" && { cell[kdoc]=ok; break; }
	done

	# KVM selftests
	if [ -n "$selftests" ]; then
		log=$res/logs/$n.selftests.log
		if ! BUILD_DIR=$build "$S"/phases/build-selftests.sh >"$log" 2>&1; then
			cat "$log" >&2
			gate_fail selftests selftests "the KVM selftests do not build (log: $log)" "fix the patch"
		fi
		cell[selftests]=ok
	fi
	emit_row
done

# Unused waivers are stale: say so (not an error: a refreshed patch may have
# fixed the message).
if [ -f "$waivers" ]; then
	grep -v '^#' "$waivers" | grep . | while IFS= read -r w; do
		wp=${w%%: *}
		wm=${w#*: }; wm=${wm%%  # *}
		n=0
		for p in "${patches[@]}"; do
			n=$((n + 1))
			[ "$p" = "$wp" ] && grep -qxF -- "$wm" "$res/$n.cp" 2>/dev/null && continue 2
		done
		warn "unused checkpatch waiver: $w"
	done
fi

# --- the final state with clang ------------------------------------------
if [ -n "$clang_skip" ]; then
	row "+" "final state, LLVM=1: $clang_skip" arm64=NOT-RUN
	warn "clang gate $clang_skip"
elif [ "$CHECK_CLANG" != 0 ]; then
	cbuild=$work/build-kvm-host-llvm
	# A fresh directory, so that the log has every file's warnings (ccache
	# replays them for cached objects).
	rm -rf "$cbuild"
	info "final state: clang build (LLVM=1, log: $res/logs/final.clang.log)"
	LLVM=1 FRAGMENTS=kvm-host "$S"/phases/config.sh >"$res/logs/clang-config.log" 2>&1 ||
		{ cat "$res/logs/clang-config.log" >&2; die "clang config failed"; }
	toolchain_for arm64 1
	ctc=("${KMAKE_TC[@]}")
	if ! kmake "$res/logs/final.clang.log" "$cbuild" "${ctc[@]}" Image; then
		show_build_errors "$res/logs/final.clang.log"
		row "+" "final state, LLVM=1" arm64=FAIL
		fail "${patches[-1]}" clang "the final state does not build with clang (log: $res/logs/final.clang.log)" "fix it"
	fi
	norm_warnings "$res/logs/final.clang.log" >"$res/final.clang.w"
	c=ok
	if [ -s "$res/final.clang.w" ]; then
		# Compare with the base built the same way.
		info "clang warnings in the final state; building the base with clang to compare"
		(cd "$src" && quilt pop -a -q) >/dev/null 2>&1 || die "quilt pop failed in $src"
		rm -rf "$cbuild"
		LLVM=1 FRAGMENTS=kvm-host "$S"/phases/config.sh >/dev/null 2>&1
		kmake "$res/logs/base.clang.log" "$cbuild" "${ctc[@]}" Image ||
			die "the base does not build with clang" "see $res/logs/base.clang.log"
		norm_warnings "$res/logs/base.clang.log" >"$res/base.clang.w"
		(cd "$src" && quilt push -a -q --fuzz=0) >/dev/null 2>&1 || die "quilt push -a failed in $src"
		new_lines "$res/final.clang.w" "$res/base.clang.w" >"$res/final.clang.new"
		if [ -s "$res/final.clang.new" ]; then
			sed 's|^|  clang: |' "$res/final.clang.new" >&2
			row "+" "final state, LLVM=1" arm64=FAIL
			fail "${patches[-1]}" clang "new clang warnings in the final state" "fix them"
		fi
		c="ok($(wc -l <"$res/final.clang.w")w=base)"
	fi
	row "+" "final state, LLVM=1 ($(clang --version | head -n 1 | grep -oE '[0-9]+\.[0-9.]+' | head -n 1))" arm64="$c"
fi
finish 0
