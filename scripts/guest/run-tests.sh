#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run a resolved run list with the kernel's kselftest runner and print one
# TAP 13 stream on stdout, numbered across all tests.
#
#   run-tests.sh <runlist.tsv> <kselftest install dir>
#
# runlist.tsv lines (tab separated, from scripts/lib/runlist.py):
#   run  <test>  <timeout seconds>  <arguments>
#   skip <test>  <reason>
# Each test runs as `run_kselftest.sh -t kvm:<path> -o <timeout>` with its
# arguments in KSELFTEST_<NAME>_ARGS (the runner's own per-test mechanism).
# Runs in the QEMU guest (busybox sh) and natively on arm64 hosts (dash/bash).
#
#   run-tests.sh --print <runlist.tsv>
#       print the runner command of each test instead (make hw-run --dry-run)
print=
[ "$1" = --print ] && { print=1; shift; }
list=$1
[ -r "$list" ] || { echo "run-tests.sh: cannot read $list" >&2; exit 1; }
if [ -z "$print" ]; then
	ksft=$(cd "$2" && pwd) || exit 1
	[ -x "$ksft/run_kselftest.sh" ] || { echo "run-tests.sh: no run_kselftest.sh in $ksft" >&2; exit 1; }
fi

# args_var <test>: the kselftest runner's per-test arguments variable,
# KSELFTEST_<UPPERCASE_SANITIZED_NAME>_ARGS (kselftest/runner.sh).
args_var() {
	echo "KSELFTEST_$(echo "$1" | tr -d '[:blank:][:cntrl:]' | tr -c '[:alnum:]_' '_' |
		tr '[:lower:]' '[:upper:]')_ARGS"
}

tab=$(printf '\t')
total=$(grep -c -E "^(run|skip)$tab" "$list")
if [ -z "$print" ]; then
	echo "TAP version 13"
	echo "1..$total"
	echo "# harness: kernel $(uname -r), $(nproc) CPUs"
fi
# tap13: the runner's one-test TAP stream, renumbered as test $i of the
# whole list and named $hdr (the current entry's, read when called).
tap13() {
	sed -e '/^TAP version 13$/d' -e '/^1\.\.1$/d' \
	    -e "s/^ok 1 /ok $i /" -e "s/^not ok 1 /not ok $i /" \
	    -e "s/ok $i selftests: kvm: $test\$/ok $i $hdr/" \
	    -e "s/ok $i selftests: kvm: $test # /ok $i $hdr # /"
}

i=0
while IFS="$tab" read -r kind name a b; do
	case "$kind" in
		run|skip) i=$((i + 1)) ;;
		*) continue ;;
	esac
	# "<test>@<k>": the k-th of REPEAT runs of <test>.
	test=${name%@*}
	hdr="selftests: kvm: $name"
	case "$name" in l2-*) hdr="selftests: nested: $name" ;; esac
	if [ -n "$print" ]; then
		case "$kind" in
			skip) echo "skip  $name  # $a" ;;
			*) case "$name" in
				l2-*) echo "run   $(dirname "$0")/l2/run-l2.sh $b  # timeout ${a}s" ;;
				*+busy) echo "run   taskset -c <last CPU> run_kselftest.sh -t kvm:<dir>/${test%+busy} -o $a  # beside, on that CPU, in a loop: $b" ;;
				*) echo "run   $(args_var "$test")='$b' run_kselftest.sh -t kvm:<dir>/$test -o $a" ;;
			   esac ;;
		esac
		continue
	fi
	if [ "$kind" = skip ]; then
		echo "# $hdr"
		echo "ok $i $hdr # SKIP $a"
		continue
	fi
	case "$name" in
	l2-*)
		# A nested test: an L2 guest under Debian's QEMU (run-l2.sh).
		echo "# $hdr"
		echo "# harness: run $name timeout=${a}s args=$b"
		t0=$(date +%s)
		# shellcheck disable=SC2086
		L2_TIMEOUT=$a timeout "$a" "$(dirname "$0")/l2/run-l2.sh" $b </dev/null >/tmp/l2-out.txt 2>&1
		rc=$?
		sed 's/^/# /' /tmp/l2-out.txt
		case $rc in
			0) echo "ok $i $hdr" ;;
			4) echo "ok $i $hdr # SKIP pv-guest found no PV vcpu_is_preempted" ;;
			124) echo "not ok $i $hdr # TIMEOUT ${a} seconds" ;;
			*) echo "not ok $i $hdr # exit=$rc" ;;
		esac
		echo "# harness: duration $name $(( $(date +%s) - t0 ))s"
		continue ;;
	esac
	# "<test>+busy": <test> while another VM runs on the same CPU, as on a
	# CI host shared with other guests: the selftest the entry's arguments
	# name (with its own arguments), started again until <test> ends, both
	# pinned to the highest online CPU; <test> itself gets no arguments.
	# <test> starts once the busy VM has completed a run. The entry fails
	# when the busy VM failed a run (then <test> did not run beside a
	# working VM); a skip of <test> stays a skip.
	bpath=""
	case "$name" in
	*+busy)
		test=${test%+busy}
		set -f
		# shellcheck disable=SC2086
		set -- $b
		set +f
		bpath=$(grep -E "^kvm:([^:]*/)?$1\$" "$ksft/kselftest-list.txt" | head -n 1)
		if [ -z "$bpath" ]; then
			echo "# $hdr"
			echo "not ok $i $hdr # the busy VM's test $1 is not built in this tree"
			continue
		fi
		shift
		b="" ;;
	esac
	path=$(grep -E "^kvm:([^:]*/)?$test\$" "$ksft/kselftest-list.txt" | head -n 1)
	if [ -z "$path" ]; then
		echo "# $hdr"
		echo "not ok $i $hdr # not built in this tree"
		continue
	fi
	var=$(args_var "$test")
	if [ -z "$bpath" ]; then
		echo "# harness: run $path timeout=${a}s args=$b"
		t0=$(date +%s)
		# shellcheck disable=SC2086
		env "$var=$b" "$ksft/run_kselftest.sh" -t "$path" -o "$a" </dev/null 2>&1 | tap13
		echo "# harness: duration $name $(( $(date +%s) - t0 ))s"
		continue
	fi
	cpu=$(sed 's/.*[,-]//' /sys/devices/system/cpu/online)
	bdir=$(mktemp -d)
	t0=$(date +%s)
	# The busy VM: one run at a time, each under the entry's timeout, in
	# this subshell, which counts the runs that ended and those that
	# failed into $bdir/count. SIGTERM ends it: the trap kills the current
	# run (SIGTERM: timeout(1) passes it on; not yet reaped, so its pid cannot
	# have been reused) and writes
	# the count.
	(
		n=0 bad=0 child=""
		trap 'trap - TERM; [ -n "$child" ] && kill "$child" 2>/dev/null; echo "$n $bad" >"$bdir/count"; exit 0' TERM
		while :; do
			timeout -s KILL "$a" taskset -c "$cpu" "$ksft/kvm/${bpath#kvm:}" "$@" </dev/null >"$bdir/last.txt" 2>&1 &
			child=$!
			if wait "$child"; then rc=0; else rc=$?; fi
			child=""
			n=$((n + 1))
			[ "$rc" -eq 0 ] || { bad=$((bad + 1)); cp "$bdir/last.txt" "$bdir/failed.txt"; }
			echo "$n $bad" >"$bdir/count"
		done
	) &
	busy_pid=$!
	# If this script is killed meanwhile, the busy VM goes with it.
	trap 'kill "$busy_pid" 2>/dev/null; exit 1' INT TERM HUP
	echo "# harness: busy VM on CPU $cpu: ${bpath#kvm:} $*"
	while [ ! -s "$bdir/count" ] && [ $(( $(date +%s) - t0 )) -lt "$a" ]; do
		sleep 1
	done
	echo "# harness: run $path timeout=${a}s args=$b"
	if [ -s "$bdir/count" ]; then
		# The runner's output as it comes, its result line held back as
		# a comment until the busy VM's count is known.
		env "$var=$b" taskset -c "$cpu" "$ksft/run_kselftest.sh" -t "$path" -o "$a" </dev/null 2>&1 |
			tee "$bdir/out.txt" |
			sed -e '/^TAP version 13$/d' -e '/^1\.\.1$/d' -e 's/^\(not \)\{0,1\}ok 1 /# harness: runner: &/'
	fi
	kill "$busy_pid" 2>/dev/null
	wait "$busy_pid" 2>/dev/null
	trap - INT TERM HUP
	n=0 bad=0
	[ -s "$bdir/count" ] && read -r n bad <"$bdir/count"
	echo "# harness: busy VM completed $n runs, $bad failed"
	[ -s "$bdir/failed.txt" ] && tail -n 20 "$bdir/failed.txt" | sed 's/^/# busy: /'
	res=$(grep -E '^(not )?ok 1 ' "$bdir/out.txt" 2>/dev/null | tail -n 1)
	if [ "$n" -eq 0 ]; then
		res="not ok 1 selftests: kvm: $test # the busy VM completed no run in ${a}s: the test did not run"
	elif [ -z "$res" ]; then
		res="not ok 1 selftests: kvm: $test # the runner printed no result"
	elif [ "$bad" -ne 0 ]; then
		case "$res" in
		*"# SKIP"*) ;;
		*) res="not ok ${res#*ok } # the busy VM failed $bad of $n runs" ;;
		esac
	fi
	rm -rf "$bdir"
	echo "$res" | tap13
	echo "# harness: duration $name $(( $(date +%s) - t0 ))s"
done <"$list"
