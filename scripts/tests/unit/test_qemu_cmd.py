# SPDX-License-Identifier: GPL-2.0
"""The QEMU command line per HOST_MODE/GIC against golden copies
(scripts/tests/fixtures/qemu-cmd): a change to it is a reviewed change."""
import os
import subprocess
import unittest

from common import FX, SCRIPTS


class QemuCmdTest(unittest.TestCase):
    def check(self, mode, gic):
        env = dict(os.environ, HOST_MODE=mode, GIC=gic, KERNEL="KERNEL", INITRD="INITRD", RUN_DIR="RUN_DIR",
                   SMP="2", MEM="2G")
        env.pop("APPEND", None)
        p = subprocess.run([os.path.join(SCRIPTS, "phases", "boot-qemu.sh"), "--print-cmd"], env=env,
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        golden = open(os.path.join(FX, "qemu-cmd", f"{mode}-gicv{gic}.txt")).read()
        self.assertEqual(p.stdout, golden)

    def test_vhe_gicv3(self):
        self.check("vhe", "3")

    def test_nvhe_gicv3(self):
        self.check("nvhe", "3")

    def test_vhe_gicv2(self):
        self.check("vhe", "2")


if __name__ == "__main__":
    unittest.main()
