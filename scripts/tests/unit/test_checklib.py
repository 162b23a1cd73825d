# SPDX-License-Identifier: GPL-2.0
"""make check's table, warning normalisation, new-warning diff and JSON
(scripts/lib/checklib.py), without a kernel build."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

from common import SCRIPTS

import checklib


class CheckLibTest(unittest.TestCase):
    def test_norm_drops_line_column_and_prefixes(self):
        log = ("/tmp/t/src/kernel/irq/manage.c:12:5: warning: unused variable 'x'\n"
               "../../virt/lib/irqbypass.c:7: warning: no previous prototype\n"
               "  CC      kernel/irq/manage.o\n"
               "arch/arm64/kvm/arch_timer.c:3:1: error: expected ';'\n")
        self.assertEqual(checklib.norm_warnings(log, "/tmp/t/src"), [
            "arch/arm64/kvm/arch_timer.c: error: expected ';'",
            "kernel/irq/manage.c: warning: unused variable 'x'",
            "virt/lib/irqbypass.c: warning: no previous prototype"])

    def test_new_lines_is_a_multiset_diff(self):
        base = ["a.c: warning: w1", "a.c: warning: w1", "b.c: warning: w2"]
        cand = ["a.c: warning: w1", "a.c: warning: w1", "a.c: warning: w1", "c.c: warning: w3"]
        self.assertEqual(checklib.new_lines(cand, base), ["a.c: warning: w1", "c.c: warning: w3"])
        self.assertEqual(checklib.new_lines(base, base), [])

    def test_row_defaults_and_format(self):
        fields = checklib.make_row(3, "0003-x.patch", {"apply": "ok", "checkpatch": "ok(1wv)", "arm64": "FAIL"})
        self.assertEqual(fields, ["3", "0003-x.patch", "ok", "ok(1wv)", "FAIL", "-", "-", "-", "-", "-"])
        line = checklib.format_row(fields)
        self.assertTrue(line.startswith("3   0003-x.patch"))
        self.assertEqual(len(line.split()), 10)
        self.assertEqual(line.index("ok(1wv)"), 3 + 1 + 62 + 1 + 6 + 1)
        with self.assertRaises(ValueError):
            checklib.make_row(1, "p", {"clang": "ok"})

    def test_cli_rows_table_and_json(self):
        d = tempfile.mkdtemp()
        rows, table, out = (os.path.join(d, x) for x in ("rows.tsv", "table.txt", "check.json"))
        run = lambda *a: subprocess.run([sys.executable, os.path.join(SCRIPTS, "lib", "checklib.py")] + list(a),
                                        capture_output=True, text=True, check=True)
        run("header", table)
        run("row", rows, table, "0", "(base 7.3.4)", "arm64=ok", "sparse=2w")
        p = run("row", rows, table, "1", "0001-a.patch", "apply=ok", "checkpatch=FAIL")
        self.assertIn("[harness] check: 1   0001-a.patch", p.stdout)
        self.assertEqual(open(rows).read().splitlines()[1].split("\t"),
                         ["1", "0001-a.patch", "ok", "FAIL", "-", "-", "-", "-", "-", "-"])
        self.assertEqual(len(open(table).read().splitlines()), 3)
        run("json", rows, out, "1", "42", "0001-a.patch", "checkpatch", "2 message(s)", "final", "7.3.4", "patches/x")
        doc = json.load(open(out))
        self.assertEqual(doc["result"], "fail")
        self.assertEqual(doc["failure"], {"patch": "0001-a.patch", "gate": "checkpatch", "what": "2 message(s)"})
        self.assertEqual([r["checkpatch"] for r in doc["rows"]], ["-", "FAIL"])


if __name__ == "__main__":
    unittest.main()
