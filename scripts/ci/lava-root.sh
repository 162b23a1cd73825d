#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# LAVA's dispatcher in a Debian root of its own under OUT, made from
# Debian's packages with mmdebstrap, so that the host gets no
# lava-dispatcher, no libguestfs, no second QEMU and no lava-worker service
# (TuxRun keeps LAVA in a container for the same reason). make lava runs
# lava-run inside it (apt.sh's in_root: a private mount namespace).
#
#   lava-root.sh            make the root of LAVA_WORKER if it is not there
#                           ($OUT/cache/lava-root/<worker>/root)
#   lava-root.sh --print    print the worker's suites and packages only
#
# LAVA_WORKER (make lava's worker; the job is the same on each):
#   trixie          (default) Debian 13 with lava-dispatcher from
#                   trixie-backports (2026.10 on 2026-12-07: the LAVA labs
#                   run today) and Debian 13's QEMU (10.0.y, the pinned
#                   series); what make test runs
#   debian12        a stock Debian 12 worker: lava-dispatcher 2023.01 and
#                   Debian 12's own QEMU 7.2 (Documentation/ci.rst, "What a
#                   worker needs": the job on QEMU 7.2)
#   debian12-qemu10 Debian 12's lava-dispatcher 2023.01 with the pinned QEMU
#                   from bookworm-backports (the 2023.01 dispatcher and
#                   device type with a QEMU the job passes on)
# The root is made once per OUT and worker (about 2 minutes and 350 MB;
# make clean keeps it, with the rest of cache/); its versions are in
# <root>/../versions.env and in every make lava result.
. "$(dirname "$0")/../lib/lib.sh"
phase_start lava-root
LAVA_WORKER=${LAVA_WORKER:-trixie}
kr='[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]'
m=http://deb.debian.org/debian
case "$LAVA_WORKER" in
	trixie)
		suite=trixie
		sources=("deb $kr $m trixie main" "deb $kr $m trixie-updates main"
			"deb $kr http://deb.debian.org/debian-security trixie-security main" "deb $kr $m trixie-backports main")
		lava_release=trixie-backports qemu_release=trixie lava_pkgs=lava-dispatcher ;;
	debian12 | debian12-qemu10)
		suite=bookworm
		sources=("deb $kr $m bookworm main" "deb $kr $m bookworm-updates main"
			"deb $kr http://deb.debian.org/debian-security bookworm-security main")
		lava_release=bookworm qemu_release=bookworm lava_pkgs=lava-dispatcher
		if [ "$LAVA_WORKER" = debian12-qemu10 ]; then
			# 2023.01's libguestfs needs qemu-system-x86 of the installed
			# QEMU's version, and backports' QEMU needs backports' seabios:
			# both from the QEMU's suite (bookworm's 7.2 build conflicts).
			sources+=("deb $kr $m $HOST_QEMU_SUITE main")
			qemu_release=$HOST_QEMU_SUITE lava_release=$HOST_QEMU_SUITE
			lava_pkgs="lava-dispatcher/bookworm qemu-system-x86"
		fi ;;
	*) die "LAVA_WORKER=$LAVA_WORKER: unknown worker" "use trixie (default), debian12 or debian12-qemu10" ;;
esac
if [ "${1:-}" = --print ]; then
	echo "LAVA worker '$LAVA_WORKER': $suite root (mmdebstrap minbase), $lava_pkgs (-t $lava_release), qemu-system-arm from $qemu_release"
	exit 0
fi
[ -z "${1:-}" ] || die "unknown argument '$1'" "use: lava-root.sh [--print]"

dir=$OUT/cache/lava-root/$LAVA_WORKER
root=$dir/root
if [ -f "$dir/.ok" ] && [ -x "$root/usr/bin/lava-run" ]; then
	# shellcheck disable=SC1091
	. "$dir/versions.env"
	status "cached LAVA worker '$LAVA_WORKER': lava-dispatcher $LAVA_DISPATCHER_VERSION, QEMU $LAVA_QEMU_VERSION"
	exit 0
fi
[ "$(id -u)" -eq 0 ] || die "making LAVA's root ($LAVA_WORKER) needs root (mmdebstrap --mode=root)" \
	"as root: make deps LAVA=1"
need_tools mmdebstrap
need_disk 2 || exit 2
rm_tree "$dir"
mkdir -p "$dir"
log=$OUT/logs/lava-root-$LAVA_WORKER.log
mkdir -p "$(dirname "$log")"
info "making LAVA's root '$LAVA_WORKER' ($suite, lava-dispatcher from $lava_release, QEMU from $qemu_release; log: ${log#"$PWD"/})"
# The packages come from the suites named for each (-t), the rest from the
# root's suite; recommends stay out (libguestfs is one). cpio: lava-run
# appends its test overlay to the job's initramfs with it (minbase has none).
install="apt-get install -y --no-install-recommends"
with_progress "lava root" "$log" mmdebstrap --variant=minbase --mode=root \
	--aptopt='APT::Install-Recommends "false"' \
	--customize-hook="chroot \"\$1\" env DEBIAN_FRONTEND=noninteractive $install -t $qemu_release qemu-system-arm cpio" \
	--customize-hook="chroot \"\$1\" env DEBIAN_FRONTEND=noninteractive $install -t $lava_release $lava_pkgs" \
	"$suite" "$root" "${sources[@]}" ||
	die "mmdebstrap of LAVA's root ($LAVA_WORKER) failed (log: ${log#"$PWD"/})" \
		"$(log_fix "$log" "see the log's last lines: the network, or an archive change (a package the suite no longer has)")"
LAVA_DISPATCHER_VERSION=$(chroot "$root" dpkg-query -W -f='${Version}' lava-dispatcher)
LAVA_QEMU_VERSION=$(chroot "$root" dpkg-query -W -f='${Version}' qemu-system-arm)
[ -x "$root/usr/bin/lava-run" ] && [ -x "$root/usr/bin/qemu-system-aarch64" ] ||
	die "LAVA's root ($LAVA_WORKER) has no lava-run or qemu-system-aarch64" "see ${log#"$PWD"/}"
LAVA_WORKER_SUITE=$suite
write_env "$dir/versions.env" LAVA_WORKER LAVA_WORKER_SUITE LAVA_DISPATCHER_VERSION LAVA_QEMU_VERSION
touch "$dir/.ok"
status "LAVA worker '$LAVA_WORKER' made: lava-dispatcher $LAVA_DISPATCHER_VERSION, QEMU $LAVA_QEMU_VERSION ($(du -sm "$root" | cut -f1) MB)"
