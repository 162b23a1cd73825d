# SPDX-License-Identifier: GPL-2.0
"""The lock_stat and lock-site parsers, the bench collector/report and the
hw-bench comparison, on stored real outputs (scripts/tests/fixtures)."""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from common import FX, SCRIPTS

import bench
import lockstat


class LockStatTest(unittest.TestCase):
    def test_exit_loop_dump(self):
        # /proc/lock_stat of a debug kernel, kvm-exit-loop -n 2 for 1 s.
        c = lockstat.parse(open(os.path.join(FX, "lock_stat-exit-loop-2vcpu.txt")).read())
        self.assertEqual(len(c), 185)
        d = c["&irq_desc_lock_class"]
        self.assertEqual((d["stats"]["acquisitions"], d["stats"]["contentions"]), (4084, 40))
        self.assertEqual(d["stats"]["waittime-max"], 7526.16)
        self.assertEqual([(lockstat.site_function(x["symbol"]), x["count"]) for x in d["contention_points"]],
                         [("__irq_get_desc_lock", 40)])
        self.assertEqual(c["tasklist_lock-W"]["stats"]["acquisitions"], 9)
        self.assertEqual(set(lockstat.select(c, ["tasklist_lock*"])), {"tasklist_lock-R", "tasklist_lock-W"})

    def test_garbage_refused(self):
        with self.assertRaises(lockstat.LockStatError):
            lockstat.parse("not lock_stat")


class LockSitesTest(unittest.TestCase):
    def test_halt_poll(self):
        text = open(os.path.join(FX, "lock_sites-halt-poll.txt")).read()
        d = bench.parse_lock_sites(text)
        self.assertEqual(d, {"vgic_cpu->ap_list_lock": {
            "kvm_vgic_flush_hwstate": 2819, "kvm_vgic_sync_hwstate": 2821, "vgic_queue_irq_unlock": 2664,
            "kvm_vgic_vcpu_pending_irq": 793, "vgic_flush_pending_lpis": 6}})
        m = bench.metrics_from_lockstat("lock_stat version 0.4\n", ["vgic_cpu->ap_list_lock:sites"], text)
        self.assertIn(("lock_stat vgic_cpu->ap_list_lock acquisitions at kvm_vgic_vcpu_pending_irq", "count",
                       "acquisitions", 793), m)

    def test_two_classes_one_trigger(self):
        d = bench.parse_lock_sites(open(os.path.join(FX, "lock_sites-its-move.txt")).read())
        self.assertEqual(d["its->its_lock"], {"vgic_its_process_commands": 277, "vgic_its_inject_msi": 16,
                                              "vgic_mmio_write_its_baser": 2, "vgic_its_create": 1,
                                              "vgic_its_destroy": 1})
        self.assertEqual(d["kvm->srcu"]["vgic_msi_to_its"], 16)
        self.assertNotIn("__vgic_doorbell_to_its", d["kvm->srcu"])
        self.assertEqual(sum(d["kvm->srcu"].values()), 1920 - 297)


class StructuredMetricTest(unittest.TestCase):
    def test_structured_lines(self):
        lines = ['{"metric":"fork+exec rate in the L2 guest","params":{"procs":2},"unit":"execs/s",'
                 '"kind":"rate","better":"higher","value":812.5}',
                 '[l2] {"metric":"WFE wait mean","params":{},"unit":"us","kind":"latency",'
                 '"better":"lower","value":3.25}',
                 '{"benchmark":"exit-loop","per_vcpu":1}', "Rate: 40000.0 LPIs/sec",
                 "MOVI commands during the run: 812", "MSIs that missed the ITS translation cache: 20", "noise"]
        self.assertEqual(bench.metrics_from_output(lines), [
            ("fork+exec rate in the L2 guest", "rate", "execs/s", 812.5),
            ("WFE wait mean", "latency", "us", 3.25),
            ("LPI injection rate", "rate", "LPIs/s", 40000.0),
            ("MOVI commands during the run", "tally", "commands", 812),
            ("MSIs that missed the ITS translation cache", "count", "MSIs", 20)])
        self.assertEqual(bench.better("latency", "WFE wait mean"), "lower")

    def test_declared_direction_wins(self):
        bench.metrics_from_output(['{"metric":"odd rate","params":{},"unit":"x/s","kind":"rate",'
                                   '"better":"lower","value":1}'])
        self.assertEqual(bench.better("rate", "odd rate"), "lower")
        self.assertEqual(bench.better("rate", "another rate"), "higher")


def bench_py(*args):
    return subprocess.run([sys.executable, os.path.join(SCRIPTS, "lib", "bench.py")] + list(args),
                          capture_output=True, text=True)


class BenchCollectorTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.raw = os.path.join(FX, "bench", "raw")
        self.bl = os.path.join(FX, "bench", "benchlist.txt")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_collect_and_report(self):
        out = os.path.join(self.tmp, "bench")
        p = bench_py("collect", *sum((["--raw", os.path.join(self.raw, r)] for r in
                                     ("base-1", "patched-1", "base-2", "patched-2")), []),
                     "--benchlist", self.bl, "--out", out, "--repetitions", "2")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        d = json.load(open(os.path.join(out, "bench.json")))
        r = {(x["benchmark"], x["metric"]): x for x in d["results"]}
        acq = r[("exit-loop-gic", "lock_stat irq_desc_lock_class acquisitions")]
        self.assertEqual((acq["kind"], acq["base"], acq["patched"]), ("count", [4084, 4000], [0, 0]))
        self.assertEqual((acq["base_median"], acq["ratio"]), (4042, 0))
        rate = r[("exit-loop-gic", "exits/s per vCPU, 2 vCPUs")]
        self.assertEqual((rate["kind"], rate["unit"]), ("rate", "exits/s"))
        self.assertEqual((rate["base"], rate["patched"]), ([1000.0, 1100.0], [1500.0, 1600.0]))
        self.assertAlmostEqual(rate["ratio"], 1550 / 1050)
        lpi = r[("lpi-1x1x1", "LPI injection rate")]
        self.assertEqual((lpi["base_min"], lpi["patched_max"]), (40000, 41000))
        self.assertEqual(d["order"], ["base-1", "patched-1", "base-2", "patched-2"])
        self.assertFalse(d["errors"])
        for key in ("benchmark", "metric", "kind", "unit", "base", "patched", "ratio", "better"):
            self.assertTrue(all(key in x for x in d["results"]), key)
        # Every metric says which direction is better.
        self.assertEqual(acq["better"], "lower")
        self.assertEqual(rate["better"], "higher")
        md = open(os.path.join(out, "bench.md")).read()
        self.assertIn("| lock_stat irq_desc_lock_class acquisitions | count (TCG does not distort) | "
                      "4,042 [4,000 - 4,084] | 0 [0 - 0] | 0.000 |", md)

    def test_hw_compare(self):
        before, after = os.path.join(self.tmp, "b.json"), os.path.join(self.tmp, "a.json")
        for out, runs, k in ((before, ("base-1", "base-2"), "6.12.117"),
                             (after, ("patched-1", "patched-2"), "6.12.117+series")):
            p = bench_py("hw", *sum((["--raw", os.path.join(self.raw, r)] for r in runs), []),
                         "--benchlist", self.bl, "--kernel", k, "--out", out)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        p = bench_py("compare", before, after, "--out", os.path.join(self.tmp, "cmp"))
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        d = json.load(open(os.path.join(self.tmp, "cmp", "bench.json")))
        r = {(x["benchmark"], x["metric"]): x for x in d["results"]}
        site = r[("exit-loop-gic", "lock_stat irq_desc_lock_class contentions at __irq_get_desc_lock")]
        self.assertEqual((site["base"], site["patched"]), ([40, 40], [0, 0]))
        self.assertEqual((d["before_kernel"], d["after_kernel"]), ("6.12.117", "6.12.117+series"))
        # The report says what ran the numbers: hardware rates carry no
        # TCG caveat; --platform (make hw-emulated) puts it back.
        self.assertEqual((d["metadata"]["platform"], d["repetitions"]), ("hardware", 2))
        md = open(os.path.join(self.tmp, "cmp", "bench.md")).read()
        self.assertIn("| exits/s per vCPU, 2 vCPUs | rate |", md)
        self.assertIn("- repetitions: 2", md)
        p = bench_py("compare", before, after, "--platform", "qemu-tcg (make hw-emulated)",
                     "--out", os.path.join(self.tmp, "cmp2"))
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        md = open(os.path.join(self.tmp, "cmp2", "bench.md")).read()
        self.assertIn("| exits/s per vCPU, 2 vCPUs | rate (TCG: indicative) |", md)
        self.assertIn("platform qemu-tcg (make hw-emulated)", md)

    def test_bases_side_by_side(self):
        # Two bases' make bench results: one table, ratios per base; a metric
        # only one base measured is left out unless --all.
        docs = []
        for base, acq, extra in (("6.12", [4084, 0], False), ("mainline", [5000, 0], True)):
            res = [{"benchmark": "exit-loop-gic", "metric": "lock_stat irq_desc_lock_class acquisitions",
                    "kind": "count", "unit": "acquisitions", "base_median": acq[0],
                    "patched_median": acq[1], "ratio": 0.0}]
            if extra:
                res.append({"benchmark": "lpi-1x1x1", "metric": "LPIs taken by the guest", "kind": "tally",
                            "unit": "LPIs", "base_median": 10000, "patched_median": 10000, "ratio": 1.0})
            os.makedirs(os.path.join(self.tmp, base))
            docs.append(os.path.join(self.tmp, base, "bench.json"))
            json.dump({"results": res}, open(docs[-1], "w"))
        p = bench_py("bases", *docs)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("6.12: ratio", p.stdout)
        self.assertRegex(p.stdout, r"exit-loop-gic +lock_stat irq_desc_lock_class acquisitions +count +"
                                   r"4,084 -> 0 +0.000 +5,000 -> 0 +0.000")
        self.assertNotIn("LPIs taken", p.stdout)
        p = bench_py("bases", "--all", "--labels", "old,new", *docs)
        self.assertRegex(p.stdout, r"LPIs taken by the guest +tally +not measured +- +10,000 -> 10,000 +1.000")
        p = bench_py("bases", "--labels", "one", *docs)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)



class BenchABTest(unittest.TestCase):
    """bench.py ab: off/on pairs inside one boot -> paired ratios."""
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.fx = os.path.join(FX, "ab")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_pairs_ratio_interval(self):
        p = bench_py("ab", "--raw", os.path.join(self.fx, "raw", "patched-1"),
                     "--benchlist", os.path.join(self.fx, "benchlist.txt"), "--out", self.tmp)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        d = json.load(open(os.path.join(self.tmp, "ab.json")))
        r = {x["metric"]: x for x in d["results"]}
        rate = r["operation rate"]
        # pair 2 has no "on" phase: two complete pairs, ratios 0.8 and 0.9
        self.assertEqual((rate["pairs"], rate["off"], rate["on"]), (2, [100.0, 100.0], [80.0, 90.0]))
        # geometric mean of 0.8 and 0.9; t(0.975, 1 df) = 12.706 on the logs
        lm, ld = (math.log(0.8) + math.log(0.9)) / 2, abs(math.log(0.8) - math.log(0.9)) / 2
        self.assertAlmostEqual(rate["ratio_mean"], math.sqrt(0.72))
        self.assertAlmostEqual(rate["ratio_ci"][0], math.exp(lm - 12.706 * ld), places=6)
        self.assertAlmostEqual(rate["ratio_ci"][1], math.exp(lm + 12.706 * ld), places=6)
        self.assertEqual((rate["ratio_min"], rate["ratio_max"]), (0.8, 0.9))
        # a counter that "off" cannot move: no ratio, the on mean
        give = r["true in a lock spinner (stopped or did not spin) per 1000 operations"]
        self.assertIsNone(give["ratio_mean"])
        self.assertEqual(give["on_mean"], 5.0)
        self.assertAlmostEqual(r["steal time of the vCPUs (host run delay of their threads)"]["ratio_mean"], 0.8)
        self.assertIn("0.849 [0.402, 1.793] (0.800-0.900)", open(os.path.join(self.tmp, "ab.md")).read())
        # a line the guest could not run (exit 4, TAP SKIP) is reported, not an error
        self.assertEqual(d["errors"], [])
        self.assertEqual(len(d["skipped"]), 1)
        self.assertIn("hackbench-ab", d["skipped"][0])

    def test_cover_letter_block(self):
        """cover.py renders an ab.json as ratios with intervals, and says
        which counters "off" cannot move."""
        p = bench_py("ab", "--raw", os.path.join(self.fx, "raw", "patched-1"),
                     "--benchlist", os.path.join(self.fx, "benchlist.txt"), "--out", self.tmp)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        tmpl = os.path.join(self.tmp, "cover.tmpl")
        with open(tmpl, "w") as f:
            f.write("# benchmarks: mmap-ab\nSubject\n\n@RESULTS@\n")
        c = subprocess.run([sys.executable, os.path.join(SCRIPTS, "lib", "cover.py"), tmpl, "base",
                            os.path.join(self.tmp, "ab.json")], capture_output=True, text=True)
        self.assertEqual(c.returncode, 0, c.stderr)
        self.assertIn("mmap-ab (2 pairs):", c.stdout)
        self.assertIn("off 100  on 85  ratio 0.849 [0.402, 1.793]", c.stdout)
        self.assertIn("off 0  on 5  ratio - (off cannot move it)", c.stdout)

    def test_cover_letter_counts_and_rates(self):
        """Two lists with the same benchmark names on one base (counts with
        lockdep, rates without): the cover letter shows each metric from the
        newest file that has it, so a newer rates file does not hide the
        counts; another base adds only benchmarks the first has not."""
        def doc(date, base, metrics):
            return {"metadata": {"date": date, "reproduce": f"make bench ({date})",
                                 "base": {"origin": base}},
                    "order": ["base-1", "patched-1"],
                    "results": [{"benchmark": b, "metric": m, "kind": "count", "unit": "",
                                 "base_median": 10, "base_min": 10, "base_max": 10,
                                 "patched_median": 1, "patched_min": 1, "patched_max": 1,
                                 "ratio": 0.1} for b, m in metrics]}
        files = []
        for name, d in (("counts", doc("2026-11-30", "7.3", [("lpi", "srcu sections"), ("lpi", "rate")])),
                        ("rates", doc("2026-12-01", "7.3", [("lpi", "rate")])),
                        ("old", doc("2026-11-01", "6.12", [("lpi", "misses"), ("irqfd", "assign")]))):
            files.append(os.path.join(self.tmp, name + ".json"))
            with open(files[-1], "w") as f:
                json.dump(d, f)
        tmpl = os.path.join(self.tmp, "cover.tmpl")
        with open(tmpl, "w") as f:
            f.write("Subject\n\n@RESULTS@\n")
        c = subprocess.run([sys.executable, os.path.join(SCRIPTS, "lib", "cover.py"), tmpl, "base",
                            files[0], files[1], "--", files[2]], capture_output=True, text=True)
        self.assertEqual(c.returncode, 0, c.stderr)
        out = c.stdout
        self.assertIn("srcu sections", out)
        self.assertEqual(out.count("  rate ("), 1)
        self.assertLess(out.index("(2026-12-01)"), out.index("(2026-11-30)"))
        self.assertIn("irqfd:", out)
        self.assertNotIn("misses", out)

    def test_cover_letter_kinds_and_metrics(self):
        """A cover's "# kinds:" and "# metrics:" lines keep only those
        results: the genirq cover shows the irq_desc counts, not the TCG
        rates or another patch's lock of the same benchmark."""
        res = [{"benchmark": "loop", "metric": m, "kind": k, "unit": "",
                "base_median": 10, "base_min": 10, "base_max": 10,
                "patched_median": 1, "patched_min": 1, "patched_max": 1, "ratio": 0.1}
               for m, k in (("irq_desc acquisitions", "count"), ("ap_list acquisitions", "count"),
                            ("irq_desc exits/s", "rate"))]
        path = os.path.join(self.tmp, "b.json")
        with open(path, "w") as f:
            json.dump({"metadata": {"date": "2026-12-01"}, "order": [], "results": res}, f)
        tmpl = os.path.join(self.tmp, "cover.tmpl")
        with open(tmpl, "w") as f:
            f.write("# kinds: count\n# metrics: irq_desc, nothing else\nSubject\n\n@RESULTS@\n")
        c = subprocess.run([sys.executable, os.path.join(SCRIPTS, "lib", "cover.py"), tmpl, "base", path],
                           capture_output=True, text=True)
        self.assertEqual(c.returncode, 0, c.stderr)
        self.assertIn("irq_desc acquisitions", c.stdout)
        self.assertNotIn("ap_list", c.stdout)
        self.assertNotIn("exits/s", c.stdout)
        self.assertIn("left out", c.stdout)
        with open(tmpl, "w") as f:
            f.write("# kinds: latency\nSubject\n\n@RESULTS@\n")
        c = subprocess.run([sys.executable, os.path.join(SCRIPTS, "lib", "cover.py"), tmpl, "base", path],
                           capture_output=True, text=True)
        self.assertNotEqual(c.returncode, 0)
        self.assertIn("with kind latency", c.stderr)

    def test_no_pair_is_an_error(self):
        raw = os.path.join(self.tmp, "raw", "patched-1")
        os.makedirs(raw)
        with open(raw + "/tap.txt", "w") as f:
            f.write("TAP version 13\n1..1\n# bench: begin mmap-ab\nok 1 bench: mmap-ab\n# harness: done\n")
        p = bench_py("ab", "--raw", raw, "--benchlist", os.path.join(self.fx, "benchlist.txt"),
                     "--out", os.path.join(self.tmp, "o"))
        self.assertEqual(p.returncode, 1)
        self.assertIn("passed without a complete off/on pair", p.stderr)

if __name__ == "__main__":
    unittest.main()
