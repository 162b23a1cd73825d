# SPDX-License-Identifier: GPL-2.0
"""The env files: state.sh's write_env and harnesslib.read_env agree on any
value (quotes, spaces, empty), and bash reads them back the same."""
import os
import re
import subprocess
import tempfile
import unittest

from common import SCRIPTS

import harnesslib

VALUES = {"A": "plain", "B": "it's quoted", "C": "", "D": "console=ttyAMA0 panic=-1 l2cmd='x y'",
          "E": "tree:/tmp/a b/linux (with local changes 1234)"}


class EnvTest(unittest.TestCase):
    def test_round_trip(self):
        f = os.path.join(tempfile.mkdtemp(), "x.env")
        env = dict(os.environ, **VALUES)
        subprocess.run(["bash", "-c", '. "$1"/lib.sh; write_env "$2" A B C D E', "_", os.path.join(SCRIPTS, "lib"), f],
                       env=env, check=True, capture_output=True)
        self.assertEqual(harnesslib.read_env(f), VALUES)
        for k, v in VALUES.items():
            got = subprocess.run(["bash", "-c", f'. "$1"; printf %s "${k}"', "_", f],
                                 capture_output=True, text=True, check=True).stdout
            self.assertEqual(got, v, k)

    def test_missing_file(self):
        self.assertEqual(harnesslib.read_env("/nonexistent/x.env"), {})


class ListEntriesTest(unittest.TestCase):
    def entries(self, text, n=3):
        p = os.path.join(tempfile.mkdtemp(), "list.txt")
        open(p, "w").write(text)
        return list(harnesslib.list_entries(p, n, "<name> <timeout> [args]"))

    def test_comments_and_fields(self):
        got = self.entries("# a list\nvgic_init 180\n\narch_timer 300 -n 4 -e 10000  # why\n")
        self.assertEqual([f for _, f in got], [["vgic_init", "180"], ["arch_timer", "300", "-n 4 -e 10000"]])
        self.assertTrue(got[1][0].endswith(":4"))

    def test_errors(self):
        for text, msg in (("vgic_init\n", "expected '<name> <timeout> [args]'"),
                          ("vgic_init 0\n", "must be a positive number of seconds"),
                          ("a 1\na 2\n", "a already listed at line 1")):
            with self.assertRaisesRegex(harnesslib.ListError, re.escape(msg)):
                self.entries(text)


if __name__ == "__main__":
    unittest.main()
