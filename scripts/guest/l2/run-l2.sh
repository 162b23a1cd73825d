#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the L1 guest (our KVM host kernel): boot the L2 guest with Debian's
# unmodified qemu-system-aarch64 and KVM, and check what it reports.
#
#   run-l2.sh [-smp N] [-cpu MODEL] [-image NAME] [-mem MB]
#             [-expect present|absent] [-cmd 'track:5'] [-pin 1]
#             [-kargs 'name=value,...']
#
#   -smp     L2 vCPUs (default 2; more than L1's CPUs overcommits L1);
#            Nx: N times the CPUs this script may run on (its affinity)
#   -cpu     QEMU -cpu (default host; host,kvm-steal-time=off: no PV time)
#   -image   /l2/Image-NAME, or an absolute path (default: /l2/Image, the
#            L1 kernel itself)
#   -expect  present: the L2 kernel must print "using PV vcpu_is_preempted";
#            absent: it must not (and must still boot and run the command)
#   -cmd     l2cmd= for the L2 init: pv-guest's arguments, ':'-separated
#   -pin 1   pin vCPU thread N (named "CPU N/KVM" by debug-threads=on) to
#            the (N mod n)-th of the n CPUs this script may run on, as
#            a VMM with dedicated (or statically shared) CPUs does
#   -kargs   more L2 kernel parameters, ','-separated (e.g.
#            clocksource.arm_arch_timer.evtstrm=0: no timer event stream)
# Exit 0 pass, 1 fail, 4 skip (pv-guest skipped). Output: diagnostics.
smp=2 cpu=host image=${L2_IMAGE:-/l2/Image} mem=256 expect= cmd= pin= kargs=
while [ $# -gt 0 ]; do
	case "$1" in
		-smp) smp=$2 ;;
		-cpu) cpu=$2 ;;
		-image) case "$2" in /*) image=$2 ;; *) image=/l2/Image-$2 ;; esac ;;
		-mem) mem=$2 ;;
		-expect) expect=$2 ;;
		-cmd) cmd=$2 ;;
		-pin) pin=$2 ;;
		-kargs) kargs=$(echo "$2" | tr ',' ' ') ;;
		*) echo "run-l2.sh: unknown option $1"; exit 1 ;;
	esac
	shift 2
done
# L2_QEMU, L2_KVM, L2_INITRD and L2_IMAGE are for the harness's own test of
# this script on the build host (a stand-in VMM) and for make hw-pv-ab on
# an arm64 host (the distribution's QEMU); in the L1 guest they are unset.
qemu=${L2_QEMU:-/usr/bin/qemu-system-aarch64}
kvm=${L2_KVM:-/dev/kvm}
initrd=${L2_INITRD:-/l2/guest.cpio}
# The CPUs this script may run on (taskset): "-smp Nx" and -pin count them.
cpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/$$/status | tr ',' ' ')
cpulist=
for r in $cpus; do
	a=${r%-*} b=${r#*-}
	while [ "$a" -le "$b" ]; do cpulist="$cpulist $a"; a=$((a + 1)); done
done
ncpu=$(echo $cpulist | wc -w)
[ "$ncpu" -gt 0 ] || { cpulist=$(seq 0 $(($(nproc) - 1))); ncpu=$(nproc); }
case "$smp" in *x) smp=$(( ${smp%x} * ncpu )) ;; esac
[ -c "$kvm" ] || { echo "run-l2.sh: no $kvm in L1"; exit 1; }
[ -x "$qemu" ] || { echo "run-l2.sh: no VMM in this initramfs (L2=1 adds it)"; exit 1; }
[ -f "$image" ] || { echo "run-l2.sh: no L2 kernel $image"; exit 1; }
[ -f "$initrd" ] || { echo "run-l2.sh: no L2 initramfs $initrd"; exit 1; }
log=/tmp/l2-$$.log
t0=$(date +%s)
echo "L2: qemu-system-aarch64 $(cat /usr/share/l2-vmm-version 2>/dev/null) -accel kvm -cpu $cpu -smp $smp -m $mem, $(basename "$image"), ${kargs:+$kargs }l2cmd=$cmd"
# QEMU runs directly under this shell (no timeout wrapper between them), so
# that every way out of this script, including the TERM of run-tests.sh's
# timeout, kills QEMU itself.
qpid=
stop_qemu() {
	[ -n "$qpid" ] || return 0
	kill "$qpid" 2>/dev/null && sleep 1 && kill -9 "$qpid" 2>/dev/null
	qpid=
}
trap 'stop_qemu' EXIT
trap 'stop_qemu; exit 1' TERM INT HUP
"$qemu" -M virt,gic-version=3 -accel kvm -cpu "$cpu" -smp "$smp" -m "$mem" \
	-nographic -nodefaults -serial stdio -no-reboot -name l2,debug-threads=on \
	-kernel "$image" -initrd "$initrd" \
	-append "console=ttyAMA0 panic=-1 loglevel=5 ${kargs:+$kargs }l2cmd=$cmd" </dev/null >"$log" 2>&1 &
qpid=$!
# QEMU is killed 10 s before run-tests.sh's timeout would kill this script.
deadline=$(( t0 + ${L2_TIMEOUT:-600} - 10 ))
if [ "$pin" = 1 ]; then
	done_tids=
	n_pinned=0
	tries=0
	while [ $n_pinned -lt "$smp" ] && [ $tries -lt 30 ] && kill -0 "$qpid" 2>/dev/null; do
		for t in /proc/[0-9]*/task/[0-9]*; do
			c=$(cat "$t/comm" 2>/dev/null) || continue
			case "$c" in "CPU "*"/KVM") ;; *) continue ;; esac
			tid=${t##*/}
			case " $done_tids " in *" $tid "*) continue ;; esac
			n=${c#CPU }
			n=${n%/KVM}
			c=$(echo $cpulist | cut -d' ' -f$((n % ncpu + 1)))
			taskset -pc "$c" "$tid" >/dev/null 2>&1 ||
				{ echo "L2: FAIL: cannot pin $c (thread $tid)"; exit 1; }
			done_tids="$done_tids $tid"
			n_pinned=$((n_pinned + 1))
		done
		tries=$((tries + 1))
		[ $n_pinned -lt "$smp" ] && sleep 1
	done
	[ $n_pinned -eq "$smp" ] || { echo "L2: FAIL: pinned $n_pinned of $smp vCPU threads"; exit 1; }
	echo "L2: vCPU thread N pinned to CPU N mod $ncpu of$cpulist"
fi
timed_out=
while kill -0 "$qpid" 2>/dev/null; do
	if [ "$(date +%s)" -ge "$deadline" ]; then
		timed_out=1
		stop_qemu
		break
	fi
	sleep 1
done
qrc=124
if [ -z "$timed_out" ]; then
	wait "$qpid"
	qrc=$?
	qpid=
fi
[ -n "$timed_out" ] && echo "L2: FAIL: QEMU killed after $(( ${L2_TIMEOUT:-600} - 10 ))s (hung L2 guest?)"
grep '^\[l2\]' "$log" | tr -d '\r'
# The whole L2 console, for the harness's splat scan (scripts/lib/report.py
# scans these lines with selftests/console-splats.txt, as it does the L1
# console): one scanner, one pattern list.
tr -d '\r' <"$log" | sed 's/^/l2-console: /'
echo "L2: QEMU exited with $qrc after $(( $(date +%s) - t0 ))s"
rc=$(tr -d '\r' <"$log" | sed -n 's/^\[l2\] exit \([0-9]*\)$/\1/p' | tail -n 1)
if [ -z "$rc" ]; then
	echo "L2: FAIL: the guest did not report an exit status (its console is above)"
	exit 1
fi
detected=no
grep -q 'arm-pv: using PV vcpu_is_preempted' "$log" && detected=yes
echo "L2: PV vcpu_is_preempted detected: $detected"
case "$expect" in
	present) [ $detected = yes ] || { echo "L2: FAIL: expected the feature, the guest did not detect it"; exit 1; } ;;
	absent) [ $detected = no ] || { echo "L2: FAIL: the guest detected the feature, expected it absent"; exit 1; } ;;
esac
case "$rc" in
	0) exit 0 ;;
	4) [ "$expect" = absent ] && exit 0; exit 4 ;;
	*) exit 1 ;;
esac
