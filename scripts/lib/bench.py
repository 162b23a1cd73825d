#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Benchmark lists, results and reports: the command line (make bench,
make hw-bench, make hw-pv-ab and make hw-emulated run it), and the one
module other code and the unit tests import, as bench.<name>; the names
come from bench_parse.py (benchmark lists and what a run printed),
bench_stats.py (medians, ratios, paired intervals), bench_table.py
(tables and report files) and bench_compare.py (compare and bases).
"""

# Usage:
#
# bench.py resolve BENCHLIST [--only NAMES] -o benchlist.tsv
#     check a benchmark list and write the guest's resolved list
# bench.py collect --raw DIR [--raw DIR ...] --out DIR
#     turn the raw streams of interleaved boots (DIR/<variant>-<rep>/tap.txt
#     with DIR/<variant>-<rep>/metadata.json) into bench.json, bench.md and
#     PNG plots
# bench.py hw --raw DIR... --out FILE
#     the same for native runs on one kernel: a single-kernel results file
# bench.py compare BEFORE.json AFTER.json --out DIR
#     two single-kernel files (make hw-bench before/after) -> bench.json etc.
# bench.py ab --raw DIR... --benchlist LIST --out DIR
#     one kernel, a feature switched at run time: the off/on pairs that the
#     benchmarks print inside each boot -> ab.json, ab.md (paired ratios)
# bench.py bases FILE... [--labels A,B] [--benchmarks NAMES] [--all]
#     make bench results of two or more bases side by side, one
#     reStructuredText table of medians and ratios

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lockstat  # noqa: E402
from bench_parse import (  # noqa: E402
    DECLARED_BETTER, LOCK_FRAME_RE, TALLY_BETTER, TEXT_METRICS, BenchError, ab_samples, better,
    json_objects, load_ab, load_raw, metric_object, metrics_from_lockstat, metrics_from_output,
    parse_benchlist, parse_lock_sites, run_metrics, split_lockstat, structured_metric, total_exits)
from bench_stats import T95, ab_result, combine, mean_ci, results_of, summarize  # noqa: E402
from bench_table import (  # noqa: E402
    KIND_NOTE, ab_table, fmt, kind_note, plot_exit_loop, print_table, write_ab_report, write_markdown,
    write_report)
from bench_compare import bases_table, compare_doc  # noqa: E402

# The names other code and the unit tests use as bench.<name>.
__all__ = [
    "BenchError", "DECLARED_BETTER", "KIND_NOTE", "LOCK_FRAME_RE", "T95", "TALLY_BETTER", "TEXT_METRICS",
    "ab_result", "ab_samples", "ab_table", "bases_table", "better", "combine", "compare_doc", "fmt",
    "json_objects", "kind_note", "load_ab", "load_raw", "main", "mean_ci", "metric_object",
    "metrics_from_lockstat", "metrics_from_output", "parse_benchlist", "parse_lock_sites",
    "plot_exit_loop", "print_table", "results_of", "run_metrics", "split_lockstat", "structured_metric",
    "summarize", "total_exits", "write_ab_report", "write_markdown", "write_report",
]


def cmd_resolve(a):
    """The benchmark list, with ONLY, as benchlist.tsv; prints the sum of
    the timeouts."""
    entries = parse_benchlist(a.benchlist)
    only = [x for x in a.only.replace(",", " ").split() if x]
    names = {e["name"] for e in entries}
    for o in only:
        if o not in names:
            raise BenchError(f"ONLY: '{o}' is not in {a.benchlist}")
    total = 0
    with open(a.output, "w") as f:
        for e in entries:
            if only and e["name"] not in only:
                continue
            f.write(f"bench\t{e['name']}\t{e['timeout']}\t{','.join(e['classes']) or '-'}\t"
                    f"{e['program']}\t{e['args']}\n")
            total += e["timeout"]
    print(total)
    return 0


def cmd_collect(a):
    """make bench: interleaved base/patched raw streams -> the report."""
    per_variant, order, errors, metas = load_raw(a.raw, parse_benchlist(a.benchlist))
    doc = {"schema": 1, "metadata": metas.get("patched") or metas.get("base") or {},
           "metadata_base": metas.get("base"), "repetitions": a.repetitions,
           "order": order, "errors": errors,
           "results": combine({"base": per_variant.get("base", []),
                               "patched": per_variant.get("patched", [])}, order)}
    return write_report(doc, a.out)


def cmd_hw(a):
    """make hw-bench: one kernel's raw streams -> a single-kernel file."""
    per_variant, order, errors, metas = load_raw(a.raw, parse_benchlist(a.benchlist))
    runs = [run for v in per_variant.values() for run in v]
    res = combine({"base": runs}, order)
    doc = {"schema": 1, "kernel": a.kernel, "order": order, "errors": errors,
           "metadata": next(iter(metas.values()), {}),
           "results": [{"benchmark": x["benchmark"], "metric": x["metric"], "kind": x["kind"],
                        "unit": x["unit"], "better": x["better"], "values": x["base"]} for x in res]}
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"{len(doc['results'])} metrics for kernel {a.kernel} in {a.out}")
    return 1 if errors else 0


def cmd_compare(a):
    """Two single-kernel files (make hw-bench on each kernel) -> the report."""
    return write_report(compare_doc(a.before, a.after, a.platform), a.out)


def cmd_bases(a):
    """make bench results of two bases (e.g. 6.12 and mainline): one
    reStructuredText table on stdout (bench_compare.bases_table())."""
    print(bases_table(a.files, a.labels, a.all, a.benchmarks))
    return 0


def cmd_ab(a):
    """Axis "ab" (make bench with a "# axis: ab" list): one kernel, a
    run-time switch, alternating off/on pairs inside each boot -> ab.json
    and ab.md with paired ratios and intervals. Pairs are numbered per
    boot; every complete pair of every boot counts once."""
    entries = parse_benchlist(a.benchlist)
    errors, skipped, keys, order = load_ab(a.raw)
    known = {e["name"] for e in entries}
    for bench in sorted({b for b, _ in keys} - known):
        errors.append(f"{bench}: not in {a.benchlist}")
    results = [ab_result(b, m, d, d["pairs"]) for (b, m), d in keys.items()]
    results.sort(key=lambda r: (r["benchmark"], r["kind"], r["metric"]))
    meta = {}
    mp = os.path.join(a.raw[0], "metadata.json") if a.raw else None
    if mp and os.path.exists(mp):
        meta = json.load(open(mp))
    doc = {"schema": 1, "axis": "ab", "metadata": meta, "order": order,
           "errors": errors, "skipped": skipped, "results": results}
    return write_ab_report(doc, a.out)


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("resolve")
    r.add_argument("benchlist")
    r.add_argument("--only", default="")
    r.add_argument("-o", "--output", required=True)
    r.set_defaults(func=cmd_resolve)
    c = sub.add_parser("collect")
    c.add_argument("--raw", action="append", required=True)
    c.add_argument("--benchlist", required=True)
    c.add_argument("--out", required=True)
    c.add_argument("--repetitions", type=int)
    c.set_defaults(func=cmd_collect)
    h = sub.add_parser("hw")
    h.add_argument("--raw", action="append", required=True)
    h.add_argument("--benchlist", required=True)
    h.add_argument("--out", required=True)
    h.add_argument("--kernel", required=True)
    h.set_defaults(func=cmd_hw)
    k = sub.add_parser("compare")
    k.add_argument("before")
    k.add_argument("after")
    k.add_argument("--out", required=True)
    k.add_argument("--platform", default="",
                   help="what ran the numbers, when the files do not know (make hw-emulated: QEMU TCG)")
    k.set_defaults(func=cmd_compare)
    b = sub.add_parser("bases")
    b.add_argument("files", nargs="+", help="bench.json of each base")
    b.add_argument("--labels", default="", help="comma-separated base names (default: parent dirs)")
    b.add_argument("--benchmarks", default="", help="comma-separated benchmark names")
    b.add_argument("--all", action="store_true", help="also metrics only one base measured")
    b.set_defaults(func=cmd_bases)
    x = sub.add_parser("ab")
    x.add_argument("--raw", action="append", required=True)
    x.add_argument("--benchlist", required=True)
    x.add_argument("--out", required=True)
    x.set_defaults(func=cmd_ab)
    a = ap.parse_args()
    try:
        return a.func(a)
    except (OSError, BenchError, lockstat.LockStatError, KeyError, ValueError) as e:
        print(f"[harness] bench: ERROR: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
