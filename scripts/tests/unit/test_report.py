# SPDX-License-Identifier: GPL-2.0
"""report.py on stored raw inputs: TAP with pass/fail/skip/timeout, a planned
test without a result, a console with a lockdep splat; and a guest that died
with tests still planned."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

from common import FX, SCRIPTS, ROOT


def report(rd):
    return subprocess.run([sys.executable, os.path.join(SCRIPTS, "lib", "report.py"), "--run-dir", rd,
                           "--meta", os.path.join(rd, "metadata.json"),
                           "--splats", os.path.join(ROOT, "selftests", "console-splats.txt")],
                          capture_output=True, text=True)


class RunDirCase(unittest.TestCase):
    """A copy of the stored run directory (fixtures/report) per test."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.rd = os.path.join(self.tmp, "run")
        shutil.copytree(os.path.join(FX, "report"), self.rd)

    def tearDown(self):
        shutil.rmtree(self.tmp)


class ReportTest(RunDirCase):

    def test_failures_and_splat(self):
        p = report(self.rd)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertRegex(p.stdout, r"SPLAT console.log:5: .*WARNING: possible circular locking dependency detected")
        s = json.load(open(os.path.join(self.rd, "summary.json")))
        self.assertEqual(s["tests"], {"vgic_irq": "pass", "arch_timer": "fail", "set_id_regs": "skip",
                                      "vgic_lpi_stress": "fail", "steal_time": "fail"})
        self.assertEqual(s["totals"], {"passed": 1, "failed": 3, "skipped": 1, "errors": 0})
        self.assertEqual([x["line"] for x in s["splats"]], [5])
        self.assertEqual(s["verdict"], "fail")
        d = {x["name"]: x for x in s["details"]}
        self.assertEqual(d["vgic_lpi_stress"]["reason"], "TIMEOUT 5 seconds")
        self.assertTrue(d["steal_time"]["reason"].startswith("no result"))
        self.assertEqual(d["vgic_irq"]["duration"], 4)

    def test_guest_hung_before_up(self):
        # No TAP, no console beyond the kernel's: every planned test is
        # reported, the first as failed, the rest as not run (errors).
        open(os.path.join(self.rd, "tap.txt"), "w").close()
        open(os.path.join(self.rd, "console.log"), "w").write("Booting Linux on physical CPU 0x0\n")
        open(os.path.join(self.rd, "boot.env"), "w").write("BOOT_RESULT='hang-boot'\n")
        p = report(self.rd)
        self.assertEqual(p.returncode, 1, p.stderr)
        s = json.load(open(os.path.join(self.rd, "summary.json")))
        self.assertEqual(s["boot"]["result"], "hang-boot")
        self.assertEqual(s["tests"], {"vgic_irq": "fail", "arch_timer": "error", "set_id_regs": "error",
                                      "vgic_lpi_stress": "error", "steal_time": "error"})
        j = ET.parse(os.path.join(self.rd, "junit.xml")).getroot().find("testsuite")
        self.assertEqual(j.get("errors"), "4")
        self.assertEqual(len(j.findall("testcase/error")), 4)
        self.assertIn("GUEST: hang-boot", p.stdout)

    def test_l2_console_splat(self):
        # An L2 guest's console in the TAP stream (run-l2.sh): scanned with
        # selftests/console-splats.txt like the L1 console.
        with open(os.path.join(self.rd, "tap.txt"), "a") as f:
            f.write("# l2-console: [    1.000000] Booting Linux\n"
                    "# l2-console: [    2.000000] BUG: sleeping function called from invalid context at x.c:1\n")
        p = report(self.rd)
        s = json.load(open(os.path.join(self.rd, "summary.json")))
        l2 = [x for x in s["splats"] if x["source"] == "l2"]
        self.assertEqual(len(l2), 1, s["splats"])
        self.assertEqual(l2[0]["file"], "tap.txt")
        self.assertIn("sleeping function called from invalid context", l2[0]["text"])
        self.assertRegex(p.stdout, r"SPLAT tap.txt:\d+ \(L2 console\): ")


if __name__ == "__main__":
    unittest.main()


class ReportHarnessErrors(RunDirCase):
    """A report that cannot be made is a harness error (2), never read as a
    failed test (1): newcomer trial, 2026-12-02."""

    def run_with(self, splats):
        return subprocess.run([sys.executable, os.path.join(SCRIPTS, "lib", "report.py"), "--run-dir", self.rd,
                               "--meta", os.path.join(self.rd, "metadata.json"), "--splats", splats],
                              capture_output=True, text=True)

    def test_malformed_splat_patterns(self):
        for text in ("deny (unclosed\n", "allow WARNING\n", "warn WARNING\n"):
            bad = os.path.join(self.tmp, "splats.txt")
            with open(bad, "w") as f:
                f.write(text)
            p = self.run_with(bad)
            self.assertEqual(p.returncode, 2, f"{text!r}: {p.stderr}")
            self.assertIn("[harness] report: ERROR", p.stderr)

    def test_missing_metadata(self):
        os.remove(os.path.join(self.rd, "metadata.json"))
        p = self.run_with(os.path.join(ROOT, "selftests", "console-splats.txt"))
        self.assertEqual(p.returncode, 2, p.stderr)


class BareDirective(unittest.TestCase):
    def test_skip_without_description(self):
        import report as r
        _, tests = r.parse_tap("TAP version 13\n1..3\nok 1 selftests: kvm: a\nok 2 # SKIP b\nnot ok 3 selftests: kvm: c\n")
        self.assertEqual([(t["name"], t["result"]) for t in tests], [("a", "pass"), ("b", "skip"), ("c", "fail")])
