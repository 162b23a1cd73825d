#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run the harness unit tests (scripts/tests/unit/test_*.py) and print one
results.tsv line per test: "harness-unit/<module>.<test>\\t<result>\\t<note>" (result: pass, fail
for a failed assertion, error for an exception, skip).
Exit 0 all passed, 1 a test failed or errored."""
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


class Collect(unittest.TextTestResult):
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.rows = []

    def _name(self, test):
        return test.id().replace("test_", "", 1)

    def addSuccess(self, test):
        super().addSuccess(test)
        self.rows.append((self._name(test), "pass", ""))

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.rows.append((self._name(test), "fail", str(err[1]).splitlines()[0][:200] if str(err[1]) else err[0].__name__))

    def addError(self, test, err):
        super().addError(test, err)
        # An exception in a test is the test's (or the harness's) error,
        # not an assertion that failed: make test counts it as an error.
        self.rows.append((self._name(test), "error", f"{err[0].__name__}: {str(err[1])[:200]}"))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.rows.append((self._name(test), "skip", reason))


def main():
    # Every temporary file of the tests, and of the scripts they run, goes
    # into one directory that is removed at the end: the tests made 16
    # directories in /tmp per run and removed none.
    tmp = tempfile.mkdtemp(prefix="harness-unit.")
    tempfile.tempdir = os.environ["TMPDIR"] = tmp
    try:
        suite = unittest.defaultTestLoader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)
        with open(os.devnull, "w") as devnull:
            runner = unittest.TextTestRunner(stream=sys.stderr if "-v" in sys.argv else devnull,
                                             resultclass=Collect, verbosity=2 if "-v" in sys.argv else 0)
            res = runner.run(suite)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for name, result, note in res.rows:
        print(f"harness-unit/{name}\t{result}\t{' '.join(note.split())}")
    return 0 if res.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
