# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The console and logs of every harness script: the phase's one status
# line when it ends, "[harness] <phase>: <what happened> (<elapsed>s)"
# (phase_start, elapsed, status), progress and warnings (info, warn), and
# "[harness] <phase>: ERROR: <what> -- <what to do next>" on stderr before
# exit status 2 (die); long commands with their output in a log
# (with_progress, run_logged) and the fix to name when one fails (log_fix).
# Used by every harness script; sourced first by lib.sh, since the other
# parts and lib.sh's own checks die with it. PHASE and _phase_t0 are
# globals of lib.sh.
# Part of lib.sh, which sources it: source lib.sh, not this file.

phase_start() {
	PHASE=$1
	_phase_t0=$(date +%s.%N)
}

elapsed() {
	awk -v a="$_phase_t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'
}

# status "message": the phase's one status line.
status() {
	echo "[harness] $PHASE: $* ($(elapsed)s)"
}

info() {
	echo "[harness] $PHASE: $*"
}

warn() {
	echo "[harness] $PHASE: WARNING: $*" >&2
}

# die "what went wrong" ["what to do next"]: a harness error (bad input, a
# missing tool, a build that failed): exit status 2. Test failures are 1.
die() {
	if [ -n "${2:-}" ]; then
		echo "[harness] $PHASE: ERROR: $1 -- $2" >&2
	else
		echo "[harness] $PHASE: ERROR: $1" >&2
	fi
	exit 2
}

# with_progress <what> <log> <cmd>...: <cmd>'s output goes to <log>; while
# it runs, one line "<what>: <N>s, <L> lines of <log>" every PROGRESS_SECONDS
# (30), so that no download, unpack or build is silent for minutes. V=1
# shows the log on the console as it is written instead. Returns <cmd>'s
# exit status.
with_progress() {
	local what=$1 log=$2 t0 ticker rc=0
	shift 2
	t0=$(date +%s)
	if [ "${V:-0}" = 1 ]; then
		"$@" 2>&1 | tee "$log"
		return "${PIPESTATUS[0]}"
	fi
	# The ticker must not outlive the command: a sleep left behind would
	# keep the OUT lock (fd 9) for up to PROGRESS_SECONDS after the
	# script ends. So it does not hold fd 9, and takes its sleep with it.
	(
		exec 9>&-
		sp=
		trap 'kill $sp 2>/dev/null; exit 0' TERM
		while :; do
			sleep "${PROGRESS_SECONDS:-30}" &
			sp=$!
			wait "$sp"
			kill -0 $$ 2>/dev/null || exit 0
			info "$what: $(($(date +%s) - t0))s, $(wc -l <"$log" 2>/dev/null || echo 0) lines of $log"
		done
	) &
	ticker=$!
	"$@" >"$log" 2>&1 || rc=$?
	kill "$ticker" 2>/dev/null || true
	wait "$ticker" 2>/dev/null || true
	return "$rc"
}

# log_fix <log> <fix>: the fix to name for a command that failed with its
# output in <log>: a full disk when the log says so (apt reports one as a
# failed fetch), <fix> otherwise.
log_fix() {
	if grep -q 'No space left on device' "$1" 2>/dev/null; then
		echo "the disk is full (No space left on device, in $1): free space on $(df -P "$(dirname "$1")" | awk 'NR == 2 { print $6 }') and rerun"
	else
		echo "$2"
	fi
}

# run_logged <logfile> cmd...: run a command with its output in a log; on
# failure print the log's tail so the error is visible without opening it.
run_logged() {
	local log=$1
	shift
	if ! with_progress "$(basename "$log" .log)" "$log" "$@"; then
		echo "---- last 40 lines of $log ----" >&2
		tail -n 40 "$log" >&2
		echo "----" >&2
		return 1
	fi
}
