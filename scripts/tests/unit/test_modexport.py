# SPDX-License-Identifier: GPL-2.0
"""scripts/lib/modexport.py on a miniature tree: the 6.12 break (0036's
inline vcpu_is_preempted() reached by a module through owner_on_cpu()) is
found, and the Module.symvers it writes has the series' exports."""
import json
import os
import tempfile
import unittest

from common import SCRIPTS

import modexport

SPINLOCK_OLD = """#ifndef __ASM_SPINLOCK_H
#define __ASM_SPINLOCK_H
/* a comment */
#define vcpu_is_preempted vcpu_is_preempted
static inline bool vcpu_is_preempted(int cpu)
{
	return false;
}
#endif
"""
SPINLOCK_NEW = """#ifndef __ASM_SPINLOCK_H
#define __ASM_SPINLOCK_H
/* a changed comment */
#define vcpu_is_preempted vcpu_is_preempted
DECLARE_STATIC_KEY_FALSE(pv_preempted_enabled);
bool pv_vcpu_is_preempted(int cpu);

static inline bool vcpu_is_preempted(int cpu)
{
	if (!static_branch_unlikely(&pv_preempted_enabled))
		return false;
	return pv_vcpu_is_preempted(cpu);
}
#endif
"""
SCHED = """static inline bool owner_on_cpu(struct task_struct *owner)
{
	return READ_ONCE(owner->on_cpu) && !vcpu_is_preempted(task_cpu(owner));
}
#define unrelated(x) ((x) + 1)
"""
PARAVIRT_OLD = "DEFINE_STATIC_KEY_FALSE(other);\n"
PARAVIRT_NEW = """DEFINE_STATIC_KEY_FALSE(other);
DEFINE_STATIC_KEY_FALSE(pv_preempted_enabled);
EXPORT_SYMBOL_GPL(pv_preempted_enabled);
bool pv_vcpu_is_preempted(int cpu) { return false; }
EXPORT_SYMBOL_GPL(pv_vcpu_is_preempted);
"""
PATCH = """Subject: [PATCH] x

---
--- a/arch/arm64/include/asm/spinlock.h
+++ b/arch/arm64/include/asm/spinlock.h
--- a/arch/arm64/kernel/paravirt.c
+++ b/arch/arm64/kernel/paravirt.c
"""


def write(root, path, text):
    p = os.path.join(root, path)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w", encoding="utf-8") as f:
        f.write(text)


class ModexportTest(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp()
        self.base, self.new = os.path.join(self.d, "base"), os.path.join(self.d, "new")
        for root, spin, pv in ((self.base, SPINLOCK_OLD, PARAVIRT_OLD), (self.new, SPINLOCK_NEW, PARAVIRT_NEW)):
            write(root, "arch/arm64/include/asm/spinlock.h", spin)
            write(root, "arch/arm64/kernel/paravirt.c", pv)
            write(root, "arch/arm64/kernel/Makefile", "obj-y += paravirt.o\n")
            write(root, "include/linux/sched.h", SCHED)
            write(root, "fs/foo/six.c", "int f(void *o) { return owner_on_cpu(o); }\n")
            write(root, "fs/foo/other.c", "int g(void) { return 0; }\n")
            write(root, "fs/foo/Makefile", "obj-$(CONFIG_FOO_FS) += foo.o\nfoo-y := other.o \\\n\tsix.o\n")
            write(root, "kernel/locking/mutex.c", "int h(void *o) { return owner_on_cpu(o); }\n")
            write(root, "kernel/locking/Makefile", "obj-y += mutex.o\n")
            write(root, "fs/bar/bar.c", "int i(void *o) { return owner_on_cpu(o); }\n")
            write(root, "fs/bar/Makefile", "obj-$(CONFIG_BAR_FS) += bar.o\n")
        write(self.d, "series/series", "0001-x.patch\n")
        write(self.d, "series/0001-x.patch", PATCH)
        write(self.d, "config", "CONFIG_FOO_FS=m\n# CONFIG_BAR_FS is not set\n")
        self.plan = os.path.join(self.d, "plan.json")
        modexport.plan(self.base, self.new, os.path.join(self.d, "series"), os.path.join(self.d, "config"), self.plan)
        with open(self.plan, encoding="utf-8") as f:
            self.p = json.load(f)

    def test_closure_reaches_the_module(self):
        self.assertTrue(os.access(os.path.join(SCRIPTS, "modexport.sh"), os.X_OK))
        self.assertIn("vcpu_is_preempted", self.p["seeds"])
        self.assertIn("pv_vcpu_is_preempted", self.p["seeds"])
        self.assertIn("pv_preempted_enabled", self.p["seeds"])
        self.assertNotIn("__ASM_SPINLOCK_H", self.p["seeds"])
        self.assertEqual(self.p["via"]["owner_on_cpu"], ["vcpu_is_preempted", "include/linux/sched.h"])
        self.assertNotIn("unrelated", self.p["closure"])
        self.assertEqual(list(self.p["modules"]), ["fs/foo"])
        self.assertEqual(self.p["modules"]["fs/foo"][0]["object"], "foo.o")
        how = {e["file"]: e["how"] for es in self.p["not_modules"].values() for e in es}
        self.assertEqual(how["kernel/locking/mutex.c"], "built in")
        self.assertEqual(how["fs/bar/bar.c"], "not built in this config")

    def test_symvers_has_the_added_exports(self):
        self.assertEqual(sorted(a["name"] for a in self.p["exports_added"]),
                         ["pv_preempted_enabled", "pv_vcpu_is_preempted"])
        deb = os.path.join(self.d, "Module.symvers")
        write(self.d, "Module.symvers", "0x1\tsystem_state\tvmlinux\tEXPORT_SYMBOL\t\n"
              "0x2\tfoo_thing\tfs/foo/foo\tEXPORT_SYMBOL_GPL\t\n")
        out = os.path.join(self.d, "out.symvers")
        modexport.symvers(self.plan, deb, out)
        with open(out, encoding="utf-8") as f:
            rows = [line.split("\t") for line in f.read().splitlines()]
        self.assertEqual([r[1] for r in rows], ["system_state", "pv_preempted_enabled", "pv_vcpu_is_preempted"])
        self.assertEqual(rows[1][2:4], ["vmlinux", "EXPORT_SYMBOL_GPL"])


if __name__ == "__main__":
    unittest.main()
