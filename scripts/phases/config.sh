#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Phase "config": merge kernel-config/ fragments into the build's .config.
#
#   FRAGMENTS="kvm-host debug"  fragment names from kernel-config/ (or paths)
#   VARIANT=name                work tree (see apply-series.sh)
#
# allnoconfig + fragments with the kernel's scripts/kconfig/merge_config.sh,
# then olddefconfig. Every symbol a fragment requests must be in the final
# .config with the requested value; one that is not is an error naming the
# symbol, the fragment and the value it got.
. "$(dirname "$0")/../lib/lib.sh"
phase_start config

. "$STATE/base.env"
VARIANT=${VARIANT:-patched}
FRAGMENTS=${FRAGMENTS:-kvm-host}
work=$WORK/$VARIANT
src=$work/src
[ -f "$work/applied.env" ] || die "work tree '$VARIANT' not prepared" "run scripts/phases/apply-series.sh first"
. "$work/applied.env"

files=()
for f in $FRAGMENTS; do
	case "$f" in
		*/*) path=$f ;;
		*) path=$HARNESS_ROOT/kernel-config/${f%.config}.config ;;
	esac
	[ -f "$path" ] || die "config fragment '$f' not found ($path)" \
		"available: $(cd "$HARNESS_ROOT/kernel-config" && ls *.config | tr '\n' ' ')"
	head -n 1 "$path" | grep -q '^# Help: ' ||
		die "$path does not start with a '# Help: ' line" "describe the fragment's purpose on its first line"
	files+=("$(cd "$(dirname "$path")" && pwd)/$(basename "$path")")
done

# The build directory depends on the fragments and the toolchain only, so
# that series changes rebuild incrementally.
build=$(build_dir)
name=${build##*/build-}
mkdir -p "$build"

key=$( { cat "${files[@]}"; echo "$BASE_ID $APPLIED_SERIES_HASH ${LLVM:-gcc} ${KMAKE_TOOLCHAIN[*]}"; } | sha256sum | cut -c1-16)
if [ -f "$build/.config" ] && [ "$(cat "$build/config.key" 2>/dev/null)" = "$key" ]; then
	status "$name .config up to date ($(sha256_file "$build/.config" | cut -c1-12))"
	exit 0
fi
rm -f "$build/config.key"

log=$build/config.log
(cd "$src" && run_logged "$log" scripts/kconfig/merge_config.sh -n -O "$build" "${files[@]}") ||
	die "merge_config.sh failed for $name (log: $log)"
run_logged "$build/olddefconfig.log" make -C "$src" O="$build" "${KMAKE_TOOLCHAIN[@]}" olddefconfig ||
	die "olddefconfig failed (log: $build/olddefconfig.log)"

# Every requested value must have survived.
bad=0
for f in "${files[@]}"; do
	while IFS= read -r line; do
		case "$line" in
			CONFIG_*=*) sym=${line%%=*} ;;
			"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *} ;;
			*) continue ;;
		esac
		got=$(grep -E "^$sym=|^# $sym is not set" "$build/.config" || true)
		case "$line" in
			"# "*) [ -z "$got" ] || [ "$got" = "$line" ] && continue ;;
			*) [ "$got" = "$line" ] && continue ;;
		esac
		echo "[harness] config: ERROR: $sym: $(basename "$f") requests '$line', final .config has '${got:-<absent: unknown symbol or unmet dependency>}'" >&2
		bad=$((bad + 1))
	done <"$f"
done
[ $bad -eq 0 ] || die "$bad requested symbol(s) did not survive into .config" \
	"fix the fragment (check the symbol's 'depends on' in Kconfig for $BASE_VERSION)"

echo "$key" >"$build/config.key"
status "$name .config merged from ${#files[@]} fragment(s), all requested symbols present ($(sha256_file "$build/.config" | cut -c1-12))"
