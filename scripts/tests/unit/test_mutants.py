# SPDX-License-Identifier: GPL-2.0
"""make mutants' header parser and verdicts (scripts/lib/mutants.py)."""
import json
import os
import subprocess
import sys
import tempfile
import shutil
import unittest

from common import SCRIPTS

import mutants

RUNLIST = "vgic_its_move 300 -v 3\npv_preempted 180\nl2-pv-guest 600 -smp 4\n"
KUNIT = "irq_bypass CONFIG_IRQ_BYPASS_MANAGER_KUNIT_TEST=y\n"
GOOD = """Mutant: keeps-cache
Breaks: MAPC to a disabled redistributor drops the cache
Tests: vgic_its_move kunit:irq_bypass.case_a
Why: the rules part
  expects the MSI discarded

--- a/f.c
+++ b/f.c
@@ -1 +1 @@
-a
+b
"""


def mutants_py(*args):
    return subprocess.run([sys.executable, os.path.join(SCRIPTS, "lib", "mutants.py")] + list(args),
                          capture_output=True, text=True)


class MutantsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.dir = os.path.join(self.tmp, "m")
        os.makedirs(self.dir)
        for name, text in (("runlist", RUNLIST), ("kunit", KUNIT)):
            with open(os.path.join(self.tmp, name), "w") as f:
                f.write(text)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def write(self, name, text):
        with open(os.path.join(self.dir, name), "w") as f:
            f.write(text)

    def list(self, *extra):
        return mutants_py("list", self.dir, "--runlist", os.path.join(self.tmp, "runlist"),
                          "--kunit", os.path.join(self.tmp, "kunit"), *extra)

    def test_list(self):
        self.write("001-keeps-cache.patch", GOOD)
        p = self.list()
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, "001-keeps-cache.patch\tkeeps-cache\tvgic_its_move\tirq_bypass.case_a\n")
        self.assertEqual(mutants.parse_header(os.path.join(self.dir, "001-keeps-cache.patch"))["Why"],
                         "the rules part expects the MSI discarded")

    def test_bad_headers_refused(self):
        for text, err in ((GOOD.replace("Tests: vgic_its_move", "Tests: vgic_its_mvoe"), "not in"),
                          (GOOD.replace("kunit:irq_bypass", "kunit:irq_bypas"), "no suite"),
                          (GOOD.replace("Why: the rules part\n", ""), "lacks Why:"),
                          (GOOD.replace("Mutant: keeps-cache", "Mutant: other"), "does not match")):
            self.write("001-keeps-cache.patch", text)
            p = self.list()
            self.assertEqual(p.returncode, 2, text)
            self.assertIn(err, p.stderr)
        self.write("001-keeps-cache.patch", GOOD)
        p = self.list("--only", "nosuch")
        self.assertEqual(p.returncode, 2)
        self.assertIn("MUTANTS: no mutant 'nosuch'", p.stderr)

    def test_verdicts(self):
        s = {"tests": {"vgic_its_move": "fail", "pv_preempted": "pass", "l2-pv-guest": "skip"}}
        k = {"irq_bypass.a": "pass", "irq_bypass.b": "fail"}
        self.assertEqual(mutants.verdict(["vgic_its_move", "kunit:irq_bypass"], s, k)[0], "pass")
        self.assertEqual(mutants.verdict(["vgic_its_move", "kunit:irq_bypass.a"], s, k)[0], "fail")
        self.assertEqual(mutants.verdict(["pv_preempted"], s, k)[0], "fail")
        # A test that did not run shows nothing: error, never killed.
        self.assertEqual(mutants.verdict(["l2-pv-guest"], s, k)[0], "error")
        self.assertEqual(mutants.verdict(["vgic_its_move"], None, k)[0], "error")
        self.assertEqual(mutants.verdict(["kunit:irq_other"], s, k)[0], "error")

    def test_stale_summary_not_read(self):
        path = os.path.join(self.tmp, "summary.json")
        with open(path, "w") as f:
            json.dump({"run_id": "old", "tests": {"vgic_its_move": "fail"}}, f)
        p = mutants_py("verdict", "--tests", "vgic_its_move", "--summary", path, "--run-id", "new")
        self.assertEqual(p.stdout.split("\t")[0], "error")
        p = mutants_py("verdict", "--tests", "vgic_its_move", "--summary", path, "--run-id", "old")
        self.assertEqual(p.stdout.split("\t")[0], "pass")


if __name__ == "__main__":
    unittest.main()
