# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Reproducers: the make command that repeats a run (reproducer <target>,
# run_reproducer), from the variables params.tsv marks "repro" for the
# target that differ from their defaults (param_default). The one writer
# of every run's metadata.json "reproduce" (run.sh, bench.sh, hw-run.sh,
# hw-bench.sh, metadata.sh); help.py names the same variables.
# Part of lib.sh, which sources it: source lib.sh, not this file.

# param_default <target> <VAR>: VAR's default for <target>, as the scripts
# set it; "<unset>" where only setting it (even empty) changes something.
param_default() {
	case "$2" in
		BASE) echo mainline ;;
		PATCHES) echo "$SERIES_DEFAULT" ;;
		PROJECT_PATCHES|SKIPLISTS) echo "<unset>" ;;
		FRAGMENTS) echo kvm-host ;;
		HOST_MODE) echo vhe ;;
		GIC) echo 3 ;;
		SMP) case "$1" in bench) echo 4 ;; *) echo 2 ;; esac ;;
		MEM) case "$1" in bench) echo 3G ;; *) echo 2G ;; esac ;;
		RUNLIST) case "$1" in hw-run) echo "$HARNESS_ROOT/selftests/runlist-hw.txt" ;;
			*) echo "$HARNESS_ROOT/selftests/runlist-qemu.txt" ;; esac ;;
		BENCHLIST) case "$1" in hw-bench) echo "$HARNESS_ROOT/selftests/benchlist-hw.txt" ;;
			*) echo "$HARNESS_ROOT/selftests/benchlist-qemu.txt" ;; esac ;;
		REPS) case "$1" in hw-bench) echo 5 ;; *) echo 3 ;; esac ;;
		REPEAT) echo 1 ;;
		L2|KERNEL_HAS_SERIES) echo 0 ;;
		BOOT_TIMEOUT) echo 300 ;;
		VARIANT) echo patched ;;
		QEMU) echo qemu-system-aarch64 ;;
		*) echo "" ;;
	esac
}

# reproducer <target>: the make command that repeats a run of <target>:
# every variable params.tsv marks "repro" for it (scripts/lib/help.py
# --repro-vars) that is set and differs from its default. The one writer of
# every run's metadata.json "reproduce" (make run, bench, hw-run, hw-bench).
reproducer() {
	local t=$1 r="make $1" v d val
	for v in $(python3 "$HARNESS_ROOT/scripts/lib/help.py" --repro-vars "$t"); do
		[ -n "${!v+set}" ] || continue
		val=${!v}
		# (the base table sets BASE_DEB_SHA256 itself; the caller's is kept)
		[ "$v" = BASE_DEB_SHA256 ] && val=$BASE_DEB_SHA256_GIVEN
		d=$(param_default "$t" "$v")
		[ "$val" = "$d" ] && continue
		[ -z "$val" ] && [ "$d" != "<unset>" ] && continue
		r="$r $v='$val'"
	done
	echo "$r"
}

# run_reproducer: make run's reproducer (reproducer run).
run_reproducer() {
	reproducer run
}
