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
# make lava-jobs (--jobs-only): write the job files only -- the QEMU job and
# the hardware job template -- under out/results/<base>/lava-jobs/.
# Results: out/results/<base>/lava-<run>/ (job.yaml, device.yaml,
# lava.log.yaml, results.tsv: a row per test, a row for the job, a row
# comparing LAVA's results with make run's). Exit 0 all equal and passed,
# 1 a test failed or differed, 2 harness error (no such run, no lava-run).
. "$(dirname "$0")/../lib/lib.sh"
phase_start lava
S=$HARNESS_ROOT/scripts
jobs_only=""
[ "${1:-}" = --jobs-only ] && jobs_only=1
LAVA_RUN=${LAVA_RUN:-test-debug}
check_name LAVA_RUN "$LAVA_RUN"
case "${LAVA_URL_BASE:-}" in ''|https://*|file://*) ;; *) die "LAVA_URL_BASE=$LAVA_URL_BASE: use https://<lab file server>/<dir> or file://<dir>" ;; esac
src=$RESULTS_DIR/$LAVA_RUN
[ -f "$src/metadata.json" ] && [ -f "$src/runlist.tsv" ] ||
	die "no make run named '$LAVA_RUN' under ${RESULTS_DIR#"$PWD"/}" \
		"run it first (make run RUN_NAME=$LAVA_RUN), or name one of: $(cd "$RESULTS_DIR" 2>/dev/null && ls -d */ 2>/dev/null | tr -d / | tr '\n' ' ')"
[ -f "$src/artefacts/Image" ] && [ -f "$src/artefacts/initramfs.cpio" ] ||
	die "run '$LAVA_RUN' kept no artefacts/Image and artefacts/initramfs.cpio" "rerun it: make run keeps what it booted"
lock_out
[ -n "$jobs_only" ] || LAVA=1 "$S"/deps.sh || exit 2
lava_root=$OUT/cache/lava-root/${LAVA_WORKER:-trixie}
[ -n "$jobs_only" ] || [ -x "$lava_root/root/usr/bin/lava-run" ] ||
	die "LAVA's root ${lava_root#"$PWD"/} has no lava-run" "as root: make deps LAVA=1"
if [ -n "$jobs_only" ]; then
	dir=$RESULTS_DIR/lava-jobs
	rm -rf "$dir"
	mkdir -p "$dir"
	python3 "$S"/ci/lava.py qemu --run-dir "$src" --out "$dir/qemu" --tests "${LAVA_TESTS:-}" \
		--url-base "${LAVA_URL_BASE:-}" --qemu "${QEMU:-qemu-system-aarch64}" || exit 2
	rev=$(git -C "$HARNESS_ROOT" rev-parse HEAD 2>/dev/null || echo main)
	python3 "$S"/ci/lava.py hw --out "$dir/hw-job.yaml" --device-type "${LAVA_DEVICE_TYPE:-LAB-DEVICE-TYPE}" \
		--revision "$rev" --project-url "${LAVA_PROJECT_URL:-https://example.org/kvm-irq-series.git}" \
		--kit-packages "$("$S"/deps.sh --kit-packages)" || exit 2
	status "jobs in ${dir#"$PWD"/}: qemu/job.yaml (+ device.yaml, artefacts/), hw-job.yaml"
	exit 0
fi
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
# make test's rows carry the base, like its other runs'.
[ -n "${RESULTS_TSV:-}" ] && sed "s|^|$BASE/|" "$dir/results.tsv" >>"$RESULTS_TSV"
awk -F'\t' '{ printf "[harness] lava: %-5s %s: %s\n", toupper($2), $1, $3 }' "$dir/results.tsv"
if [ "$rc" -ne 0 ]; then
	echo "[harness] lava: FAIL: lava-run exit $lrc; see ${dir#"$PWD"/}/lava.log.yaml ($(elapsed)s)" >&2
	exit 1
fi
status "PASS: LAVA's results equal make run's for $(($(wc -l <"$dir/results.tsv") - 2)) tests"
