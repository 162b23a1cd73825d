#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Phase "boot": the only place that knows the QEMU command line.
#
# Boots KERNEL with INITRD (or DISK) as a KVM host under QEMU/TCG:
#   DISK=img             a raw disk image as the root file system instead of
#                        INITRD (virtio-blk, /dev/vda, read-write; make
#                        hw-emulated's Debian system)
#   HOST_MODE=vhe|nvhe   (nvhe adds kvm-arm.mode=nvhe)     default vhe
#   GIC=3|2              GICv3 + ITS, or GICv2             default 3
#   SMP=N MEM=size       CPUs and memory                   default 2, 2G
#   APPEND="..."         extra kernel command line
#   BOOT_TIMEOUT=s       the guest must print "[guest] up" within this    default 300
#   WATCHDOG=s           hard limit for the whole boot (default: BOOT_TIMEOUT
#                        + TESTS_TIMEOUT + 120)
#   RUN_DIR=dir          console.log, tap.txt, qemu.cmd, boot.env land here
# The console (PL011) goes to console.log, the TAP stream (virtio console) to
# tap.txt. Test results are printed as they arrive.
#
# Exit status: 0 the guest finished its run list and powered off;
# 2 bad input, or QEMU failed before the guest came up (a harness error);
# 3 the guest did not finish: it hung before or after "[guest] up", the
# kernel panicked, or it stopped early. boot.env's BOOT_RESULT says which
# (hang-boot, hang, panic, stopped); run.sh reports it like a test result.
# QEMU never outlives this script: SIGTERM/SIGINT/SIGHUP kill it too.
. "$(dirname "$0")/../lib/lib.sh"
phase_start boot

KERNEL=${KERNEL:?KERNEL=Image is required}
DISK=${DISK:-}
[ -n "$DISK" ] || INITRD=${INITRD:?INITRD=initramfs (or DISK=image) is required}
RUN_DIR=${RUN_DIR:?RUN_DIR is required}
HOST_MODE=${HOST_MODE:-vhe}
GIC=${GIC:-3}
SMP=${SMP:-2}
MEM=${MEM:-2G}
BOOT_TIMEOUT=${BOOT_TIMEOUT:-300}
check_uint BOOT_TIMEOUT "$BOOT_TIMEOUT" 1
[ -z "${WATCHDOG:-}" ] || check_uint WATCHDOG "$WATCHDOG" 1
WATCHDOG=${WATCHDOG:-$((BOOT_TIMEOUT + ${TESTS_TIMEOUT:-600} + 120))}
QEMU=${QEMU:-qemu-system-aarch64}
[ "${1:-}" = --print-cmd ] || need_tools "$QEMU"
if [ "${1:-}" != --print-cmd ]; then
	[ -f "$KERNEL" ] || die "kernel image $KERNEL not found" "build it first (make run)"
	if [ -n "$DISK" ]; then [ -f "$DISK" ] || die "disk image $DISK not found"
	else [ -f "$INITRD" ] || die "initramfs $INITRD not found"; fi
fi

case "$HOST_MODE" in
	vhe) mode_args="" ;;
	nvhe) mode_args="kvm-arm.mode=nvhe" ;;
	*) die "HOST_MODE=$HOST_MODE is not vhe or nvhe" ;;
esac
case "$GIC" in
	3) machine="virt,gic-version=3,its=on,virtualization=on" ;;
	2) machine="virt,gic-version=2,virtualization=on" ;;
	*) die "GIC=$GIC is not 2 or 3" ;;
esac

cmdline="console=ttyAMA0 panic=-1 oops=panic${DISK:+ root=/dev/vda rw rootwait}${mode_args:+ $mode_args}${APPEND:+ $APPEND}"
# QEMU's option values hold commas (SC2054 reads them as array separators).
# shellcheck disable=SC2054
if [ -n "$DISK" ]; then
	root_args=(-drive "file=${DISK//,/,,},format=raw,if=none,id=root" -device virtio-blk-device,drive=root)
else
	root_args=(-initrd "$INITRD")
fi
console=$RUN_DIR/console.log
tap=$RUN_DIR/tap.txt
# shellcheck disable=SC2054
qemu_cmd=(
	"$QEMU" -M "$machine" -cpu max,pauth-impdef=on -accel tcg,thread=multi
	-smp "$SMP" -m "$MEM" -nic none -nographic -no-reboot
	-kernel "$KERNEL" "${root_args[@]}" -append "$cmdline"
	-device virtio-serial-device -chardev "file,id=tap,path=$tap"
	-device virtconsole,chardev=tap
)
# --print-cmd: the command line only (the golden tests compare it).
if [ "${1:-}" = --print-cmd ]; then
	printf '%q ' "${qemu_cmd[@]}" | sed 's/ $//'
	echo
	exit 0
fi
mkdir -p "$RUN_DIR"
rm -f "$console" "$tap"
: >"$tap"
printf '%q ' "${qemu_cmd[@]}" >"$RUN_DIR/qemu.cmd"
echo >>"$RUN_DIR/qemu.cmd"

info "$HOST_MODE host, GICv$GIC, $SMP CPUs, $MEM; watchdog ${WATCHDOG}s (console: $console)"
qpid=""
stop_qemu() {
	[ -n "$qpid" ] || return 0
	kill "$qpid" 2>/dev/null || return 0
	sleep 1
	kill -9 "$qpid" 2>/dev/null
	wait "$qpid" 2>/dev/null
}
trap 'stop_qemu' EXIT
trap 'echo "[harness] boot: ERROR: interrupted; stopped QEMU" >&2; stop_qemu; exit 2' TERM INT HUP
"${qemu_cmd[@]}" </dev/null >"$console" 2>"$RUN_DIR/qemu.stderr" &
qpid=$!
echo "$qpid" >"$RUN_DIR/qemu.pid"

result=""
seen=0
up=""
start=$(date +%s)
while kill -0 "$qpid" 2>/dev/null; do
	sleep 1
	now=$(date +%s)
	# Live progress: every TAP result line as it arrives.
	lines=$(wc -l <"$tap")
	if [ "$lines" -gt "$seen" ]; then
		sed -n "$((seen + 1)),${lines}p" "$tap" | tr -d '\r' |
			grep -E '^(not )?ok [0-9]+ ' | sed 's/^/[harness] boot:   /'
		seen=$lines
	fi
	[ -z "$up" ] && grep -q '^\[guest\] up' "$console" 2>/dev/null && up=$((now - start))
	if [ -z "$up" ] && [ $((now - start)) -ge "$BOOT_TIMEOUT" ]; then
		result=hang-boot
		break
	fi
	if [ $((now - start)) -ge "$WATCHDOG" ]; then
		result=hang
		break
	fi
done
if [ -n "$result" ]; then
	kill "$qpid" 2>/dev/null
	sleep 1
	kill -9 "$qpid" 2>/dev/null
fi
wait "$qpid" 2>/dev/null
qrc=$?
qpid=""
dur=$(( $(date +%s) - start ))
# Lines the loop had not printed yet.
sed -n "$((seen + 1)),\$p" "$tap" | tr -d '\r' | grep -E '^(not )?ok [0-9]+ ' | sed 's/^/[harness] boot:   /'

panic=$(tr -d '\r' <"$console" | grep -m1 -E 'Kernel panic - not syncing' |
	sed 's/^\[[ 0-9.]*\] //' || true)
done_marker=$(tr -d '\r' <"$tap" | grep -c '^# harness: done' || true)
last=$(tr -d '\r' <"$tap" | grep -E '^# harness: run ' | tail -n 1 | sed 's/^# harness: run //')
if [ -z "$result" ]; then
	if [ -n "$panic" ]; then result=panic
	elif [ "$done_marker" -gt 0 ]; then result="done"
	elif [ "$qrc" -ne 0 ] && [ -z "$up" ]; then result=qemu-error
	else result=stopped
	fi
fi
BOOT_RESULT=$result BOOT_SECONDS=$dur BOOT_UP_SECONDS=${up:-} KERNEL_CMDLINE=$cmdline QEMU_MACHINE=$machine
write_env "$RUN_DIR/boot.env" BOOT_RESULT BOOT_SECONDS BOOT_UP_SECONDS KERNEL_CMDLINE QEMU_MACHINE

case "$result" in
	done)
		status "guest ran its list and powered off (up after ${up}s, ${dur}s in all)"
		exit 0 ;;
	hang-boot)
		echo "[harness] boot: ERROR: guest hung: no '[guest] up' within ${BOOT_TIMEOUT}s; killed QEMU" >&2
		echo "---- last console lines ($console) ----" >&2
		tail -n 15 "$console" | tr -d '\r' >&2
		echo "[harness] boot: ERROR: watchdog fired during boot -- see $console; raise BOOT_TIMEOUT if the machine is just slow" >&2
		exit 3 ;;
	hang)
		echo "[harness] boot: ERROR: guest hung: watchdog fired after ${WATCHDOG}s${last:+ while running: $last}; killed QEMU" >&2
		echo "---- last console lines ($console) ----" >&2
		tail -n 15 "$console" | tr -d '\r' >&2
		echo "[harness] boot: ERROR: watchdog -- see $console; a test ignored its timeout or the kernel hung" >&2
		exit 3 ;;
	panic)
		echo "[harness] boot: ERROR: kernel panic: $panic${last:+ (while running: $last)}" >&2
		echo "---- console around the panic ($console) ----" >&2
		tr -d '\r' <"$console" | grep -m1 -B 30 -A 5 'Kernel panic - not syncing' >&2
		echo "[harness] boot: ERROR: the kernel panicked -- the oops above names the faulting code" >&2
		exit 3 ;;
	qemu-error)
		echo "[harness] boot: ERROR: QEMU exited with status $qrc before the guest came up:" >&2
		tail -n 10 "$RUN_DIR/qemu.stderr" >&2
		exit 2 ;;
	*)
		echo "[harness] boot: ERROR: guest stopped before finishing its run list${last:+ (last: $last)}" >&2
		tail -n 15 "$console" | tr -d '\r' >&2
		exit 3 ;;
esac
