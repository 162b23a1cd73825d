# SPDX-License-Identifier: GPL-2.0
"""Comparisons of benchmark result files (bench.py compare and bases).
compare: two single-kernel files, make hw-bench's on the base kernel and
on the patched one, merged into one base-vs-patched document as make bench
writes it (a lock_stat call site one kernel never reported counts 0
there). bases: the make bench results of two or more bases (6.12 and
mainline) side by side in one reStructuredText table, each base's medians
and ratio, so that ratios are compared and never values across bases.
"""

import json
import os

from bench_parse import DECLARED_BETTER
from bench_stats import results_of
from bench_table import fmt


def compare_doc(before_path, after_path, platform=""):
    """Two single-kernel files (make hw-bench on each kernel) -> the
    document of a report (write_report()); platform overrides what the
    files say ran the numbers."""
    before, after = json.load(open(before_path)), json.load(open(after_path))
    keys = {}
    for label, d in (("base", before), ("patched", after)):
        for x in d["results"]:
            k = keys.setdefault((x["benchmark"], x["metric"]),
                                {"kind": x["kind"], "unit": x["unit"], "base": [], "patched": []})
            k[label] = x["values"]
            if x.get("better"):
                DECLARED_BETTER.setdefault(x["metric"], x["better"])
    # lock_stat lists only what happened: a call site seen on one kernel
    # and not on the other counted 0 there, once per run.
    for (bench, metric), d in keys.items():
        if not metric.startswith("lock_stat "):
            continue
        for label in ("base", "patched"):
            if d[label]:
                continue
            runs = [len(d2[label]) for (b2, m2), d2 in keys.items()
                    if b2 == bench and m2.startswith("lock_stat ") and d2[label]]
            if runs:
                d[label] = [0] * max(runs)
    # The report names the runs' inputs (make hw-bench records them) and
    # the command that made it; --platform overrides what they say.
    md = dict(after.get("metadata") or {})
    md.update({"reproduce": f"scripts/lib/bench.py compare {before_path} {after_path}"
                            + (f" --platform '{platform}'" if platform else ""),
               "runs": [(before.get("metadata") or {}).get("reproduce"), md.get("reproduce")],
               "platform": platform or md.get("platform", "hardware")})
    md.setdefault("base", {"origin": f"kernel {before.get('kernel')}"})
    reps = {len(x["values"]) for d in (before, after) for x in d["results"] if x.get("values")}
    doc = {"schema": 1, "metadata": md, "repetitions": max(reps) if reps else None,
           "before_kernel": before.get("kernel"), "after_kernel": after.get("kernel"),
           "order": [], "errors": before.get("errors", []) + after.get("errors", []),
           "results": results_of(keys)}
    return doc


def bases_table(files, labels="", all_=False, benchmarks=""):
    """make bench results of two bases (e.g. 6.12 and mainline), one
    reStructuredText table, returned: per benchmark and metric, each
    base's base and patched medians and its ratio. Only what both files
    measured, unless all_ (--all); the ratios are compared, never the
    absolute values across bases (different kernels, possibly different
    runs)."""
    docs = []
    for f in files:
        d = json.load(open(f))
        docs.append({(x["benchmark"], x["metric"]): x for x in d["results"]})
    labels = labels.split(",") if labels else [os.path.basename(os.path.dirname(os.path.abspath(f)))
                                               for f in files]
    if len(labels) != len(docs):
        raise ValueError(f"--labels names {len(labels)} bases for {len(docs)} files")
    keys = []
    for d in docs:
        for k in d:
            if k not in keys and (all_ or all(k in d2 for d2 in docs)):
                keys.append(k)
    if benchmarks:
        want = benchmarks.split(",")
        keys = [k for k in keys if k[0] in want]
    if not keys:
        raise ValueError("no benchmark/metric in common (use --all)")

    def cell(d, k):
        x = d.get(k)
        if x is None:
            return "not measured", "-"
        ratio = "-" if x["ratio"] is None else f"{x['ratio']:.3f}"
        return f"{fmt(x['base_median'])} -> {fmt(x['patched_median'])}", ratio
    head = ["benchmark", "metric", "kind"]
    for lab in labels:
        head += [f"{lab}: base -> patched", f"{lab}: ratio"]
    rows = []
    for k in keys:
        kind = next(d[k]["kind"] for d in docs if k in d)
        row = [k[0], k[1], kind]
        for d in docs:
            row += list(cell(d, k))
        rows.append(row)
    widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
    sep = "  ".join("=" * w for w in widths)
    line = lambda r: "  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()
    return "\n".join([sep, line(head), sep] + [line(r) for r in rows] + [sep])
