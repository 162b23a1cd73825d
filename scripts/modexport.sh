#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make modexport (and make test's "<base>:modexport" run): does every module
# of Debian's arm64 kernel that the series can reach still link at modpost?
# Documentation/check-export.rst, "Module exports (make modexport)".
#
# A series that makes a header inline (or macro) use a symbol vmlinux does
# not export breaks every module that reaches that inline, and only the
# modpost of a distro's full module build says so: hours on 2 cores. This
# builds only the modules that can be reached, with Kbuild, as external
# modules (make M=<dir>) against the Module.symvers of Debian's own kernel of
# the same version:
#  1. the base (base-tree.sh) and the series without the project's patches
#     (work tree 'modexport', hard links);
#  2. Debian's linux-headers-<version>-arm64 of the base's version, from the
#     base's suite (private apt list, as base-tree.sh): its .config and its
#     Module.symvers (vmlinux and every module's exports);
#  3. that .config, debug info off (it changes no symbol), olddefconfig on
#     the patched tree, make modules_prepare;
#  4. scripts/lib/modexport.py plan: the identifiers the series' header
#     changes define (and the exports it removes), their closure through
#     the headers' inlines and macros, and the Kbuild directories whose =m
#     objects use one of them or that the series changes;
#  5. Module.symvers = Debian's, less the modules rebuilt here and the
#     exports the series removes, plus the EXPORT_SYMBOL*s it adds;
#  6. make M=<dir> modules for each directory: modpost's "undefined!" (and
#     any other modpost error) fails the check.
#
#   PATCHES=dir  the series (default patches/<base>)
# Exit 0 pass, 1 a module does not build or link, 2 harness error. Appends
# "<base>/modexport/<what>\t<pass|fail|skip>\t<note>" rows to $RESULTS_TSV
# when set (make test).
. "$(dirname "$0")/lib/lib.sh"
phase_start modexport
resolve_patches
validate_tree_inputs
lock_out
S=$HARNESS_ROOT/scripts
row() { [ -n "${RESULTS_TSV:-}" ] && printf '%s/modexport/%s\t%s\t%s\n' "$BASE" "$1" "$2" "$3" >>"$RESULTS_TSV"; return 0; }
fatal() { row run fail "$1"; die "$@"; }

[ -n "${KERNEL_SRC:-}" ] && { row run skip "KERNEL_SRC: no Debian kernel of that tree to link against"; status "skipped: KERNEL_SRC has no Debian kernel package to link against"; exit 0; }
need_tools python3 make ccache "${CROSS_COMPILE}gcc" apt-get apt-cache dpkg-deb
mkdir -p "$STATE"
"$S"/phases/base-tree.sh >"$STATE/modexport-base.log" 2>&1 || { cat "$STATE/modexport-base.log" >&2; fatal "no base tree"; }
. "$STATE/base.env"
VARIANT=modexport PROJECT_PATCHES="" "$S"/phases/apply-series.sh >"$STATE/modexport-apply.log" 2>&1 ||
	{ cat "$STATE/modexport-apply.log" >&2; fatal "the series does not apply (make check says where)"; }
work=$WORK/modexport
src=$work/src

# 2. Debian's headers package of the base's version (the newest of the same
#    series in the suite when that one is gone, with a warning).
fetch_headers() {
	local apt=$OUT/cache/apt name=headers-$BASE o pkgs p v best="" bestv="" dest deb
	private_apt "$name" "deb [arch=arm64 signed-by=$BASE_KEYRING] $BASE_SUITE main"
	o=("${APT_OPTS[@]}" -o "Dir::Cache=$apt" -o APT::Sandbox::User=root
		-o APT::Architecture=arm64 -o APT::Architectures::=arm64 -q)
	run_logged "$apt/update-$name.log" apt-get "${o[@]}" update >&2 ||
		die "apt-get update of ${BASE_SUITE#* } (arm64) failed (log: $apt/update-$name.log)" \
			"$(log_fix "$apt/update-$name.log" "check the network")"
	mapfile -t pkgs < <(apt-cache "${o[@]}" search --names-only "^linux-headers-${BASE_SERIES//./\\.}\.[0-9]+\+deb[0-9]+-arm64\$" |
		awk '{ print $1 }' | sort -u)
	for p in "${pkgs[@]}"; do
		v=$(apt-cache "${o[@]}" show "$p" 2>/dev/null | awk -F': ' '$1 == "Version" { print $2; exit }')
		[ -n "$v" ] || continue
		if [ "$v" = "$BASE_PKG_VERSION" ]; then best=$p bestv=$v; break; fi
		if [ -z "$bestv" ] || version_ge "$v" "$bestv"; then best=$p bestv=$v; fi
	done
	[ -n "$best" ] || die "${BASE_SUITE#* } has no linux-headers-$BASE_SERIES.*-arm64" "the suite dropped the series: see scripts/lib/lib.sh's base table"
	[ "$bestv" = "$BASE_PKG_VERSION" ] ||
		warn "${BASE_SUITE#* } has no linux-headers of $BASE_PKG_VERSION: linking against $best $bestv (exports of another $BASE_SERIES.y can differ)"
	dest=$OUT/cache/modexport/${best}_$bestv
	if [ ! -f "$dest/headers.env" ]; then
		info "fetching $best $bestv (arm64) from ${BASE_SUITE#* }" >&2
		(cd "$apt/debs" && run_logged "$apt/download-$name.log" apt-get "${o[@]}" download "$best:arm64=$bestv") >&2 ||
			die "cannot download $best=$bestv (log: $apt/download-$name.log)" "$(log_fix "$apt/download-$name.log" "the network, or the archive changed")"
		deb=$(ls "$apt/debs/${best}_${bestv//:/%3a}_arm64.deb" 2>/dev/null || true)
		[ -f "$deb" ] || die "apt-get download wrote no ${best}_${bestv}_arm64.deb" "see $apt/download-$name.log"
		rm -rf "$dest.tmp"
		mkdir -p "$dest.tmp/root"
		dpkg-deb -x "$deb" "$dest.tmp/root" || die "cannot unpack $deb" "check free space under $OUT"
		local d
		d=$dest.tmp/root/usr/src/$best
		[ -f "$d/.config" ] && [ -f "$d/Module.symvers" ] || die "$deb has no usr/src/<kernel>/.config and Module.symvers" "is $best a Debian flavour headers package?"
		mv "$d/.config" "$dest.tmp/config"
		mv "$d/Module.symvers" "$dest.tmp/Module.symvers"
		rm -rf "$dest.tmp/root" "$deb"
		HEADERS_ORIGIN="$best $bestv (Debian ${BASE_SUITE#* }, arm64)"
		HEADERS_DIR=$dest
		write_env "$dest.tmp/headers.env" HEADERS_ORIGIN HEADERS_DIR
		rm -rf "$dest"
		mv "$dest.tmp" "$dest"
	fi
	echo "$dest"
}
hdr=$(fetch_headers) || exit 2
. "$hdr/headers.env"
info "Debian's config and Module.symvers: $HEADERS_ORIGIN"

# 3. The build directory: Debian's config on the patched tree.
build=$work/build-debian
key="$HEADERS_ORIGIN $(sha256_file "$hdr/config") $(kernel_cc_version)"
if [ ! -f "$build/config.key" ] || [ "$(cat "$build/config.key")" != "$key" ]; then
	rm -rf "$build"
	mkdir -p "$build"
	cp "$hdr/config" "$build/.config"
	# Debug info and BTF change no symbol a module references; off, the
	# objects build in half the time and need no pahole.
	"$src"/scripts/config --file "$build/.config" -d DEBUG_INFO -d DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT \
		-d DEBUG_INFO_DWARF4 -d DEBUG_INFO_DWARF5 -e DEBUG_INFO_NONE -d DEBUG_INFO_BTF -d DEBUG_INFO_BTF_MODULES ||
		die "scripts/config failed on $build/.config"
fi
run_logged "$build/olddefconfig.log" nice -n "${NICE:-10}" make -C "$src" O="$build" "${KMAKE_TOOLCHAIN[@]}" olddefconfig ||
	fatal "olddefconfig of Debian's config failed" "see $build/olddefconfig.log"
echo "$key" >"$build/config.key"

# 4. What the series can reach.
plan=$work/plan.json
python3 "$S"/lib/modexport.py plan "$BASE_DIR" "$src" "$PATCHES" "$build/.config" "$plan" ||
	fatal "scripts/lib/modexport.py plan failed"
mapfile -t summary < <(python3 - "$plan" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))
seeds, ids = p["seeds"], p["closure"]
print("ids\t%d identifiers from %d changed headers (%d seeds), %d exports added, %d removed" % (
    len(ids), len(p["headers"]), len(seeds), len(p["exports_added"]), len(p["exports_removed"])))
for name, (frm, h) in sorted(p["via"].items()):
    print("via\t%s (%s) uses %s" % (name, h, frm))
for a in p["exports_added"]:
    print("add\t%s (%s, %s)" % (a["name"], a["file"], a["module"]))
for d, es in sorted(p["modules"].items()):
    print("mod\t%s\t%s" % (d, "; ".join("%s %s" % (e["file"], e["why"]) for e in es)))
if p["too_wide"]:
    print("wide\t%d" % p["max_ids"])
EOF
) || fatal "cannot read $plan"
dirs=()
for l in "${summary[@]}"; do
	IFS=$'\t' read -r k a b <<<"$l"
	case $k in
		ids) info "$a" ;;
		via) info "closure: $a" ;;
		add) info "export added by the series: $a" ;;
		mod) info "module directory $a: $b"; dirs+=("$a") ;;
		wide) row plan fail "the closure has more than $a identifiers: too wide for this check, build every module (Documentation/check-export.rst)"
		      echo "[harness] modexport: FAIL: the closure of the series' header changes has more than $a identifiers -- build all modules (Documentation/check-export.rst, \"A full distro build\")" >&2
		      exit 1 ;;
	esac
done
row plan pass "${summary[0]#ids$'\t'}"
if [ ${#dirs[@]} -eq 0 ]; then
	row modules pass "no =m object of Debian's config uses what the series changes"
	status "PASS: no module of Debian's config ($HEADERS_ORIGIN) reaches what the series changes; nothing to link"
	exit 0
fi

# 5. modules_prepare (incremental) and Module.symvers.
info "make -j$JOBS modules_prepare (log: $build/modules_prepare.log)"
run_logged "$build/modules_prepare.log" nice -n "${NICE:-10}" make -C "$src" O="$build" "${KMAKE_TOOLCHAIN[@]}" -j"$JOBS" modules_prepare ||
	fatal "make modules_prepare failed with Debian's config" "see $build/modules_prepare.log"
python3 "$S"/lib/modexport.py symvers "$plan" "$hdr/Module.symvers" "$build/Module.symvers" ||
	fatal "cannot write $build/Module.symvers"

# 6. Each module directory, as an external module against that file.
fails=0
for d in "${dirs[@]}"; do
	log=$build/M-${d//\//_}.log
	t0=$(date +%s)
	info "make -j$JOBS M=$d modules (log: $log)"
	rc=0
	with_progress "M=$d" "$log" nice -n "${NICE:-10}" make -C "$src" O="$build" "${KMAKE_TOOLCHAIN[@]}" -j"$JOBS" M="$src/$d" modules || rc=$?
	mapfile -t errs < <(grep -E '^(ERROR|WARNING): modpost: ' "$log" | sed "s|$src/||g")
	mapfile -t undef < <(printf '%s\n' "${errs[@]}" | sed -n 's/^ERROR: modpost: "\([^"]*\)" \[\([^]]*\)\] undefined!$/\1 \2/p')
	n=$(wc -l <"$src/$d/modules.order" 2>/dev/null || echo 0)
	for e in "${errs[@]}"; do [ -n "$e" ] && echo "[harness] modexport: $d: $e"; done
	if [ "$rc" -eq 0 ] && ! printf '%s\n' "${errs[@]}" | grep -q '^ERROR'; then
		row "$d" pass "$n module(s) linked by modpost against Debian's Module.symvers + the series' exports ($(($(date +%s) - t0))s)"
		info "$d: PASS: $n module(s), modpost clean ($(($(date +%s) - t0))s)"
	elif [ ${#undef[@]} -gt 0 ]; then
		fails=$((fails + 1))
		row "$d" fail "undefined: $(printf '%s; ' "${undef[@]}" | sed 's/; $//')"
		echo "[harness] modexport: FAIL: $d: ${#undef[@]} symbol(s) undefined at modpost: $(printf '%s; ' "${undef[@]}" | sed 's/; $//') -- export them (EXPORT_SYMBOL_GPL) or keep them out of the inline ($(($(date +%s) - t0))s)" >&2
	else
		fails=$((fails + 1))
		show_build_errors "$log"
		row "$d" fail "make M=$d failed: $(grep -m1 -E 'error:|ERROR' "$log" | sed "s|$src/||g" | cut -c1-200)"
		echo "[harness] modexport: FAIL: $d: make M=$d failed (log: $log)" >&2
	fi
done
[ "$fails" -eq 0 ] || { status "FAIL: $fails of ${#dirs[@]} module directories"; exit 1; }
status "PASS: ${#dirs[@]} module directories built and linked against $HEADERS_ORIGIN"
