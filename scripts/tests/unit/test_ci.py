# SPDX-License-Identifier: GPL-2.0
"""scripts/ci: the LAVA jobs (golden files), LAVA's results, KCIDB JSON and
its checker, the prebuilt kernel's module list, and the run list's skips
for a kernel without the series.

UPDATE_GOLDEN=1 rewrites scripts/tests/golden/lava/ from the templates
(review the diff: it is what a lab receives)."""
import copy
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

from common import FX, ROOT, SCRIPTS

sys.path.insert(0, os.path.join(SCRIPTS, "ci"))
import kcidb  # noqa: E402
import lava  # noqa: E402

CI = os.path.join(FX, "ci")
GOLDEN = os.path.join(ROOT, "scripts", "tests", "golden", "lava")
KERNEL_SHA = "1f946f3cf8e0337446d4d8d13be639ce8c6fe94ab38e8538689c6b4e8c1f0e71"
INITRD_SHA = "bbda4247c651f3cc91107afe8ed54df9b4fceac49a63a244d26d24a456d1afba"
URL = "https://lab.example.org/kvm-irq-series/artefacts"
KIT = "make gcc libc6-dev ccache rsync xz-utils perl python3 quilt patch git kmod procps qemu-system-arm rt-tests busybox-static cpio"


def hw_args(base="mainline", upload=""):
    """lava.py hw's arguments for the golden template (make lava-jobs')."""
    return type("A", (), {
        "device_type": "ampere-altra", "revision": "0123456789abcdef0123456789abcdef01234567",
        "project_url": "https://example.org/kvm-irq-series.git",
        "kernel_url": "https://lab.example.org/kernel/Image",
        "ramdisk_url": "https://lab.example.org/debian-12-arm64/initrd.img.gz",
        "nfsrootfs_url": "https://lab.example.org/debian-12-arm64/rootfs.tar.xz",
        "kit_packages": KIT, "base": base, "kcidb_upload": upload})()


def golden_jobs():
    """The job files for fixed inputs: the fixture run, fixed artefacts."""
    with open(os.path.join(CI, "run", "metadata.json")) as f:
        meta = json.load(f)
    entries = lava.read_runlist(os.path.join(CI, "run", "runlist.tsv"))
    tests = lava.select(entries, ["vgic_init", "pv_state", "hypercalls", "kvm_binary_stats_test"])
    v = lava.qemu_values(meta, entries, tests, f"{URL}/{KERNEL_SHA}-Image", KERNEL_SHA,
                         f"{URL}/{INITRD_SHA}-initramfs.cpio", INITRD_SHA)
    hw = lava.hw_values(hw_args())
    return {"qemu-job.yaml": lava.render("qemu-job.yaml", v),
            "qemu-device.yaml": lava.render("qemu-device.yaml", v),
            "hw-job.yaml": lava.render("hw-job.yaml", hw)}


class LavaJobs(unittest.TestCase):
    def test_golden(self):
        jobs = golden_jobs()
        if os.environ.get("UPDATE_GOLDEN") == "1":
            os.makedirs(GOLDEN, exist_ok=True)
            for name, text in jobs.items():
                with open(os.path.join(GOLDEN, name), "w") as f:
                    f.write(text)
        for name, text in jobs.items():
            with open(os.path.join(GOLDEN, name)) as f:
                self.assertEqual(f.read(), text, f"{name} differs from its golden file (UPDATE_GOLDEN=1 after review)")

    def test_lava_schema(self):
        """The golden jobs pass LAVA's own job schema (lava_common.schemas)
        of every LAVA worker root the harness has made under OUT
        (scripts/ci/lava-root.sh: 2026.10, and 2023.01 where a debian12
        worker was made); chroot needs root."""
        out = os.environ.get("OUT") or os.path.join(ROOT, "out")
        roots = sorted(glob.glob(os.path.join(out, "cache", "lava-root", "*", "root")))
        roots = [r for r in roots if os.path.exists(os.path.join(r, "usr", "bin", "lava-run"))]
        if not roots or os.geteuid() != 0:
            self.skipTest("no LAVA worker root under OUT, or not root (make deps LAVA=1 makes one)")
        for root in roots:
            for name in ("qemu-job.yaml", "hw-job.yaml"):
                with open(os.path.join(GOLDEN, name), "rb") as f:
                    job = f.read()
                r = subprocess.run(["chroot", root, "python3", "-c",
                                    "import sys, yaml; from lava_common.schemas import validate; "
                                    "validate(yaml.safe_load(sys.stdin))"],
                                   input=job, capture_output=True)
                self.assertEqual(r.returncode, 0, f"{root}: {name}: {r.stderr.decode().strip().splitlines()[-1:]}")

    def test_unknown_test_refused(self):
        entries = lava.read_runlist(os.path.join(CI, "run", "runlist.tsv"))
        with self.assertRaises(lava.LavaError):
            lava.select(entries, ["vgic_init", "no_such_test"])

    def test_timeouts_from_run_list(self):
        jobs = golden_jobs()["qemu-job.yaml"]
        # 180 + 180 + 180 + 120 s of the run list -> 11 min, + 5 of margin
        self.assertIn("    timeout:\n      minutes: 16\n    definitions:", jobs)


# Stand-ins for the device's commands: each logs its arguments; make
# hw-run leaves a summary.json with a failed selftest and a kcidb.json and
# fails as make does (2); make hw-bench fails without a result file.
STUB_MAKE = r"""#!/bin/sh
echo "make $*" >>"$STUBLOG"
base=mainline
for a in "$@"; do case "$a" in BASE=*) base=${a#BASE=} ;; esac; done
case " $* " in
*" hw-run "*)
	d=out/results/$base/lava-hw-run
	mkdir -p "$d"
	printf '%s' '{"details": [{"name": "vgic_irq", "result": "fail", "duration": 3}, {"name": "vgic_init", "result": "pass", "duration": 2}], "boot": {"result": "done"}}' >"$d/summary.json"
	printf '%s' '{"version": {"major": 5, "minor": 3}, "tests": []}' >"$d/kcidb.json"
	echo "make: *** [Makefile:61: hw-run] Error 1" >&2
	exit 2 ;;
*" hw-bench "*) exit 2 ;;
esac
"""
STUB_LOG = '#!/bin/sh\necho "$(basename "$0") $*" >>"$STUBLOG"\n'


class HwJobSteps(unittest.TestCase):
    """The hardware job's steps as LAVA runs them (run.sh under set -e,
    sh -e): a failing make hw-run must not end the test shell."""

    def run_steps(self, steps, kit):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        stubs = os.path.join(d, "bin")
        os.makedirs(stubs)
        for name, text in (("make", STUB_MAKE), ("lava-test-case", STUB_LOG), ("apt-get", STUB_LOG),
                           ("git", STUB_LOG), ("curl", STUB_LOG)):
            with open(os.path.join(stubs, name), "w") as f:
                f.write(text)
            os.chmod(os.path.join(stubs, name), 0o755)
        log = os.path.join(d, "calls.log")
        with open(os.path.join(d, "run.sh"), "w") as f:
            f.write("set -e\n" + "\n".join(steps) + "\necho after-the-steps\n")
        env = dict(os.environ, PATH=stubs + os.pathsep + os.environ["PATH"], STUBLOG=log)
        r = subprocess.run(["sh", "-e", os.path.join(d, "run.sh")], cwd=d, env=env,
                           capture_output=True, text=True)
        calls = []
        if os.path.exists(log):
            with open(log) as f:
                calls = f.read().splitlines()
        return r, calls

    def job_steps(self, base, upload, kit):
        import yaml
        job = yaml.safe_load(lava.render("hw-job.yaml", lava.hw_values(hw_args(base, upload), kit=kit)))
        self.assertEqual(job["metadata"]["base"], base)
        test = [a["test"] for a in job["actions"] if "test" in a][0]
        return test["definitions"][0]["repository"]["run"]["steps"]

    def test_failing_hw_run(self):
        for base, upload in (("mainline", ""), ("6.12", "https://lab.example.org/kcidb/")):
            with self.subTest(base=base):
                kit = tempfile.mkdtemp()
                self.addCleanup(shutil.rmtree, kit)
                os.symlink(SCRIPTS, os.path.join(kit, "scripts"))
                r, calls = self.run_steps(self.job_steps(base, upload, kit), kit)
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                self.assertIn("after-the-steps", r.stdout, "a step ended the test shell")
                self.assertIn("make hw-run exit 2", r.stdout)
                self.assertIn(f"make hw-run BASE={base} RUN_NAME=lava-hw-run", calls)
                # lava-report.py ran after the failed make: each selftest is a case
                self.assertIn("lava-test-case vgic_irq --result fail --measurement 3 --units seconds", calls)
                self.assertIn("lava-test-case vgic_init --result pass --measurement 2 --units seconds", calls)
                # the KCIDB document is in the log (and uploaded when configured)
                self.assertIn("KCIDB-JSON 1/1 ", r.stdout)
                self.assertIn("lava-test-case kcidb --result pass", calls)
                self.assertEqual([c for c in calls if c.startswith("curl")],
                                 [f"curl -fsS --retry 3 -T out/results/{base}/lava-hw-run/kcidb.json {upload}"]
                                 if upload else [])
                # make hw-bench ran, and so did its report (no file: a failed case)
                self.assertIn(f"make hw-bench BASE={base} RUN_NAME=lava", calls)
                self.assertEqual(calls[-1], "lava-test-case harness-report --result fail")

    def test_control_old_step_stops(self):
        """The form the template had: the shell ends at make's failure (the
        test above would catch it)."""
        kit = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, kit)
        r, calls = self.run_steps([f"cd {kit} && make hw-run RUN_NAME=lava-hw-run; echo \"hw-run exit $?\""], kit)
        self.assertNotEqual(r.returncode, 0)
        self.assertNotIn("after-the-steps", r.stdout)
        self.assertNotIn("hw-run exit", r.stdout)

    def test_bad_base_refused(self):
        with self.assertRaises(lava.LavaError):
            lava.hw_values(hw_args("6.13"))


class LavaResults(unittest.TestCase):
    def rows(self, summary_edit=None, tests=""):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        with open(os.path.join(CI, "run", "summary.json")) as f:
            s = json.load(f)
        if summary_edit:
            summary_edit(s)
        with open(os.path.join(d, "summary.json"), "w") as f:
            json.dump(s, f)
        r = subprocess.run([sys.executable, os.path.join(SCRIPTS, "ci", "lava.py"), "results",
                            "--log", os.path.join(CI, "lava.log.yaml"), "--run-dir", d,
                            "--tests", tests], capture_output=True, text=True)
        return r.returncode, [line.split("\t") for line in r.stdout.splitlines()]

    def test_equal(self):
        rc, rows = self.rows(tests="vgic_init pv_state kvm_binary_stats_test hypercalls")
        self.assertEqual(rc, 0, rows)
        self.assertEqual([r[1] for r in rows], ["pass"] * 6)
        self.assertEqual(rows[-1][0], "lava/equals-make-run")

    def test_differs(self):
        def fail_pv(s):
            for d in s["details"]:
                if d["name"] == "pv_state":
                    d["result"] = "fail"
        rc, rows = self.rows(fail_pv, tests="vgic_init pv_state")
        self.assertEqual(rc, 1)
        self.assertEqual(dict((r[0], r[1]) for r in rows)["lava/pv_state"], "fail")
        self.assertEqual(rows[-1][:2], ["lava/equals-make-run", "fail"])

    def test_missing_case(self):
        rc, rows = self.rows(tests="vgic_init arch_timer")
        self.assertEqual(rc, 1)
        self.assertIn("no LAVA test case", dict((r[0], r[2]) for r in rows)["lava/arch_timer"])


# Documents the schema rejects, each one field off (kcidb-io v5.3 with the
# format checkers of jsonschema[format]): (what, edit). Both kcidb.py
# --check and kcidb-io (test_agrees_with_kcidb_io, where it is installed)
# must reject each.
SCHEMA_REJECTS = {
    "slash in path": lambda d: d["tests"][1].__setitem__("path", "kselftest.kvm.arm64/vgic_irq"),
    "null": lambda d: d["builds"][0].__setitem__("compiler", None),
    "status": lambda d: d["tests"][0].__setitem__("status", "TIMEOUT"),
    "origin": lambda d: d["checkouts"][0].__setitem__("origin", "Bad-Origin"),
    "id without origin": lambda d: d["tests"][0].__setitem__("id", "x"),
    "unknown field": lambda d: d["tests"][0].__setitem__("result", "pass"),
    "missing build_id": lambda d: d["tests"][0].pop("build_id"),
    "version": lambda d: d.__setitem__("version", {"major": 4, "minor": 5}),
    "minor 4": lambda d: d.__setitem__("version", {"major": 5, "minor": 4}),
    "http repo": lambda d: d["checkouts"][0].__setitem__("git_repository_url", "http://x/y.git"),
    "repo not a URI": lambda d: d["checkouts"][0].__setitem__("git_repository_url", "https://x/a b.git"),
    "patchset_hash": lambda d: d["checkouts"][0].__setitem__("patchset_hash", "abc"),
    "short commit hash": lambda d: d["checkouts"][0].__setitem__("git_commit_hash", "0123abc"),
    "upper-case commit hash": lambda d: d["checkouts"][0].__setitem__("git_commit_hash", "A" * 40),
    "start_time": lambda d: d["tests"][0].__setitem__("start_time", "yesterday"),
    "month 13": lambda d: d["tests"][0].__setitem__("start_time", "2026-13-01T00:00:00Z"),
    "30 February": lambda d: d["tests"][0].__setitem__("start_time", "2026-02-30T00:00:00Z"),
    "second 60": lambda d: d["tests"][0].__setitem__("start_time", "2026-12-03T17:42:60Z"),
    "resource": lambda d: d["tests"][0].__setitem__("output_files", [{"name": "a/b", "url": "https://x"}]),
    "relative output_files url": lambda d: d["tests"][0].__setitem__("output_files", [{"name": "tap.txt", "url": "tap.txt"}]),
    "non-URI log_url": lambda d: d["tests"][0].__setitem__("log_url", "console.log"),
    "relative log_url": lambda d: d["builds"][0].__setitem__("log_url", "logs/build.log"),
    "relative config_url": lambda d: d["builds"][0].__setitem__("config_url", "artefacts/config"),
    "log_url with a space": lambda d: d["tests"][0].__setitem__("log_url", "https://lab.example.org/a b.log"),
    "compatible with a space": lambda d: d["tests"][0]["environment"].__setitem__("compatible", ["linux dummy"]),
    "environment key": lambda d: d["tests"][0]["environment"].__setitem__("platform", "qemu"),
    "message_id": lambda d: d["checkouts"][0].__setitem__("message_id", "not-an-address"),
    "architecture": lambda d: d["builds"][0].__setitem__("architecture", "ARM64"),
    "valid not bool": lambda d: d["checkouts"][0].__setitem__("valid", "yes"),
    "duration string": lambda d: d["tests"][0].__setitem__("duration", "3"),
    "number prefix": lambda d: d["tests"][0].__setitem__("number", {"value": 1, "prefix": "si"}),
    "excerpt too long": lambda d: d["tests"][0].__setitem__("log_excerpt", "x" * 16385),
    "tags not strings": lambda d: d["checkouts"][0].__setitem__("git_commit_tags", [7]),
}
# ... and documents it accepts, which a stricter reading might refuse.
SCHEMA_ACCEPTS = {
    "file URL": lambda d: d["tests"][0].__setitem__("log_url", "file:///srv/results/console.log"),
    "http log_url": lambda d: d["tests"][0].__setitem__("log_url", "http://lab.example.org/r/console.log"),
    "percent-encoded URL": lambda d: d["tests"][0].__setitem__("log_url", "https://lab.example.org/a%20b.log"),
    "version without minor": lambda d: d.__setitem__("version", {"major": 5}),
    "message_id in brackets": lambda d: d["checkouts"][0].__setitem__("message_id", "<20261204.1@example.org>"),
    "offset date-time": lambda d: d["tests"][0].__setitem__("start_time", "2026-12-03T17:42:00.5+01:00"),
    "empty path": lambda d: d["tests"][0].__setitem__("path", ""),
    "number on SKIP": lambda d: d["tests"][0].update(status="SKIP", number={"value": 1}),
    "dangling build_id": lambda d: d["tests"][0].__setitem__("build_id", "kvm_arm64_irq_series:none"),
    "id of another origin": lambda d: d["tests"][0].__setitem__("id", "other_ci:1"),
}


class Kcidb(unittest.TestCase):
    def doc(self, sub="run", series=None, url=""):
        return kcidb.build_doc(os.path.join(CI, sub), "kvm_arm64_irq_series", series, url)

    def test_run_valid(self):
        d = self.doc(series=os.path.join(ROOT, "patches", "mainline"))
        self.assertEqual(kcidb.check(d) + kcidb.check_links(d), [])
        self.assertEqual(d["version"], {"major": 5, "minor": 3})
        paths = {t["path"]: t["status"] for t in d["tests"]}
        # KernelCI's names: kselftest.<collection>.<collection>_<test>
        self.assertEqual(paths["kselftest.kvm.kvm_vgic_init"], "PASS")
        self.assertEqual(paths["kselftest.kvm.kvm_kvm_binary_stats_test"], "PASS")
        self.assertEqual(paths["kselftest.kvm.kvm_vgic_lpi_stress"], "SKIP")  # arm64/vgic_lpi_stress
        self.assertEqual(paths["kvm-irq-series.nested.l2-pv-guest"], "ERROR")
        self.assertEqual(paths["boot"], "PASS")
        self.assertRegex(d["checkouts"][0]["patchset_hash"], "^[0-9a-f]{64}$")

    def test_kunit_cases(self):
        d = self.doc()
        kunit = {t["path"]: (t["status"], t.get("comment")) for t in d["tests"] if t["path"].startswith("kunit.")}
        self.assertEqual(kunit, {
            "kunit.exec.irq_percpu_irqchip_state.percpu_state_reaches_parent_unlocked": ("PASS", None),
            "kunit.exec.irq_percpu_irqchip_state.percpu_state_runs_on_each_cpu": ("SKIP", "needs 2 online CPUs"),
            "kunit.exec.irq_percpu_irqchip_state.percpu_state_rejects_bus_lock_chip": ("PASS", None),
            "kunit.exec.irq_bypass.bypass_connect_producer_first": ("PASS", None),
            "kunit.exec.irq_bypass.bypass_duplicates_rejected": ("FAIL", None)})

    def test_kunit_parser(self):
        import report
        text = ("[    1.0] KTAP version 1\n[    1.0] 1..1\n"
                "[    1.1]     # Subtest: s\n[    1.1]     1..2\n"
                "[    1.2]         # Subtest: c\n[    1.2]         ok 1 p=1\n[    1.2]         not ok 2 p=2\n"
                "[    1.3]     not ok 1 c\n[    1.4]     ok 2 d # SKIP why\n[    1.5] not ok 1 s\n"
                "TAP version 13\n# Subtest: top\nok 1 selftests: kvm: vgic_init\n"
                "    # Subtest: t\n    ok 1 e\n")
        self.assertEqual(report.kunit_results(text), [
            (["s", "c", "p=1"], "pass", ""), (["s", "c", "p=2"], "fail", ""), (["s", "d"], "skip", "why"),
            (["t", "e"], "pass", ""),
            (["t"], "error", "no result line for the suite: the kernel stopped in it")])
        self.assertEqual(kcidb.kunit_path(["s", "c", "p=1"]), "kunit.exec.s.c.p_1")

    def test_project_tests_own_names(self):
        """The project's own tests (selftests/project/<base>, not mailed)
        are no kselftests; a test they only change (hypercalls) is."""
        own = kcidb.project_tests(["pv_state_timing", "reg_migrate", "hypercalls", "vgic_irq@2"], None, "6.12")
        self.assertEqual(own, {"pv_state_timing", "reg_migrate"})
        self.assertEqual(kcidb.test_path("reg_migrate", own), "kvm-irq-series.project.reg_migrate")
        self.assertEqual(kcidb.test_path("vgic_irq@2", own), "kselftest.kvm.kvm_vgic_irq")
        self.assertEqual(kcidb.test_path("arch_timer_phys_active+busy", own),
                         "kvm-irq-series.busy-cpu.arch_timer_phys_active")
        self.assertEqual(kcidb.slug("kvm: my-test"), "kvm_my-test")

    def test_checkout_placed(self):
        ck = self.doc(series=os.path.join(ROOT, "patches", "mainline"))["checkouts"][0]
        self.assertEqual((ck["tree_name"], ck["git_repository_url"], ck["git_repository_branch"],
                          ck["git_commit_name"], ck["git_commit_tags"]),
                         ("stable", "https://git.kernel.org/pub/scm/linux/kernel/git/stable/linux.git",
                          "linux-7.3.y", "v7.3.4", ["v7.3.4"]))
        self.assertEqual((ck["misc"]["debian_package"], ck["misc"]["debian_version"]),
                         ("linux-source-7.3", "7.3.4-1~bpo13+1"))

    def test_patchset_hash_mailed_only(self):
        """patchset_hash is the mailed series' alone: the project's own
        patches (applied-series/project/) are left out, and counted apart."""
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        series = os.path.join(ROOT, "patches", "6.12")
        project = os.path.join(ROOT, "selftests", "project", "6.12")
        os.makedirs(os.path.join(d, "project"))
        names = kcidb.series_names(series)
        pnames = kcidb.series_names(project)
        for n in names:
            shutil.copy(os.path.join(series, n), os.path.join(d, n))
        for n in pnames:
            shutil.copy(os.path.join(project, n), os.path.join(d, "project", n))
        with open(os.path.join(d, "series"), "w") as f:
            f.write("".join(n + "\n" for n in names) + "".join(f"project/{n}\n" for n in pnames))
        ck = self.doc(series=d)["checkouts"][0]
        self.assertEqual(ck["patchset_hash"], kcidb.patchset_hash(series))
        self.assertEqual((ck["misc"]["series_patches"], ck["misc"]["project_patches"]), (len(names), len(pnames)))
        self.assertIn(f"the {len(names)} patches", ck["comment"])

    def test_urls_and_no_host_paths(self):
        url = "https://lab.example.org/results/mainline/lavasrc"
        d = self.doc(url=url)
        boot = [t for t in d["tests"] if t["path"] == "boot"][0]
        self.assertEqual(boot["log_url"], url + "/console.log")
        kst = [t for t in d["tests"] if t["path"] == "kselftest.kvm.kvm_vgic_init"][0]
        self.assertEqual(kst["log_url"], url + "/tap.txt")
        self.assertEqual(kcidb.check(d), [])
        # the debug run's fragments included an absolute path (config_name
        # leaked the runner's OUT), and so can a prebuilt kernel's origin
        frags = ["kvm-host", "debug", "/srv/ci/out/work/mainline/patched/kunit-boot.config"]

        def paths(meta):
            meta["config"]["fragments"] = frags
            meta["prebuilt_kernel"] = {"origin": "/home/lab/kernels/Image", "has_series": False}
        doc = kcidb.build_doc(self.edited_run(paths), "kvm_arm64_irq_series", None)
        strings = []

        def walk(o):
            if isinstance(o, dict):
                [walk(v) for v in o.values()]
            elif isinstance(o, list):
                [walk(v) for v in o]
            elif isinstance(o, str):
                strings.append(o)
        walk(doc)
        self.assertEqual([x for x in strings if re.search(r"(^|[\s:(+])/(?!/)", x)], [])
        debug = self.edited_run(lambda meta: meta["config"].__setitem__("fragments", frags))
        self.assertEqual(kcidb.build_doc(debug, "o", None)["builds"][0]["config_name"], "kvm-host+debug+kunit-boot")

    def edited_run(self, edit):
        """A copy of the fixture run whose metadata.json edit() changed."""
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        for f in ("metadata.json", "summary.json"):
            shutil.copy(os.path.join(CI, "run", f), d)
        with open(os.path.join(d, "metadata.json")) as f:
            meta = json.load(f)
        edit(meta)
        with open(os.path.join(d, "metadata.json"), "w") as f:
            json.dump(meta, f)
        return d

    def test_bench_numbers(self):
        d = self.doc("bench")
        self.assertEqual(kcidb.check(d) + kcidb.check_links(d), [])
        nums = [t for t in d["tests"] if "number" in t]
        self.assertEqual(len(nums), 3)
        self.assertTrue(all(t["status"] == "DONE" and t["path"].startswith("kvm-irq-series.bench.") for t in nums))

    def test_checker_rejects(self):
        good = self.doc(url="https://lab.example.org/r")
        self.assertEqual(kcidb.check(good), [])
        for what, edit in SCHEMA_REJECTS.items():
            d = copy.deepcopy(good)
            edit(d)
            self.assertNotEqual(kcidb.check(d), [], f"the checker accepted a document with a bad {what}")
        for what, edit in SCHEMA_ACCEPTS.items():
            d = copy.deepcopy(good)
            edit(d)
            self.assertEqual(kcidb.check(d), [], f"the checker refused a document with a {what}")

    def test_links_rules(self):
        """The writer's own rules (--strict, the writer, --merge): the
        schema allows these."""
        good = self.doc()
        for what in ("number on SKIP", "dangling build_id", "id of another origin"):
            d = copy.deepcopy(good)
            SCHEMA_ACCEPTS[what](d)
            self.assertNotEqual(kcidb.check_links(d), [], what)

    def test_agrees_with_kcidb_io(self):
        """Where kcidb-io and jsonschema's uri and date-time checkers are
        installed, its verdict on every case above is the checker's."""
        try:
            import jsonschema
            from kcidb_io.schema import v05_03
            from kcidb_io.schema.abstract import _build_validator_for
            fc = jsonschema.Draft7Validator.FORMAT_CHECKER
            if fc.conforms("console.log", "uri") or fc.conforms("yesterday", "date-time"):
                raise ImportError("jsonschema without its uri and date-time checkers")
        except ImportError as e:
            self.skipTest(f"kcidb-io with jsonschema[format] not installed ({e})")
        validator = _build_validator_for(v05_03.Version)
        good = self.doc(url="https://lab.example.org/r")
        for what, edit in list(SCHEMA_REJECTS.items()) + list(SCHEMA_ACCEPTS.items()):
            d = copy.deepcopy(good)
            edit(d)
            theirs = [e.message for e in validator.iter_errors(d)]
            self.assertEqual(bool(kcidb.check(d)), bool(theirs), f"{what}: kcidb-io says {theirs[:2]}")

    def test_prebuilt_own_checkout(self):
        def prebuilt(meta):
            meta["prebuilt_kernel"] = {"origin": "linux-image-6.12.95+deb12-arm64 6.12.95-1~bpo12+1",
                                       "has_series": False}
            meta["artefacts"] = {"dir": "artefacts", "image_sha256": "27f833e233753a0a" + "0" * 48}
        d = self.edited_run(prebuilt)
        doc = kcidb.build_doc(d, "kvm_arm64_irq_series", os.path.join(ROOT, "patches", "mainline"))
        self.assertEqual(kcidb.check(doc) + kcidb.check_links(doc), [])
        ck = doc["checkouts"][0]
        self.assertEqual(ck["id"], "kvm_arm64_irq_series:kernel-27f833e233753a0a")
        self.assertNotIn("patchset_hash", ck, "a kernel without the series is not the series' checkout")
        self.assertNotIn("tree_name", ck, "a prebuilt kernel is no tree")
        self.assertEqual(doc["builds"][0]["checkout_id"], ck["id"])

    def test_ids_differ_across_runs(self):
        d = self.doc("bench")
        with open(os.path.join(CI, "bench", "ab.json")) as f:
            ab = json.load(f)
        self.assertIsNone(ab["metadata"].get("run_id"), "the fixture is a run without an id")
        self.assertIn(re.sub(r"[^0-9]", "", ab["metadata"]["date"])[:14], d["tests"][0]["id"])

    def test_check_cli(self):
        """kcidb.py --check exits 1 on a schema error and 0 on a document
        the schema accepts; --strict adds the writer's rules."""
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        doc = self.doc()
        SCHEMA_ACCEPTS["dangling build_id"](doc)
        p = os.path.join(d, "k.json")
        kcidb.write(doc, p)
        run = [sys.executable, os.path.join(SCRIPTS, "ci", "kcidb.py"), "--check", p]
        self.assertEqual(subprocess.run(run, capture_output=True).returncode, 0)
        self.assertEqual(subprocess.run(run + ["--strict"], capture_output=True).returncode, 1)
        SCHEMA_REJECTS["non-URI log_url"](doc)
        kcidb.write(doc, p)
        self.assertEqual(subprocess.run(run, capture_output=True).returncode, 1)


class LavaKcidb(unittest.TestCase):
    """lava.py kcidb: a lab's LAVA results as a KCIDB document."""

    def run_kcidb(self, log, *args):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        out = os.path.join(d, "kcidb.json")
        r = subprocess.run([sys.executable, os.path.join(SCRIPTS, "ci", "lava.py"), "kcidb", "--log",
                            os.path.join(CI, log), "-o", out, *args], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        c = subprocess.run([sys.executable, os.path.join(SCRIPTS, "ci", "kcidb.py"), "--check", out, "--strict"],
                           capture_output=True, text=True)
        self.assertEqual(c.returncode, 0, c.stderr)
        with open(out) as f:
            return json.load(f)

    def test_qemu_job(self):
        doc = self.run_kcidb("lava.log.yaml", "--run-dir", os.path.join(CI, "run"),
                             "--tests", "vgic_init pv_state kvm_binary_stats_test hypercalls arch_timer",
                             "--log-url", "https://lab.example.org/jobs/1796319766.log")
        got = {t["path"]: t["status"] for t in doc["tests"]}
        self.assertEqual(got["boot"], "PASS")
        self.assertEqual(got["kselftest.kvm.kvm_vgic_init"], "PASS")
        self.assertEqual(got["kselftest.kvm.kvm_kvm_binary_stats_test"], "PASS")
        self.assertEqual(got["kselftest.kvm.kvm_arch_timer"], "MISS")  # planned, never reported
        self.assertEqual(got["kunit.exec.irq_bypass.bypass_duplicates_rejected"], "FAIL")
        self.assertTrue(all(t["id"].startswith("kvm_arm64_irq_series:lava-1796319766.") for t in doc["tests"]))
        self.assertTrue(all(t["log_url"] == "https://lab.example.org/jobs/1796319766.log" for t in doc["tests"]))
        # the checkout and build are the run's (the same ids: they merge)
        run = kcidb.build_doc(os.path.join(CI, "run"), "kvm_arm64_irq_series", None)
        self.assertEqual(doc["builds"][0]["id"], run["builds"][0]["id"])

    def test_hardware_job(self):
        doc = self.run_kcidb("lava-hw.log.yaml", "--job-id", "4711")
        self.assertEqual({t["path"]: t["status"] for t in doc["tests"]},
                         {"kselftest.kvm.kvm_vgic_irq": "FAIL", "kselftest.kvm.kvm_vgic_init": "PASS"})
        self.assertTrue(all(t["environment"]["misc"]["lava_job_id"] == "4711" for t in doc["tests"]))

    def test_chunks_round_trip(self):
        doc = self.run_kcidb("lava-hw.log.yaml")
        lines = ["[ 9.0] noise"] + [f"prefix {x}" for x in kcidb.chunk_lines(doc, width=50)]
        self.assertEqual(kcidb.from_chunks(lines), [doc])
        self.assertEqual(kcidb.from_chunks(lines[:-1]), [], "an incomplete document is left out")


class Modules(unittest.TestCase):
    def run_modules(self, *names):
        r = subprocess.run([sys.executable, os.path.join(SCRIPTS, "ci", "modules.py"),
                            os.path.join(CI, "modules"), *names], capture_output=True, text=True)
        return r.returncode, r.stdout.split()

    def test_order_and_builtin(self):
        rc, out = self.run_modules("virtio_blk", "virtio_console", "9p")
        self.assertEqual(rc, 0)
        self.assertEqual(out, ["kernel/drivers/virtio/virtio_ring.ko.xz", "kernel/drivers/char/virtio_console.ko.xz",
                               "kernel/net/9p/9pnet.ko.xz", "kernel/fs/netfs/netfs.ko.xz", "kernel/fs/9p/9p.ko.xz"])

    def test_unknown(self):
        rc, _ = self.run_modules("no_such_driver")
        self.assertEqual(rc, 2)


class KernelLacks(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.d)
        self.out = os.path.join(self.d, "out.tsv")

    def runlist(self, tests, series, *extra):
        """runlist.py on a run list of TESTS (180 s each) with --kernel-lacks
        patches/SERIES: (its result, the out.tsv rows)."""
        rl = os.path.join(self.d, "runlist.txt")
        with open(rl, "w") as f:
            f.write("".join(f"{t} 180\n" for t in tests))
        r = subprocess.run([sys.executable, os.path.join(SCRIPTS, "lib", "runlist.py"), rl,
                            "--kernel-lacks", os.path.join(ROOT, "patches", series), "-o", self.out, *extra],
                           capture_output=True, text=True)
        rows = []
        if r.returncode == 0:
            with open(self.out) as f:
                rows = [line.rstrip("\n").split("\t") for line in f]
        return r, rows

    def test_series_tests_skipped(self):
        # vgic_irq: no patch touches its source; vgic_init: a patch adds a
        # case to it (the ITS base on a full MMIO bus); pv_state: a patch
        # adds it.
        r, lines = self.runlist(["vgic_irq", "vgic_init", "pv_state"], "mainline")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(lines[0][:2], ["run", "vgic_irq"])
        self.assertEqual(lines[1][:2], ["skip", "vgic_init"])
        self.assertRegex(lines[1][2], r"lacks \d{4}-KVM-arm64-vgic-its-Set-the-ITS-base-only-")
        self.assertEqual(lines[2][:2], ["skip", "pv_state"])
        self.assertRegex(lines[2][2], r"lacks \d{4}-KVM-arm64-selftests-Add-pv_state-")

    def test_any_kernel_runs(self):
        # hypercalls: 6.12's series changes it (BMAP_2) and it skips what a
        # kernel without the series lacks: selftests/any-kernel-6.12.txt.
        anyk = os.path.join(self.d, "any.txt")
        with open(anyk, "w") as f:
            f.write("hypercalls  # skips its BMAP_2 cases\n")
        r, lines = self.runlist(["hypercalls", "pv_state"], "6.12", "--any-kernel", anyk)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([x[:2] for x in lines], [["run", "hypercalls"], ["skip", "pv_state"]])
        r, lines = self.runlist(["hypercalls", "pv_state"], "6.12")
        self.assertEqual(lines[0][:2], ["skip", "hypercalls"])
        # An entry the run list does not have is refused.
        with open(anyk, "w") as f:
            f.write("no_such_test  # misspelt\n")
        r, _ = self.runlist(["hypercalls"], "6.12", "--any-kernel", anyk)
        self.assertEqual(r.returncode, 2)
        self.assertIn("no_such_test", r.stderr)
