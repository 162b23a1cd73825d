#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run a resolved benchmark list and print one TAP 13 stream: each
# benchmark's output and, when the kernel has lock_stat, the /proc/lock_stat
# taken over exactly that benchmark, as "# " comment lines between
# "# bench: begin <name>" and its result line. scripts/lib/bench.py reads it.
# A lock class written "<class>:sites" also gets its acquisitions counted
# per call stack: a hist trigger on the lock:lock_acquire tracepoint
# (lockdep + CONFIG_HIST_TRIGGERS, kernel-config/trace.config), keyed by
# the stack and filtered on the class name, dumped after the benchmark.
#
#   run-bench.sh <benchlist.tsv> <kselftest install dir> <bench bin dir>
#
# benchlist.tsv lines (tab separated, from scripts/lib/bench.py resolve):
#   bench <name> <timeout seconds> <lock classes> <command> [arguments]
# The command is looked up in the bench bin dir, then among the installed
# KVM selftests. Runs in the QEMU guest (busybox sh) and on arm64 hosts.
list=$1
ksft=$(cd "$2" && pwd) || exit 1
bin=$(cd "$3" && pwd) || exit 1
tab=$(printf '\t')
total=$(grep -c "^bench$tab" "$list")
echo "TAP version 13"
echo "1..$total"
echo "# harness: kernel $(uname -r), $(nproc) CPUs"
lockstat=
[ -w /proc/sys/kernel/lock_stat ] && [ -r /proc/lock_stat ] && lockstat=1
echo "# harness: lock_stat $([ -n "$lockstat" ] && echo available || echo "not available")"
trig=/sys/kernel/tracing/events/lock/lock_acquire/trigger
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
sites=
[ -w "$trig" ] && sites=1
# The hist trigger for the classes given as a filter ("!" before it removes
# it). One trigger keyed by class name and stack: ftrace refuses a second
# hist trigger whose keys match an existing one, whatever its filter.
hist_of() { echo "hist:keys=name,common_stacktrace:vals=hitcount:sort=hitcount.descending:size=8192 if $1"; }
echo "# harness: acquisition call sites $([ -n "$sites" ] && echo available || echo "not available (needs lockdep and HIST_TRIGGERS)")"
i=0
while IFS="$tab" read -r kind name timeout classes cmd args; do
	[ "$kind" = bench ] || continue
	i=$((i + 1))
	echo "# bench: begin $name"
	exe=$bin/$cmd
	[ -x "$exe" ] || exe=$(find "$ksft/kvm" -type f -name "$cmd" | head -n 1)
	# Nested benchmarks: run-l2.sh boots the L2 guest (L2=1 initramfs).
	[ -n "$exe" ] && [ -x "$exe" ] || exe=$(dirname "$0")/l2/$cmd
	export L2_TIMEOUT=$timeout
	if [ -z "$exe" ] || [ ! -x "$exe" ]; then
		echo "not ok $i bench: $name # no program '$cmd'"
		continue
	fi
	filter=
	for c in $(echo "$classes" | tr ',' ' '); do
		case $c in *:sites) ;; *) continue ;; esac
		[ -n "$sites" ] || continue
		c=${c%:sites}
		case $c in \&*) ;; *) c="&$c" ;; esac
		filter="${filter:+$filter || }name == \"$c\""
	done
	triggers=
	if [ -n "$filter" ]; then
		if hist_of "$filter" >"$trig" 2>/dev/null; then
			triggers=1
		else
			echo "# harness: cannot set the hist trigger ($filter)"
		fi
	fi
	if [ -n "$lockstat" ]; then
		echo 0 >/proc/lock_stat
		echo 1 >/proc/sys/kernel/lock_stat
	fi
	out=/tmp/bench.$i
	t0=$(date +%s)
	# shellcheck disable=SC2086
	timeout "$timeout" "$exe" $args </dev/null >"$out" 2>&1
	rc=$?
	[ -n "$lockstat" ] && echo 0 >/proc/sys/kernel/lock_stat
	sed 's/^/# /' "$out"
	if [ -n "$lockstat" ]; then
		echo "# @lock_stat-begin"
		sed 's/^/# /' /proc/lock_stat
		echo "# @lock_stat-end"
	fi
	# The hist file holds one histogram per trigger, each headed by its
	# "trigger info" line (which names the class); then the triggers go.
	if [ -n "$triggers" ]; then
		echo "# @lock_sites-begin"
		sed 's/^/# /' /sys/kernel/tracing/events/lock/lock_acquire/hist
		echo "# @lock_sites-end"
		echo "!$(hist_of "$filter")" >"$trig"
	fi
	echo "# harness: duration $name $(( $(date +%s) - t0 ))s"
	case $rc in
		0) echo "ok $i bench: $name" ;;
		4) echo "ok $i bench: $name # SKIP exit 4 (the program says it cannot run here, above)" ;;
		124) echo "not ok $i bench: $name # TIMEOUT $timeout seconds" ;;
		*) echo "not ok $i bench: $name # exit=$rc" ;;
	esac
	rm -f "$out"
done <"$list"
