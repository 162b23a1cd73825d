# SPDX-License-Identifier: GPL-2.0
"""scripts/guest/run-tests.sh, run by dash on the host against a stub
kselftest install: the '<test>+busy' entry (the busy VM started after the
test is resolved, the test once the busy VM completed a run; runs counted,
the last one stopped; the entry fails when the busy VM failed a run or
completed none, a skip stays a skip)."""
import os
import shutil
import subprocess
import tempfile
import textwrap
import unittest

from common import ROOT

RUN_TESTS = os.path.join(ROOT, "scripts", "guest", "run-tests.sh")
SH = os.environ.get("RUNTESTS_SH") or shutil.which("dash") or "/bin/sh"

# run_kselftest.sh stub: runs kvm/<name> and prints the runner's TAP
RUNNER = textwrap.dedent("""\
    #!/bin/sh
    while [ $# -gt 0 ]; do case $1 in -t) t=$2; shift 2 ;; -o) shift 2 ;; *) shift ;; esac; done
    name=${t#kvm:}
    echo "TAP version 13"
    echo "1..1"
    "$(dirname "$0")/kvm/$name"; rc=$?
    if [ $rc -eq 0 ]; then echo "ok 1 selftests: kvm: $name"
    elif [ $rc -eq 4 ]; then echo "ok 1 selftests: kvm: $name # SKIP no vGICv3"
    else echo "not ok 1 selftests: kvm: $name # exit=$rc"; fi
    """)


class BusyEntry(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp()
        self.ksft = os.path.join(self.d, "ksft")
        os.makedirs(os.path.join(self.ksft, "kvm"))
        self.write("run_kselftest.sh", RUNNER)
        with open(os.path.join(self.ksft, "kselftest-list.txt"), "w") as f:
            f.write("kvm:main_test\nkvm:busy_vm\n")

    def tearDown(self):
        shutil.rmtree(self.d)

    def write(self, rel, text):
        p = os.path.join(self.ksft, rel)
        with open(p, "w") as f:
            f.write(text)
        os.chmod(p, 0o755)

    def run_list(self, main, busy, entry="main_test+busy\t60\tbusy_vm -x"):
        self.write("kvm/main_test", main)
        if busy is not None:
            self.write("kvm/busy_vm", busy)
        lst = os.path.join(self.d, "list.tsv")
        with open(lst, "w") as f:
            f.write(f"run\t{entry}\n")
        if shutil.which("taskset") is None:
            self.skipTest("no taskset")
        r = subprocess.run([SH, RUN_TESTS, lst, self.ksft], capture_output=True, text=True, timeout=60)
        return r.stdout

    def result(self, out):
        """The entry's TAP result line, then the rest (for a failure message)."""
        res = [ln for ln in out.splitlines() if ln.startswith(("ok ", "not ok "))]
        return (res[-1] if res else "(no result line)") + " || " + out

    def test_counted_and_passes(self):
        out = self.run_list("#!/bin/sh\nsleep 1.5\n",
                            f"#!/bin/sh\necho \"$@\" >> {self.d}/args\nsleep 0.2\n")
        self.assertIn("ok 1 selftests: kvm: main_test+busy\n", out)
        self.assertRegex(out, r"# harness: busy VM completed [1-9][0-9]* runs, 0 failed")
        with open(os.path.join(self.d, "args")) as f:
            self.assertEqual(set(f.read().split("\n")) - {""}, {"-x"})

    def test_busy_vm_stopped(self):
        # the first run ends, the second is running when the test ends: killed
        busy = (f"#!/bin/sh\nif [ -e {self.d}/first ]; then echo $$ > {self.d}/pid; exec sleep 30; fi\n"
                f"touch {self.d}/first\n")
        out = self.run_list("#!/bin/sh\nsleep 1\n", busy)
        self.assertIn("ok 1 selftests: kvm: main_test+busy\n", out)
        with open(os.path.join(self.d, "pid")) as f:
            pid = int(f.read())
        self.assertFalse(os.path.exists(f"/proc/{pid}"), "the busy VM's run outlived the entry")

    def test_test_waits_for_busy_vm(self):
        # the test starts after the busy VM's first run ended
        busy = f"#!/bin/sh\nsleep 2\ndate +%s.%N >> {self.d}/busy-ends\n"
        main = f"#!/bin/sh\ndate +%s.%N > {self.d}/main-start\n"
        self.run_list(main, busy)
        with open(os.path.join(self.d, "busy-ends")) as f:
            first_end = float(f.read().split()[0])
        with open(os.path.join(self.d, "main-start")) as f:
            self.assertGreaterEqual(float(f.read()), first_end)

    def test_skip_stays_skip(self):
        out = self.run_list("#!/bin/sh\nexit 4\n", "#!/bin/sh\nexit 3\n")
        self.assertIn("ok 1 selftests: kvm: main_test+busy # SKIP no vGICv3", out)
        self.assertNotIn("not ok", out)

    def test_busy_failure_fails_entry(self):
        out = self.run_list("#!/bin/sh\nsleep 1\n", "#!/bin/sh\necho broken\nexit 3\n")
        self.assertRegex(self.result(out), r"^not ok 1 selftests: kvm: main_test\+busy # the busy VM failed [1-9][0-9]* of")
        self.assertIn("# busy: broken", out)

    def test_no_completed_run_fails_entry(self):
        # a busy VM that never ends is killed at the entry's timeout
        out = self.run_list("#!/bin/sh\nsleep 0.3\n", "#!/bin/sh\nexec sleep 30\n",
                            entry="main_test+busy\t2\tbusy_vm")
        self.assertRegex(out, r"not ok 1 selftests: kvm: main_test\+busy # the busy VM (failed|completed no run)")

    def test_main_test_missing_starts_no_busy_vm(self):
        self.write("kvm/busy_vm", f"#!/bin/sh\ntouch {self.d}/started\n")
        lst = os.path.join(self.d, "list.tsv")
        with open(lst, "w") as f:
            f.write("run\tabsent_test+busy\t60\tbusy_vm\n")
        out = subprocess.run([SH, RUN_TESTS, lst, self.ksft], capture_output=True, text=True, timeout=60).stdout
        self.assertIn("not ok 1 selftests: kvm: absent_test+busy # not built in this tree", out)
        self.assertFalse(os.path.exists(os.path.join(self.d, "started")))

    def test_main_failure_kept(self):
        out = self.run_list("#!/bin/sh\nsleep 0.5\nexit 1\n", "#!/bin/sh\nsleep 0.1\n")
        self.assertRegex(out, r"not ok 1 selftests: kvm: main_test\+busy # exit=1")


if __name__ == "__main__":
    unittest.main()
