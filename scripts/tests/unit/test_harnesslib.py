# SPDX-License-Identifier: GPL-2.0
"""The env files: lib.sh's write_env and harnesslib.read_env agree on any
value (quotes, spaces, empty), and bash reads them back the same."""
import os
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
        subprocess.run(["bash", "-c", '. "$1"/lib.sh; write_env "$2" A B C D E', "_", SCRIPTS, f],
                       env=env, check=True, capture_output=True)
        self.assertEqual(harnesslib.read_env(f), VALUES)
        for k, v in VALUES.items():
            got = subprocess.run(["bash", "-c", f'. "$1"; printf %s "${k}"', "_", f],
                                 capture_output=True, text=True, check=True).stdout
            self.assertEqual(got, v, k)

    def test_missing_file(self):
        self.assertEqual(harnesslib.read_env("/nonexistent/x.env"), {})


if __name__ == "__main__":
    unittest.main()
