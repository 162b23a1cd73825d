# SPDX-License-Identifier: GPL-2.0
"""scripts/guest/run-tests.sh, run by dash on the host against a stub
kselftest install: the '<test>+busy' entry (the busy VM started after the
test is resolved, counted, stopped exactly; the entry fails when the busy
VM never completed a run or failed one)."""
import os
import shutil
import subprocess
import tempfile
import textwrap
import unittest

from common import ROOT

RUN_TESTS = os.path.join(ROOT, "scripts", "guest", "run-tests.sh")
SH = shutil.which("dash") or "/bin/sh"

# run_kselftest.sh stub: runs kvm/<name> and prints the runner's TAP
RUNNER = textwrap.dedent("""\
    #!/bin/sh
    while [ $# -gt 0 ]; do case $1 in -t) t=$2; shift 2 ;; -o) shift 2 ;; *) shift ;; esac; done
    name=${t#kvm:}
    echo "TAP version 13"
    echo "1..1"
    if "$(dirname "$0")/kvm/$name"; then echo "ok 1 selftests: kvm: $name"
    else echo "not ok 1 selftests: kvm: $name # exit=$?"; fi
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

    def test_counted_and_passes(self):
        out = self.run_list("#!/bin/sh\nsleep 1.5\n",
                            f"#!/bin/sh\necho \"$@\" >> {self.d}/args\nsleep 0.2\n")
        self.assertIn("ok 1 selftests: kvm: main_test+busy\n", out)
        self.assertRegex(out, r"# harness: busy VM completed [1-9][0-9]* runs, 0 failed")
        with open(os.path.join(self.d, "args")) as f:
            self.assertEqual(set(f.read().split("\n")) - {""}, {"-x"})

    def test_busy_vm_stopped(self):
        # the busy VM's current run is killed at the end: no process left
        self.run_list("#!/bin/sh\nsleep 0.5\n", f"#!/bin/sh\necho $$ > {self.d}/pid\nexec sleep 30\n")
        with open(os.path.join(self.d, "pid")) as f:
            pid = int(f.read())
        self.assertFalse(os.path.exists(f"/proc/{pid}"), "the busy VM's run outlived the entry")

    def test_busy_failure_fails_entry(self):
        out = self.run_list("#!/bin/sh\nsleep 1\n", "#!/bin/sh\necho broken\nexit 3\n")
        self.assertRegex(out, r"not ok 1 selftests: kvm: main_test\+busy # the busy VM failed [1-9][0-9]* of")
        self.assertIn("# busy: broken", out)

    def test_no_completed_run_fails_entry(self):
        out = self.run_list("#!/bin/sh\nsleep 0.3\n", "#!/bin/sh\nexec sleep 30\n")
        self.assertIn("not ok 1 selftests: kvm: main_test+busy # the busy VM completed no run", out)

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
