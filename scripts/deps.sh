#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Make sure the Debian packages the harness needs are installed.
#
#   deps.sh            install what is missing (as root), or fail with the
#                      exact apt-get line to run (not root)
#   deps.sh --print    only print that apt-get line (empty if nothing missing)
#   deps.sh --kit-packages  print the hardware kit's package list (one line)
#
# With KIT=1 the packages are the hardware kit's (make hw-run, hw-bench,
# hw-pv-ab on an arm64 KVM host, which ask for them themselves): the
# selftests are built natively there, no cross toolchain, and the guests
# of hw-pv-ab run under the distribution's QEMU with KVM, so the pinned TCG
# QEMU is not needed either. make hw-emulated preinstalls the same list in
# its arm64 root file system.
# EXTRA_PACKAGES adds packages (the check/bench phases use it); LAVA=1 adds
# mmdebstrap and makes LAVA's own root under OUT (scripts/ci/lava-root.sh:
# lava-dispatcher and its QEMU live there, not on the host).
#
# Nothing here installs a foreign-architecture package: the guests' arm64
# busybox and the L2 VMM are downloaded and unpacked under OUT
# (apt.sh's busybox_arm64, phases/l2-vmm.sh). README.md, "What the
# commands change on the host", lists what is installed; the bare-system
# install test (scripts/tests/install-test.sh) checks that list.
. "$(dirname "$0")/lib/lib.sh"
phase_start deps

# package (with :arch where it is not the host's) -- the harness needs all.
PACKAGES=(
	make gcc libc6-dev bc bison flex libssl-dev libelf-dev cpio rsync xz-utils
	perl python3 quilt ccache kmod binutils debian-archive-keyring
	gcc-aarch64-linux-gnu
	dpkg-dev gpg shellcheck pyflakes3 sparse b4
)
KIT_PACKAGES=(
	make gcc libc6-dev ccache rsync xz-utils perl python3 quilt patch git kmod procps
	qemu-system-arm rt-tests busybox-static cpio
)
if [ "${1:-}" = --kit-packages ]; then
	echo "${KIT_PACKAGES[*]}"
	exit 0
fi
kit=${KIT:-}
[ -n "$kit" ] && PACKAGES=("${KIT_PACKAGES[@]}")
[ -n "${LLVM:-}" ] && PACKAGES+=(clang lld llvm)
[ -z "$kit" ] && [ "${LAVA:-0}" = 1 ] && PACKAGES+=(mmdebstrap)
# shellcheck disable=SC2206
PACKAGES+=(${EXTRA_PACKAGES:-})

missing=()
for p in "${PACKAGES[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)
	[ "$st" = installed ] || missing+=("$p")
done

line=""
[ ${#missing[@]} -eq 0 ] || line="apt-get update && apt-get install -y ${missing[*]}"

# The TCG machine's QEMU, pinned: from Debian 12's backports suite through a
# private sources list and lists directory (the system's apt configuration
# is not changed; dpkg installs it like any package). Backports replace a
# build when the next one comes: an installed build of the pin's upstream
# series (10.0.y) at or above the pin is kept, and when the suite no longer
# has the pin, the newest build of that series there is installed (apt
# verifies it against the suite's signed index), with one line saying so;
# another series is refused. metadata.json records the QEMU a run used.
qemu_series=$(upstream_series "$HOST_QEMU_VERSION")
# qemu_fits <version>: of the pin's series and at or above the pin.
qemu_fits() { [ -n "$1" ] && [ "$(upstream_series "$1")" = "$qemu_series" ] && dpkg --compare-versions "$1" ge "$HOST_QEMU_VERSION"; }
qemu_have=$(dpkg-query -W -f='${Version}' "$HOST_QEMU_PACKAGE" 2>/dev/null || true)
qemu_ok=""
if qemu_fits "$qemu_have"; then
	qemu_ok=1
	[ "$qemu_have" = "$HOST_QEMU_VERSION" ] || [ -n "$kit" ] ||
		info "$HOST_QEMU_PACKAGE $qemu_have installed: newer than the pin $HOST_QEMU_VERSION, same $qemu_series series: kept"
fi
apt_dir=$OUT/cache/apt
private_apt_opts host
qo=("${APT_OPTS[@]}")
kr='[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]'
qemu_list=("deb $kr http://deb.debian.org/debian bookworm main"
	"deb $kr http://deb.debian.org/debian bookworm-updates main"
	"deb $kr http://deb.debian.org/debian-security bookworm-security main"
	"deb $kr http://deb.debian.org/debian $HOST_QEMU_SUITE main")
qemu_sources() {
	private_apt host "${qemu_list[@]}"
}
qemu_line=""
if [ -z "$kit" ] && [ -z "$qemu_ok" ]; then
	# (printed for a user who is not root: the suite's build of the package)
	qemu_line="mkdir -p $apt_dir/lists-host/partial && printf '%s\n' $(printf "'%s' " "${qemu_list[@]}")>$apt_dir/sources-host.list && apt-get ${qo[*]} update && apt-get ${qo[*]} -t $HOST_QEMU_SUITE install -y --no-install-recommends $HOST_QEMU_PACKAGE/$HOST_QEMU_SUITE"
	missing+=("$HOST_QEMU_PACKAGE=$HOST_QEMU_VERSION${qemu_have:+ (have $qemu_have)}")
fi

# LAVA=1: LAVA's own root under OUT (made once per OUT; needs root).
lava_line=""
if [ -z "$kit" ] && [ "${LAVA:-0}" = 1 ] && [ ! -f "$OUT/cache/lava-root/${LAVA_WORKER:-trixie}/.ok" ]; then
	lava_line="LAVA_WORKER=${LAVA_WORKER:-trixie} OUT=$OUT $HARNESS_ROOT/scripts/ci/lava-root.sh"
	missing+=("LAVA root (${LAVA_WORKER:-trixie})")
fi

print_line=$line
[ -n "$qemu_line" ] && print_line="${line:+$line && }$qemu_line"
[ -n "$lava_line" ] && print_line="${print_line:+$print_line && }$lava_line"
if [ "${1:-}" = --print ]; then
	echo "$print_line"
	exit 0
fi

if [ ${#missing[@]} -eq 0 ]; then
	status "all ${#PACKAGES[@]} packages present"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	die "missing Debian packages: ${missing[*]}" "as root run: $print_line"
fi

info "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
log=$OUT/logs/deps.log
mkdir -p "$(dirname "$log")"
mkdir -p "$OUT/cache/apt"
if [ -n "$line" ]; then
	run_logged "$log" sh -c "$line" ||
		die "apt-get failed (log: $log)" "check the network/apt sources, then rerun"
fi
if [ -n "$qemu_line" ]; then
	qemu_sources
	run_logged "$OUT/logs/deps-qemu-update.log" apt-get "${qo[@]}" update ||
		die "apt-get update of the QEMU suites failed (log: $OUT/logs/deps-qemu-update.log)" "check the network and deb.debian.org"
	mapfile -t qv < <(apt-cache "${qo[@]}" madison "$HOST_QEMU_PACKAGE" 2>/dev/null |
		awk -F'|' -v s="$HOST_QEMU_SUITE" '$3 ~ s"/" { gsub(/ /, "", $2); print $2 }' | sort -u)
	qemu_ver=$(pick_version "$HOST_QEMU_VERSION" "$qemu_series" "${qv[@]}")
	[ -n "$qemu_ver" ] || die "$HOST_QEMU_SUITE has no $HOST_QEMU_PACKAGE $HOST_QEMU_VERSION any more, and no other $qemu_series.y (it has: ${qv[*]:-nothing})" \
			"another QEMU series must be measured first (README, QEMU): update HOST_QEMU_VERSION in scripts/lib/lib.sh"
	[ "$qemu_ver" = "$HOST_QEMU_VERSION" ] ||
		warn "the pinned $HOST_QEMU_PACKAGE $HOST_QEMU_VERSION is gone from $HOST_QEMU_SUITE: installing $qemu_ver, the newest $qemu_series.y there, verified by apt against the suite's signed index"
	run_logged "$log" apt-get "${qo[@]}" -t "$HOST_QEMU_SUITE" install -y --no-install-recommends "$HOST_QEMU_PACKAGE=$qemu_ver" ||
		die "apt-get install $HOST_QEMU_PACKAGE=$qemu_ver failed (log: $log)" "check the network/apt sources, then rerun"
fi
if [ -n "$lava_line" ]; then
	"$HARNESS_ROOT"/scripts/ci/lava-root.sh || exit 2
fi
status "installed ${missing[*]}"
if [ -z "$kit" ]; then
	qh=$(dpkg-query -W -f='${Version}' "$HOST_QEMU_PACKAGE" 2>/dev/null)
	qemu_fits "$qh" ||
		die "$HOST_QEMU_PACKAGE is at ${qh:-nothing} after the install, not $qemu_series.y >= $HOST_QEMU_VERSION" "see $log"
fi
