# SPDX-License-Identifier: GPL-2.0
"""runlist.py: skips need reasons, REPEAT, ONLY, tests from a series."""
import os
import subprocess
import sys
import tempfile
import unittest

from common import FX, ROOT, SCRIPTS

RUNLIST = os.path.join(ROOT, "selftests", "runlist-qemu.txt")


def runlist(*args):
    out = tempfile.mktemp()
    p = subprocess.run([sys.executable, os.path.join(SCRIPTS, "lib", "runlist.py")] + list(args) + ["-o", out],
                       capture_output=True, text=True)
    rows = open(out).read().splitlines() if os.path.exists(out) else []
    return p, [r.split("\t") for r in rows]


class RunListTest(unittest.TestCase):
    def test_skip_needs_reason(self):
        p, _ = runlist(RUNLIST, "--skip", os.path.join(FX, "skip-noreason.txt"))
        self.assertEqual(p.returncode, 2)
        self.assertIn("skip-noreason.txt:2: skip entry 'vgic_init' has no reason", p.stderr)

    def test_repeat(self):
        p, rows = runlist(RUNLIST, "--only", "pv_state,set_id_regs",
                          "--skip", os.path.join(ROOT, "selftests", "skip-base-6.12.txt"), "--repeat", "3")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual([r[:2] for r in rows], [["run", "pv_state@1"], ["run", "pv_state@2"],
                                                 ["run", "pv_state@3"], ["skip", "set_id_regs"]])

    def test_only_misspelt(self):
        p, _ = runlist(RUNLIST, "--only", "vgic_iniit")
        self.assertEqual(p.returncode, 2)
        self.assertIn("ONLY: 'vgic_iniit' is not in", p.stderr)

    def test_test_from_another_base_series(self):
        # A tree without vgic_irqfd, an empty series of its own, and the
        # 6.12 series (which adds it) as another base's: skipped, naming it.
        tree = tempfile.mkdtemp()
        os.makedirs(os.path.join(tree, "tools/testing/selftests/kvm/arm64"))
        empty = tempfile.mkdtemp()
        rl = os.path.join(tree, "rl.txt")
        open(rl, "w").write("vgic_irqfd 300\n")
        p, rows = runlist(rl, "--tree", tree, "--patches", empty,
                          "--other-series", os.path.join(ROOT, "patches", "6.12"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(rows[0][:2], ["skip", "vgic_irqfd"])
        self.assertRegex(rows[0][2], r"^not in this base: patches/6.12/[0-9]{4}-[^ ]*vgic_irqfd[^ ]* adds it \(not ported\)$")

    def test_busy_variant_uses_the_tests_source(self):
        # "<test>+busy" is <test>'s source, run beside another VM: found
        # in a tree that has <test>, its arguments kept for the busy VM.
        tree = tempfile.mkdtemp()
        d = os.path.join(tree, "tools/testing/selftests/kvm/arm64")
        os.makedirs(d)
        open(os.path.join(d, "arch_timer_phys_active.c"), "w").close()
        rl = os.path.join(tree, "rl.txt")
        open(rl, "w").write("arch_timer_phys_active+busy 300 arch_timer -n 1\n")
        p, rows = runlist(rl, "--tree", tree, "--patches", tempfile.mkdtemp())
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(rows, [["run", "arch_timer_phys_active+busy", "300", "arch_timer -n 1"]])


if __name__ == "__main__":
    unittest.main()
