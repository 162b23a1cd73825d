#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The harness's own behaviour on bad input. Each case runs the real script,
# asserts a non-zero exit status and the message a user needs, and appends
# "<name>\tpass|fail\t<detail>" to $RESULTS_TSV.
#
#   harness-tests.sh input   cases that need at most the base tree
#   harness-tests.sh guest   cases that boot the built kernel (hang, panic)
. "$(dirname "$0")/../lib.sh"
phase_start harness-tests
S=$HARNESS_ROOT/scripts
FX=$HARNESS_ROOT/scripts/tests/fixtures
RESULTS_TSV=${RESULTS_TSV:-$OUT/tests/results.tsv}
LOGS=$OUT/tests/harness
mkdir -p "$LOGS"

record() {
	printf '%s\t%s\t%s\n' "harness/$1" "$2" "$3" >>"$RESULTS_TSV"
	echo "[harness] harness-tests: $(echo "$2" | tr a-z A-Z) $1${3:+: $3}"
}

# expect NAME RC REGEX -- CMD...: CMD must exit with status RC ("nonzero" for
# any non-zero status) and print a line matching REGEX (stdout or stderr).
expect() {
	local name=$1 want=$2 regex=$3
	shift 4
	local log=$LOGS/$name.log rc=0
	timeout 900 "$@" >"$log" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ]; then
		record "$name" fail "exited 0 (log: $log)"
		return 1
	fi
	if [ "$want" != nonzero ] && [ "$rc" -ne "$want" ]; then
		record "$name" fail "exit status $rc, expected $want (log: $log)"
		return 1
	fi
	if ! grep -qE -- "$regex" "$log"; then
		record "$name" fail "no line matching '$regex' (log: $log)"
		return 1
	fi
	record "$name" pass "exit $rc, '$(grep -m1 -E -- "$regex" "$log" | cut -c1-110)'"
}

input_cases() {
	expect kernel-src-missing 1 'ERROR: KERNEL_SRC=/nonexistent/linux does not exist' -- \
		env KERNEL_SRC=/nonexistent/linux "$S"/run.sh
	expect kernel-src-not-a-tree 1 'is not a Linux kernel tree' -- \
		env KERNEL_SRC="$HARNESS_ROOT/scripts" "$S"/run.sh
	expect skip-entry-without-reason 2 "skip-noreason.txt:2: skip entry 'vgic_init' has no reason" -- \
		python3 "$S"/runlist.py "$HARNESS_ROOT/selftests/runlist-qemu.txt" \
		--skip "$FX/skip-noreason.txt" -o "$LOGS/unused.tsv"
	expect bad-host-mode 1 'HOST_MODE=hvhe: use vhe or nvhe' -- \
		env HOST_MODE=hvhe "$S"/run.sh
	expect bad-repeat 1 'REPEAT=0: use a whole number of runs, 1 or more' -- \
		env REPEAT=0 "$S"/run.sh
	# REPEAT=3: three results of their own per test, skips once.
	if python3 "$S"/runlist.py "$HARNESS_ROOT/selftests/runlist-qemu.txt" \
		--only "pv_preempted,set_id_regs" --skip "$HARNESS_ROOT/selftests/skip-base-6.12.txt" \
		--repeat 3 -o "$LOGS/rl-repeat.tsv" >/dev/null 2>&1 &&
	   [ "$(cut -f1,2 "$LOGS/rl-repeat.tsv" | tr '\t\n' ' |')" = \
	     "run pv_preempted@1|run pv_preempted@2|run pv_preempted@3|skip set_id_regs|" ]; then
		record runlist-repeat pass "REPEAT=3: pv_preempted@1..3, set_id_regs skipped once"
	else
		record runlist-repeat fail "$(tr '\n' '|' <"$LOGS/rl-repeat.tsv" 2>/dev/null)"
	fi

	# The report on stored raw inputs: TAP with pass/fail/skip/timeout, a
	# planned test without a result, and a console with a lockdep splat.
	rm -rf "$LOGS/report" && cp -r "$FX/report" "$LOGS/report"
	if expect report-finds-failures-and-splat 1 \
		'SPLAT console.log:5: .*WARNING: possible circular locking dependency detected' -- \
		python3 "$S"/report.py --run-dir "$LOGS/report" --meta "$LOGS/report/metadata.json" \
		--splats "$HARNESS_ROOT/selftests/console-splats.txt"; then
		if python3 - "$LOGS/report/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
want = {"vgic_irq": "pass", "arch_timer": "fail", "set_id_regs": "skip",
        "vgic_lpi_stress": "fail", "steal_time": "fail"}
assert s["tests"] == want, s["tests"]
assert s["totals"] == {"passed": 1, "failed": 3, "skipped": 1}, s["totals"]
assert len(s["splats"]) == 1 and s["splats"][0]["line"] == 5, s["splats"]
assert s["verdict"] == "fail"
d = {x["name"]: x for x in s["details"]}
assert d["vgic_lpi_stress"]["reason"] == "TIMEOUT 5 seconds"
assert d["steal_time"]["reason"].startswith("no result")
assert d["vgic_irq"]["duration"] == 4
PY
		then record report-summary-json pass "per-test results, totals, splat line, reasons"
		else record report-summary-json fail "summary.json does not match the stored inputs"
		fi
	fi

	# The lock_stat collector on a stored /proc/lock_stat (debug kernel,
	# kvm-exit-loop -n 2 for 1 s under QEMU): known numbers must come out.
	if python3 - "$S" "$FX/lock_stat-exit-loop-2vcpu.txt" >"$LOGS/lockstat.log" 2>&1 <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import lockstat
c = lockstat.parse(open(sys.argv[2]).read())
assert len(c) == 185, len(c)
d = c["&irq_desc_lock_class"]
assert d["stats"]["acquisitions"] == 4084 and d["stats"]["contentions"] == 40, d["stats"]
assert d["stats"]["waittime-max"] == 7526.16, d["stats"]
assert [(lockstat.site_function(x["symbol"]), x["count"]) for x in d["contention_points"]] == \
    [("__irq_get_desc_lock", 40)], d["contention_points"]
assert c["tasklist_lock-W"]["stats"]["acquisitions"] == 9
assert set(lockstat.select(c, ["tasklist_lock*"])) == {"tasklist_lock-R", "tasklist_lock-W"}
try:
    lockstat.parse("not lock_stat")
    raise SystemExit("garbage accepted")
except lockstat.LockStatError:
    pass
PY
	then record lockstat-parser pass "185 classes; irq_desc_lock_class 4084 acquisitions, 40 contentions at __irq_get_desc_lock"
	else record lockstat-parser fail "$(tail -n 1 "$LOGS/lockstat.log")"
	fi

	# Lock acquisitions per call site: a lock:lock_acquire hist dump taken by
	# run-bench.sh in a real halt-poll benchmark (patched kernel).
	if python3 - "$S" "$FX/lock_sites-halt-poll.txt" >"$LOGS/locksites.log" 2>&1 <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import bench
d = bench.parse_lock_sites(open(sys.argv[2]).read())
assert d == {"vgic_cpu->ap_list_lock": {"kvm_vgic_flush_hwstate": 2819, "kvm_vgic_sync_hwstate": 2821,
                                        "vgic_queue_irq_unlock": 2664, "kvm_vgic_vcpu_pending_irq": 793,
                                        "vgic_flush_pending_lpis": 6}}, d
ls = "lock_stat version 0.4\n"
m = bench.metrics_from_lockstat(ls, ["vgic_cpu->ap_list_lock:sites"], open(sys.argv[2]).read())
assert ("lock_stat vgic_cpu->ap_list_lock acquisitions at kvm_vgic_vcpu_pending_irq", "count",
        "acquisitions", 793) in m, m
PY
	then record lock-sites-parser pass "acquisitions per calling function from a hist dump"
	else record lock-sites-parser fail "$(tail -n 1 "$LOGS/locksites.log")"
	fi

	# One trigger keyed by class name and stack (two classes, a mutex among
	# them): a real dump of lpi-move-1ms on the patched kernel.
	if python3 - "$S" "$FX/lock_sites-its-move.txt" >"$LOGS/locksites2.log" 2>&1 <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import bench
d = bench.parse_lock_sites(open(sys.argv[2]).read())
assert d["its->its_lock"] == {"vgic_its_process_commands": 277, "vgic_its_inject_msi": 16,
                              "vgic_mmio_write_its_baser": 2, "vgic_its_create": 1,
                              "vgic_its_destroy": 1}, d
assert d["kvm->srcu"]["vgic_msi_to_its"] == 16 and "__vgic_doorbell_to_its" not in d["kvm->srcu"], d
assert sum(d["kvm->srcu"].values()) == 1920 - 297, d
PY
	then record lock-sites-parser-names pass "one trigger for two classes, mutex frames skipped"
	else record lock-sites-parser-names fail "$(tail -n 1 "$LOGS/locksites2.log")"
	fi

	# The bench collector and report on stored raw streams of two interleaved
	# base/patched pairs (scripts/tests/fixtures/bench): known values out.
	rm -rf "$LOGS/bench"
	if python3 "$S"/bench.py collect --raw "$FX/bench/raw/base-1" --raw "$FX/bench/raw/patched-1" \
		--raw "$FX/bench/raw/base-2" --raw "$FX/bench/raw/patched-2" \
		--benchlist "$FX/bench/benchlist.txt" --out "$LOGS/bench" --repetitions 2 \
		>"$LOGS/bench.log" 2>&1 &&
	   python3 - "$LOGS/bench/bench.json" "$LOGS/bench/bench.md" >>"$LOGS/bench.log" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = {(x["benchmark"], x["metric"]): x for x in d["results"]}
acq = r[("exit-loop-gic", "lock_stat irq_desc_lock_class acquisitions")]
assert acq["kind"] == "count" and acq["base"] == [4084, 4000] and acq["patched"] == [0, 0], acq
assert acq["base_median"] == 4042 and acq["ratio"] == 0, acq
site = r[("exit-loop-gic", "lock_stat irq_desc_lock_class contentions at __irq_get_desc_lock")]
assert site["base"] == [40, 40] and site["patched"] == [0, 0], site
rate = r[("exit-loop-gic", "exits/s per vCPU, 2 vCPUs")]
assert rate["kind"] == "rate" and rate["unit"] == "exits/s", rate
assert rate["base"] == [1000.0, 1100.0] and rate["patched"] == [1500.0, 1600.0], rate
assert abs(rate["ratio"] - 1550 / 1050) < 1e-9, rate
lpi = r[("lpi-1x1x1", "LPI injection rate")]
assert lpi["base_min"] == 40000 and lpi["patched_max"] == 41000, lpi
assert d["order"] == ["base-1", "patched-1", "base-2", "patched-2"] and not d["errors"]
for key in ("benchmark", "metric", "kind", "unit", "base", "patched", "ratio"):
    assert all(key in x for x in d["results"]), key
md = open(sys.argv[2]).read()
assert "| lock_stat irq_desc_lock_class acquisitions | count (TCG does not distort) | 4,042 [4,000 - 4,084] | 0 [0 - 0] | 0.000 |" in md
PY
	then record bench-collector-report pass "lock_stat counts, rates, medians, ratios and bench.md from stored streams"
	else record bench-collector-report fail "$(tail -n 2 "$LOGS/bench.log" | tr '\n' ' ')"
	fi

	# make hw-bench's single-kernel files and their comparison (the same
	# streams, as if measured natively on two kernels).
	if python3 "$S"/bench.py hw --raw "$FX/bench/raw/base-1" --raw "$FX/bench/raw/base-2" \
		--benchlist "$FX/bench/benchlist.txt" --kernel 6.12.117 --out "$LOGS/hw-before.json" \
		>"$LOGS/hw-compare.log" 2>&1 &&
	   python3 "$S"/bench.py hw --raw "$FX/bench/raw/patched-1" --raw "$FX/bench/raw/patched-2" \
		--benchlist "$FX/bench/benchlist.txt" --kernel 6.12.117+series --out "$LOGS/hw-after.json" \
		>>"$LOGS/hw-compare.log" 2>&1 &&
	   python3 "$S"/bench.py compare "$LOGS/hw-before.json" "$LOGS/hw-after.json" \
		--out "$LOGS/hw-compare" >>"$LOGS/hw-compare.log" 2>&1 &&
	   python3 - "$LOGS/hw-compare/bench.json" >>"$LOGS/hw-compare.log" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = {(x["benchmark"], x["metric"]): x for x in d["results"]}
site = r[("exit-loop-gic", "lock_stat irq_desc_lock_class contentions at __irq_get_desc_lock")]
assert site["base"] == [40, 40] and site["patched"] == [0, 0], site
rate = r[("exit-loop-gic", "exits/s per vCPU, 2 vCPUs")]
assert rate["base"] == [1000.0, 1100.0] and rate["patched"] == [1500.0, 1600.0], rate
assert d["before_kernel"] == "6.12.117" and d["after_kernel"] == "6.12.117+series"
PY
	then record hw-bench-compare pass "two single-kernel files -> the same bench.json"
	else record hw-bench-compare fail "$(tail -n 2 "$LOGS/hw-compare.log" | tr '\n' ' ')"
	fi

	# The cases below work on a work tree of their own.
	"$S"/base-tree.sh >"$LOGS/base.log" 2>&1 ||
		{ record base-tree fail "cannot prepare the base tree (log: $LOGS/base.log)"; return; }
	. "$OUT/state/base.env"

	# A run-list test without source in the tree: skipped (with the patch
	# as reason) when a patch of the series adds it, an error otherwise.
	printf 'vgic_irqfd 300\n' >"$LOGS/rl-series.txt"
	if python3 "$S"/runlist.py "$LOGS/rl-series.txt" --tree "$BASE_DIR" \
		--patches "$HARNESS_ROOT/patches" -o "$LOGS/rl-series.tsv" >/dev/null 2>&1 &&
	   grep -qP '^skip\tvgic_irqfd\tnot in this tree: 0007-' "$LOGS/rl-series.tsv"; then
		record runlist-test-from-series pass "vgic_irqfd on the base: skipped, 0007 adds it"
	else
		record runlist-test-from-series fail "$(cat "$LOGS/rl-series.tsv" 2>/dev/null | head -n 1)"
	fi
	# Nested (l2-*) entries: no tree lookup; skipped with the reason when
	# the initramfs has no nested kit, run when it has.
	printf 'vgic_irqfd 300\nl2-pv-guest 600 -smp 4 -expect present\n' >"$LOGS/rl-l2.txt"
	if python3 "$S"/runlist.py "$LOGS/rl-l2.txt" --tree "$BASE_DIR" --patches "$HARNESS_ROOT/patches" \
		--no-l2 "nested tests off" -o "$LOGS/rl-l2-off.tsv" >/dev/null 2>&1 &&
	   grep -qP '^skip\tl2-pv-guest\tnested tests off$' "$LOGS/rl-l2-off.tsv" &&
	   python3 "$S"/runlist.py "$LOGS/rl-l2.txt" --tree "$BASE_DIR" --patches "$HARNESS_ROOT/patches" \
		-o "$LOGS/rl-l2-on.tsv" >/dev/null 2>&1 &&
	   grep -qP '^run\tl2-pv-guest\t600\t-smp 4 -expect present$' "$LOGS/rl-l2-on.tsv"; then
		record runlist-nested-entries pass "l2-pv-guest: skipped with the reason without L2, run with it"
	else
		record runlist-nested-entries fail "$(cat "$LOGS/rl-l2-off.tsv" "$LOGS/rl-l2-on.tsv" 2>/dev/null | tr '\n' '|')"
	fi
	printf 'vgic_irqdf 300\n' >"$LOGS/rl-typo.txt"
	expect runlist-misspelt-test 2 "test 'vgic_irqdf' has no source in .* and no patch in .* adds it" -- \
		python3 "$S"/runlist.py "$LOGS/rl-typo.txt" --tree "$BASE_DIR" \
		--patches "$HARNESS_ROOT/patches" -o "$LOGS/unused.tsv"

	export VARIANT=harness-test
	if expect patch-does-not-apply 1 \
		'0002-bad.patch: kernel/irq/manage.c: Hunk #1 FAILED at 1' -- \
		env PATCHES="$FX/bad-series" "$S"/apply-series.sh; then
		# Nothing half-patched: the first (good) patch was rolled back too.
		if cmp -s "$OUT/work/$VARIANT/src/virt/lib/irqbypass.c" "$BASE_DIR/virt/lib/irqbypass.c" &&
		   [ ! -e "$OUT/work/$VARIANT/applied.env" ]; then
			record failed-apply-leaves-base pass "work tree back at the base, no stamp"
		else
			record failed-apply-leaves-base fail "work tree differs from the base after a failed apply"
		fi
	fi
	expect patch-needs-fuzz 1 '0001-fuzzy.patch applies only with fuzz; fuzz is an error here' -- \
		env PATCHES="$FX/fuzz-series" "$S"/apply-series.sh
	if env PATCHES="$FX/empty-series" "$S"/apply-series.sh >"$LOGS/empty-series.log" 2>&1; then
		record empty-series-is-base pass "$(tail -n 1 "$LOGS/empty-series.log" | cut -c1-100)"
		expect fragment-symbol-dropped 1 \
			"CONFIG_KVM_INTEL: bad-fragment.config requests 'CONFIG_KVM_INTEL=y', final .config has '<absent" -- \
			env FRAGMENTS="kvm-host $FX/bad-fragment.config" "$S"/config.sh
	else
		record empty-series-is-base fail "an empty series did not apply (log: $LOGS/empty-series.log)"
	fi
	expect hw-run-refuses-non-arm64 1 'hw-run: ERROR: .*(not an arm64 host|no /dev/kvm)' -- \
		"$S"/hw-run.sh
	if "$S"/hw-run.sh --dry-run >"$LOGS/hw-dry-run.log" 2>&1 &&
	   grep -q 'run_kselftest.sh -t kvm:.*arch_timer -o' "$LOGS/hw-dry-run.log"; then
		record hw-run-dry-run pass "$(grep -c 'run_kselftest.sh' "$LOGS/hw-dry-run.log") commands printed"
	else
		record hw-run-dry-run fail "dry run did not print the runner commands (log: $LOGS/hw-dry-run.log)"
	fi
}

# A tiny initramfs: busybox plus one of the fixture inits.
tiny_initramfs() {
	local init=$1 out=$2 d
	d=$(mktemp -d)
	mkdir -p "$d/bin" "$d/proc" "$d/dev"
	cp "$(dpkg -L busybox-static:arm64 | grep -m1 '/busybox$')" "$d/bin/busybox"
	cp "$init" "$d/init"
	(cd "$d" && find . | cpio --quiet -o -H newc -R 0:0 >"$out")
	rm -rf "$d"
}

guest_cases() {
	local image
	image=$(ls -t "$OUT"/work/*/build-kvm-host/arch/arm64/boot/Image 2>/dev/null | head -n 1)
	if [ -z "$image" ]; then
		record guest-hang fail "no kernel Image built (the first run failed)"
		record guest-panic fail "no kernel Image built (the first run failed)"
		return
	fi
	tiny_initramfs "$FX/guest-hang/init" "$LOGS/hang.cpio"
	tiny_initramfs "$FX/guest-panic/init" "$LOGS/panic.cpio"
	expect guest-hang 2 'ERROR: guest hung: watchdog fired after 40s' -- \
		env KERNEL="$image" INITRD="$LOGS/hang.cpio" RUN_DIR="$LOGS/hang" \
		BOOT_TIMEOUT=300 WATCHDOG=40 "$S"/boot-qemu.sh
	expect guest-panic 3 'ERROR: kernel panic: Kernel panic - not syncing: Attempted to kill init' -- \
		env KERNEL="$image" INITRD="$LOGS/panic.cpio" RUN_DIR="$LOGS/panic" \
		BOOT_TIMEOUT=300 WATCHDOG=300 "$S"/boot-qemu.sh
}

case "${1:-}" in
	input) input_cases ;;
	guest) guest_cases ;;
	*) echo "usage: $0 input|guest" >&2; exit 1 ;;
esac
exit 0
