#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make lava: the QEMU TCG LAVA job for one make run (LAVA_RUN, default
# make test's debug run), run by Debian's lava-dispatcher without a server
# (lava-run, as TuxRun does) in a LAVA worker root of its own under OUT
# (scripts/ci/lava-root.sh; LAVA_WORKER picks it: trixie, debian12,
# debian12-qemu10), with that root's QEMU, and its per-test results checked
# against that run's own: same Image, same initramfs, same run list.
#   LAVA_RUN=<run name>    the run under out/results/<base>/ (it kept
#                          artefacts/Image and artefacts/initramfs.cpio)
#   LAVA_TESTS="t1 t2"     only these entries of its run list (default all)
#   LAVA_URL_BASE=https://...  where a lab serves the artefacts (the job
#                          then names them there, and lava-run downloads
#                          them from there: copy artefacts/ first)
# make lava-jobs (--jobs-only): write the job files only, under
# out/results/<base>/lava-jobs/: the hardware job template (hw-job.yaml, for
# BASE; needs no make run) and, when the run LAVA_RUN kept its artefacts, the
# QEMU job (qemu/: job, device, content-named artefacts); without such a run
# the QEMU job is skipped with a line that says how to get one.
#   LAVA_DEVICE_TYPE, LAVA_PROJECT_URL, LAVA_KCIDB_UPLOAD: the hardware
#                          template's device type, project git URL, and the
#                          URL its job PUTs make hw-run's kcidb.json to
# Results: out/results/<base>/lava-<run>/ (job.yaml, device.yaml,
# lava.log.yaml, results.tsv: a row per test, a row for the job, a row
# comparing LAVA's results with make run's; kcidb.json: LAVA's results as
# KCIDB, lava.py kcidb). Exit 0 all equal and passed,
# 1 a test failed or differed, 2 harness error (no such run, no lava-run).
. "$(dirname "$0")/../lib/lib.sh"
phase_start lava
S=$HARNESS_ROOT/scripts
jobs_only=""
case "$*" in
	--jobs-only) jobs_only=1 ;;
	"") ;;
	*) die "unknown argument(s) '$*'" "the only one is --jobs-only (make lava-jobs); set variables instead (make help)" ;;
esac
LAVA_RUN=${LAVA_RUN:-test-debug}
check_name LAVA_RUN "$LAVA_RUN"
case "${LAVA_URL_BASE:-}" in ''|https://*|http://*|file://*) ;; *) die "LAVA_URL_BASE=$LAVA_URL_BASE: use https://<lab file server>/<dir> (or http://, or file://<dir>)" ;; esac
case "${LAVA_KCIDB_UPLOAD:-}" in ''|https://*|http://*) ;; *) die "LAVA_KCIDB_UPLOAD=$LAVA_KCIDB_UPLOAD: use an http(s):// URL the device can PUT kcidb.json to" ;; esac
src=$RESULTS_DIR/$LAVA_RUN
# kept_run <dir>: a make run that kept what it booted (the QEMU job boots it).
kept_run() {
	[ -f "$1/metadata.json" ] && [ -f "$1/runlist.tsv" ] && [ -f "$1/artefacts/Image" ] &&
		[ -f "$1/artefacts/initramfs.cpio" ]
}
# The runs under RESULTS_DIR a QEMU job can boot, space-separated.
kept_runs() {
	local d
	for d in "$RESULTS_DIR"/*/; do
		kept_run "$d" && basename "$d"
	done 2>/dev/null | tr '\n' ' ' | sed 's/ $//'
}
# What to do without such a run (make test's debug run is the default:
# its kernel runs the KUnit suites at boot; any make run will do).
no_run_hint() {
	local have
	have=$(kept_runs)
	if [ -n "$have" ]; then
		echo "name one of these runs with LAVA_RUN=: $have"
	else
		echo "there is none under ${RESULTS_DIR#"$PWD"/} yet: make test makes test-debug (the debug kernel, KUnit at boot), or make run RUN_NAME=<name> then LAVA_RUN=<name>"
	fi
}
lock_out
if [ -n "$jobs_only" ]; then
	dir=$RESULTS_DIR/lava-jobs
	rm -rf "$dir"
	mkdir -p "$dir"
	rev=$(git -C "$HARNESS_ROOT" rev-parse HEAD 2>/dev/null || echo main)
	python3 "$S"/ci/lava.py hw --out "$dir/hw-job.yaml" --base "$BASE" --device-type "${LAVA_DEVICE_TYPE:-LAB-DEVICE-TYPE}" \
		--revision "$rev" --project-url "${LAVA_PROJECT_URL:-https://example.org/kvm-irq-series.git}" \
		--kcidb-upload "${LAVA_KCIDB_UPLOAD:-}" --kit-packages "$("$S"/deps.sh --kit-packages)" >/dev/null || exit 2
	if kept_run "$src"; then
		python3 "$S"/ci/lava.py qemu --run-dir "$src" --out "$dir/qemu" --tests "${LAVA_TESTS:-}" \
			--url-base "${LAVA_URL_BASE:-}" --qemu "${QEMU:-qemu-system-aarch64}" >/dev/null || exit 2
		status "jobs in ${dir#"$PWD"/}: hw-job.yaml (BASE=$BASE), qemu/job.yaml (+ device.yaml, artefacts/) of run $LAVA_RUN"
	else
		info "QEMU job skipped: no make run named '$LAVA_RUN' kept its artefacts -- $(no_run_hint)"
		status "jobs in ${dir#"$PWD"/}: hw-job.yaml (BASE=$BASE)"
	fi
	exit 0
fi
kept_run "$src" || die "no make run named '$LAVA_RUN' kept its artefacts (Image, initramfs) under ${RESULTS_DIR#"$PWD"/}" "$(no_run_hint)"
LAVA=1 "$S"/deps.sh || exit 2
lava_root=$OUT/cache/lava-root/${LAVA_WORKER:-trixie}
[ -x "$lava_root/root/usr/bin/lava-run" ] ||
	die "LAVA's root ${lava_root#"$PWD"/} has no lava-run" "as root: make deps LAVA=1"
dir=$RESULTS_DIR/lava-$LAVA_RUN
rm -rf "$dir"
mkdir -p "$dir"
python3 "$S"/ci/lava.py qemu --run-dir "$src" --out "$dir" --tests "${LAVA_TESTS:-}" --url-base "${LAVA_URL_BASE:-}" \
	--qemu "${QEMU:-qemu-system-aarch64}" >/dev/null || exit 2
# lava-run validates the job against LAVA's schema, downloads (copies) and
# checks the artefacts' sha256, adds its test overlay to the initramfs,
# boots QEMU, waits for the prompt and runs the test shell. Its job timeout
# bounds it; this watchdog only catches a dispatcher that ignores it.
mins=$(awk '/^timeouts:/ { t = 1 } t && /minutes:/ { print $2; exit }' "$dir/job.yaml")
# shellcheck disable=SC1091
. "$lava_root/versions.env"
cp "$lava_root/versions.env" "$dir/worker.env"
info "lava-run: job $LAVA_RUN (${LAVA_TESTS:-all tests}; job timeout ${mins} min; worker '$LAVA_WORKER': lava-dispatcher $LAVA_DISPATCHER_VERSION, QEMU $LAVA_QEMU_VERSION; log: ${dir#"$PWD"/}/lava.log.yaml)"
lrc=0
IN_ROOT_TIMEOUT=$(((mins + 5) * 60)) in_root "$lava_root/root" lava-run --job-id "$(date +%s)" --output-dir "$dir/output" --device "$dir/device.yaml" \
	--dispatcher "$dir/dispatcher.yaml" "$dir/job.yaml" >"$dir/lava.log.yaml" 2>&1 || lrc=$?
rm -rf "$dir/download" "$dir/output/"*/ 2>/dev/null

rc=0
python3 "$S"/ci/lava.py results --log "$dir/lava.log.yaml" --run-dir "$src" --tests "${LAVA_TESTS:-}" \
	>"$dir/results.tsv" || rc=$?
[ "$rc" -le 1 ] || die "LAVA's log could not be read (${dir#"$PWD"/}/lava.log.yaml)"
# The same results as KCIDB (lava.py kcidb): the run's checkout and build,
# LAVA's test cases with KernelCI's paths, the KUnit cases of its console.
python3 "$S"/ci/lava.py kcidb --log "$dir/lava.log.yaml" --run-dir "$src" --tests "${LAVA_TESTS:-}" \
	-o "$dir/kcidb.json" >/dev/null || warn "LAVA's results could not be written as KCIDB (${dir#"$PWD"/}/kcidb.json)"
# make test's rows carry the base, like its other runs'.
[ -n "${RESULTS_TSV:-}" ] && sed "s|^|$BASE/|" "$dir/results.tsv" >>"$RESULTS_TSV"
awk -F'\t' '{ printf "[harness] lava: %-5s %s: %s\n", toupper($2), $1, $3 }' "$dir/results.tsv"
if [ "$rc" -ne 0 ]; then
	echo "[harness] lava: FAIL: lava-run exit $lrc; see ${dir#"$PWD"/}/lava.log.yaml ($(elapsed)s)" >&2
	exit 1
fi
status "PASS: LAVA's results equal make run's for $(($(wc -l <"$dir/results.tsv") - 2)) tests"
