# SPDX-License-Identifier: GPL-2.0
"""collect.py: a run's summary counts only with its own run id; the whole
make test as one JUnit file."""
import json
import os
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

from common import SCRIPTS

import collect


class CollectTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def summary(self, run_id, boot="done", splats=()):
        p = os.path.join(self.tmp, "summary.json")
        json.dump({"run_id": run_id, "boot": {"result": boot}, "splats": list(splats),
                   "details": [{"name": "vgic_init", "result": "pass", "reason": ""},
                               {"name": "arch_timer", "result": "error", "reason": "not run"}]},
                  open(p, "w"))
        return p

    def test_stale_summary_refused(self):
        p = self.summary("old-run")
        self.assertIsNone(collect.run_lines(p, "6.12/vhe", "new-run"))
        r = subprocess.run([sys.executable, os.path.join(SCRIPTS, "lib", "collect.py"), "run", p, "6.12/vhe", "new-run"],
                           capture_output=True, text=True)
        self.assertEqual((r.returncode, r.stdout), (1, ""))

    def test_missing_summary(self):
        self.assertIsNone(collect.run_lines(os.path.join(self.tmp, "none.json"), "x", "id"))

    def test_own_summary(self):
        p = self.summary("id-1", boot="panic")
        self.assertEqual(collect.run_lines(p, "mainline/vhe", "id-1"), [
            ("mainline/vhe/vgic_init", "pass", ""), ("mainline/vhe/arch_timer", "error", "not run"),
            ("mainline/vhe/boot+console", "fail", "guest panic")])

    def test_junit(self):
        tsv = os.path.join(self.tmp, "r.tsv")
        open(tsv, "w").write("harness/bad-input\tpass\t\n6.12/vhe/vgic_init\tfail\tboom\n"
                             "mainline/vhe/pv_preempted\tskip\tnot ported\n6.12/vhe/run\terror\tbuild failed\n")
        out = os.path.join(self.tmp, "j.xml")
        collect.write_junit(collect.read_tsv(tsv), out)
        root = ET.parse(out).getroot()
        self.assertEqual((root.get("tests"), root.get("failures"), root.get("errors"), root.get("skipped")),
                         ("4", "1", "1", "1"))
        self.assertEqual([s.get("name") for s in root], ["harness", "6.12", "mainline"])
        self.assertEqual(root.find("testsuite[@name='6.12']/testcase[@name='vgic_init']").get("classname"),
                         "6.12.vhe")

    def test_check_rows(self):
        rows = os.path.join(self.tmp, "rows.tsv")
        open(rows, "w").write(
            "0\t(base 6.12.117)\t-\t-\tok\t-\t19w\t0w\t41w\t-\n"
            "1\t0001-a.patch\tok\tok\t-\t-\t-\t-\tok\tok\n"
            "2\t0002-b.patch\tok\tok\tFAIL\t-\t-\t-\t-\t-\n"
            "+\tfinal state, LLVM=1: not run: needs clang >= 17.0.1\t-\t-\tNOT-RUN\t-\t-\t-\t-\t-\n")
        self.assertEqual(collect.check_lines(rows, "6.12", "check.log"), [
            ("6.12/check/1-0001-a.patch", "pass", ""),
            ("6.12/check/2-0002-b.patch", "fail", "see check.log"),
            ("6.12/check/final-state-clang", "skip", "not run: needs clang >= 17.0.1")])

    def test_bad_tsv(self):
        tsv = os.path.join(self.tmp, "r.tsv")
        open(tsv, "w").write("x\tmaybe\t\n")
        with self.assertRaises(ValueError):
            collect.read_tsv(tsv)


if __name__ == "__main__":
    unittest.main()
