# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Test results of the harness's own test scripts (tests/*.sh, boot-qemu.sh,
# hw-*.sh, the CI scripts): one writer of a result row and its status line
# (result, with the counters RESULTS_PASSED and RESULTS_FAILED, set to 0
# when this file is sourced), the script's last line and exit status
# (results_end), and the kernel log a test wrote on the host
# (kernel_log_since: hw-run.sh's splat scan).
# Part of lib.sh, which sources it: source lib.sh, not this file.

# result <group/name> <pass|fail|skip|error> [note]: the one writer of a
# test result of the harness's own test scripts: a results.tsv line when
# RESULTS_TSV is set, a status line always; RESULTS_PASSED/RESULTS_FAILED
# count them (skip counts as neither; error as failed).
RESULTS_PASSED=0
RESULTS_FAILED=0
result() {
	case "$2" in
		pass) RESULTS_PASSED=$((RESULTS_PASSED + 1)) ;;
		fail|error) RESULTS_FAILED=$((RESULTS_FAILED + 1)) ;;
		skip) ;;
		*) die "result $1: '$2' is not pass, fail, skip or error" ;;
	esac
	[ -n "${RESULTS_TSV:-}" ] && printf '%s\t%s\t%s\n' "$1" "$2" "$(echo "${3:-}" | tr '\t\n' '  ')" >>"$RESULTS_TSV"
	echo "[harness] $PHASE: $(echo "$2" | tr a-z A-Z) $1${3:+: $3}"
	return 0
}

# results_end: the test script's last line and exit status (1 if any failed).
results_end() {
	status "$RESULTS_PASSED passed, $RESULTS_FAILED failed"
	[ "$RESULTS_FAILED" -eq 0 ] || exit 1
	exit 0
}

# kernel_log_since <lines before> <out>: the kernel log written since a
# snapshot of <lines before> lines was taken, into <out>. A kernel log that
# cannot be read (no root, dmesg_restrict) gives a note in <out> and a
# warning, never an early exit.
kernel_log_since() {
	local before=$1 out=$2 log
	if log=$(dmesg 2>&1); then
		printf '%s\n' "$log" | tail -n +"$((before + 1))" >"$out" || true
	else
		warn "cannot read the kernel log ($log); the splat scan sees nothing (run as root)"
		echo "harness: kernel log not readable: $log" >"$out"
	fi
	return 0
}
