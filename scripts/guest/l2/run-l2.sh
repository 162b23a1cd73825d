#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the L1 guest (our KVM host kernel): boot the L2 guest with Debian's
# unmodified qemu-system-aarch64 and KVM, and check what it reports.
#
#   run-l2.sh [-smp N] [-cpu MODEL] [-image NAME] [-mem MB]
#             [-expect present|absent] [-cmd 'track:5'] [-pin 1]
#
#   -smp     L2 vCPUs (default 2; more than L1's CPUs overcommits L1)
#   -cpu     QEMU -cpu (default host; host,kvm-steal-time=off: no PV time)
#   -image   /l2/Image-NAME (default: /l2/Image, the L1 kernel itself)
#   -expect  present: the L2 kernel must print "using PV vcpu_is_preempted";
#            absent: it must not (and must still boot and run the command)
#   -cmd     l2cmd= for the L2 init: pv-guest's arguments, ':'-separated
#   -pin 1   pin vCPU thread N (named "CPU N/KVM" by debug-threads=on) to
#            L1 CPU N mod (L1 CPUs), as
#            a VMM with dedicated (or statically shared) CPUs does
# Exit 0 pass, 1 fail, 4 skip (pv-guest skipped). Output: diagnostics.
smp=2 cpu=host image=/l2/Image mem=256 expect= cmd= pin=
while [ $# -gt 0 ]; do
	case "$1" in
		-smp) smp=$2 ;;
		-cpu) cpu=$2 ;;
		-image) image=/l2/Image-$2 ;;
		-mem) mem=$2 ;;
		-expect) expect=$2 ;;
		-cmd) cmd=$2 ;;
		-pin) pin=$2 ;;
		*) echo "run-l2.sh: unknown option $1"; exit 1 ;;
	esac
	shift 2
done
[ -c /dev/kvm ] || { echo "run-l2.sh: no /dev/kvm in L1"; exit 1; }
[ -x /usr/bin/qemu-system-aarch64 ] || { echo "run-l2.sh: no VMM in this initramfs (L2=1 adds it)"; exit 1; }
[ -f "$image" ] || { echo "run-l2.sh: no L2 kernel $image"; exit 1; }
log=/tmp/l2-$$.log
t0=$(date +%s)
echo "L2: qemu-system-aarch64 $(cat /usr/share/l2-vmm-version 2>/dev/null) -accel kvm -cpu $cpu -smp $smp -m $mem, $(basename "$image"), l2cmd=$cmd"
# QEMU is killed 10 s before run-tests.sh's timeout would kill this script.
timeout $(( ${L2_TIMEOUT:-600} - 10 )) qemu-system-aarch64 -M virt,gic-version=3 -accel kvm -cpu "$cpu" -smp "$smp" -m "$mem" \
	-nographic -nodefaults -serial stdio -no-reboot -name l2,debug-threads=on \
	-kernel "$image" -initrd /l2/guest.cpio \
	-append "console=ttyAMA0 panic=-1 loglevel=5 l2cmd=$cmd" </dev/null >"$log" 2>&1 &
bg=$!
if [ "$pin" = 1 ]; then
	ncpu=$(nproc)
	done_tids=
	n_pinned=0
	tries=0
	while [ $n_pinned -lt "$smp" ] && [ $tries -lt 30 ] && kill -0 $bg 2>/dev/null; do
		for t in /proc/[0-9]*/task/[0-9]*; do
			c=$(cat "$t/comm" 2>/dev/null) || continue
			case "$c" in "CPU "*"/KVM") ;; *) continue ;; esac
			tid=${t##*/}
			case " $done_tids " in *" $tid "*) continue ;; esac
			n=${c#CPU }
			n=${n%/KVM}
			taskset -p "$(printf %x $((1 << (n % ncpu))))" "$tid" >/dev/null 2>&1 ||
				{ echo "L2: FAIL: cannot pin $c (thread $tid)"; kill $bg; exit 1; }
			done_tids="$done_tids $tid"
			n_pinned=$((n_pinned + 1))
		done
		tries=$((tries + 1))
		[ $n_pinned -lt "$smp" ] && sleep 1
	done
	[ $n_pinned -eq "$smp" ] || { echo "L2: FAIL: pinned $n_pinned of $smp vCPU threads"; kill $bg; exit 1; }
	echo "L2: vCPU thread N pinned to L1 CPU N mod $ncpu"
fi
wait $bg
qrc=$?
[ $qrc -eq 124 ] && echo "L2: FAIL: QEMU killed after $(( ${L2_TIMEOUT:-600} - 10 ))s (hung L2 guest?)"
grep '^\[l2\]' "$log" | tr -d '\r'
echo "L2: QEMU exited with $qrc after $(( $(date +%s) - t0 ))s"
rc=$(tr -d '\r' <"$log" | sed -n 's/^\[l2\] exit \([0-9]*\)$/\1/p' | tail -n 1)
if [ -z "$rc" ]; then
	echo "L2: FAIL: the guest did not report an exit status; last console lines:"
	tail -n 20 "$log" | tr -d '\r'
	exit 1
fi
if grep -q 'Kernel panic\|BUG:\|WARNING:\|Oops' "$log"; then
	echo "L2: FAIL: splat on the L2 console:"
	grep -m 3 'Kernel panic\|BUG:\|WARNING:\|Oops' "$log"
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
