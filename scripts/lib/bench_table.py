# SPDX-License-Identifier: GPL-2.0
"""Tables and reports of benchmark results (bench.py's output): the number
format every table shares (fmt()), the kind column with TCG's
caveat where TCG ran the numbers, and the files a report consists of:
bench.json, bench.md with one table per benchmark, a PNG per exit-loop
benchmark (gnuplot, when installed) and the table printed on stdout
(write_report()); for an "ab" run, ab.json, ab.md and the paired-ratio
table (write_ab_report()).
"""

import json
import os
import re
import subprocess
import sys


def fmt(v):
    if v is None:
        return "-"
    if isinstance(v, float) and not v.is_integer():
        return f"{v:,.1f}"
    return f"{int(v):,}"


KIND_NOTE = {"count": "count (TCG does not distort)", "rate": "rate (TCG: indicative)",
             "tally": "count over the run (depends on speed)",
             "latency": "latency (TCG: indicative)"}


def kind_note(kind, platform):
    """The kind column: TCG's caveat only where TCG ran the numbers."""
    if platform == "hardware":
        return {"count": "count", "rate": "rate", "tally": "tally (depends on speed)",
                "latency": "latency"}.get(kind, kind)
    return KIND_NOTE[kind]


def write_markdown(path, doc):
    m = doc["metadata"]
    out = ["# Benchmarks: base vs patched", "",
           f"- command: `{m.get('reproduce', '')}`"]
    if m.get("runs"):
        out += [f"- runs compared: `{r}`" for r in m["runs"] if r]
    out += [
           f"- base tree: {m.get('base', {}).get('origin', '')} ({m.get('base', {}).get('version', '')})",
           f"- series: {m.get('series', {}).get('patches', '?')} patches, hash {m.get('series', {}).get('hash', '')[:12]}",
           f"- config: {' '.join(m.get('config', {}).get('fragments', [])) or '-'}; platform {m.get('platform', '')}, "
           + (f"{m['host_mode']} host, " if m.get('host_mode') else "") + f"{m.get('smp') or '?'} CPUs",
           f"- repetitions: {doc.get('repetitions')}, order: {', '.join(doc.get('order', []))}",
           "", "Medians with [min - max] over the repetitions; ratio = patched median / base median.", ""]
    bench = None
    for r in doc["results"]:
        if r["benchmark"] != bench:
            bench = r["benchmark"]
            out += ["", f"## {bench}", "",
                    "| metric | kind | base | patched | ratio |", "| --- | --- | --- | --- | --- |"]
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.3f}"
        out.append(f"| {r['metric']} | {kind_note(r['kind'], m.get('platform'))} | {fmt(r['base_median'])} "
                   f"[{fmt(r['base_min'])} - {fmt(r['base_max'])}] | {fmt(r['patched_median'])} "
                   f"[{fmt(r['patched_min'])} - {fmt(r['patched_max'])}] | {ratio} |")
    if doc.get("errors"):
        out += ["", "## Errors", ""] + [f"- {e}" for e in doc["errors"]]
    for p in doc.get("plots", []):
        out += ["", f"![{p}]({p})"]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


def plot_exit_loop(doc, outdir):
    """Exits/s per vCPU against the vCPU count, base and patched, per
    benchmark: a PNG per exit-loop benchmark (gnuplot)."""
    plots = []
    if subprocess.run(["sh", "-c", "command -v gnuplot"], capture_output=True).returncode:
        return plots
    by_bench = {}
    for r in doc["results"]:
        m = re.match(r"exits/s per vCPU, (\d+) vCPUs$", r["metric"])
        if m:
            by_bench.setdefault(r["benchmark"], []).append((int(m.group(1)), r))
    for bench, rows in by_bench.items():
        rows.sort()
        dat = os.path.join(outdir, f"{bench}.dat")
        with open(dat, "w") as f:
            for n, r in rows:
                f.write(f"{n} {r['base_median'] or 0} {r['base_min'] or 0} {r['base_max'] or 0} "
                        f"{r['patched_median'] or 0} {r['patched_min'] or 0} {r['patched_max'] or 0}\n")
        png = f"{bench}.png"
        script = (f"set terminal png size 800,500; set output '{os.path.join(outdir, png)}';"
                  f"set title '{bench}: exits/s per vCPU (pinned), median with min/max';"
                  "set xlabel 'vCPUs'; set ylabel 'exits/s per vCPU'; set logscale x 2; set yrange [0:*];"
                  "set key bottom left;"
                  f"plot '{dat}' using 1:2:3:4 with yerrorlines title 'base',"
                  f" '{dat}' using 1:5:6:7 with yerrorlines title 'patched'")
        if subprocess.run(["gnuplot", "-e", script], capture_output=True).returncode == 0:
            plots.append(png)
    return plots


def print_table(doc):
    w = max([len(r["metric"]) for r in doc["results"]] + [10])
    bench = None
    for r in doc["results"]:
        if r["benchmark"] != bench:
            bench = r["benchmark"]
            print(f"\n{bench}")
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.3f}"
        print(f"  {r['metric']:<{w}}  {r['kind']:<7}  base {fmt(r['base_median']):>12}  "
              f"patched {fmt(r['patched_median']):>12}  ratio {ratio}")


def write_report(doc, out):
    """bench.json, bench.md, the plots and the printed table in <out>."""
    os.makedirs(out, exist_ok=True)
    doc["plots"] = plot_exit_loop(doc, out)
    with open(os.path.join(out, "bench.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    write_markdown(os.path.join(out, "bench.md"), doc)
    print_table(doc)
    for e in doc["errors"]:
        print(f"ERROR: {e}", file=sys.stderr)
    return 1 if doc["errors"] else 0


def ab_table(doc):
    def f3(v):
        return "-" if v is None else f"{v:.3f}"
    head = ["benchmark", "metric", "kind", "pairs", "off mean", "on mean", "on/off [95% CI] (range)"]
    rows = []
    for r in doc["results"]:
        if r["ratio_mean"] is not None:
            cell = (f"{f3(r['ratio_mean'])} [{f3(r['ratio_ci'][0])}, {f3(r['ratio_ci'][1])}] "
                    f"({f3(r['ratio_min'])}-{f3(r['ratio_max'])})")
        else:
            cell = f"on: [{fmt(r['on_ci'][0])}, {fmt(r['on_ci'][1])}]"
        rows.append([r["benchmark"], r["metric"], r["kind"], str(r["pairs"]),
                     fmt(r["off_mean"]), fmt(r["on_mean"]), cell])
    if not rows:
        return "(no complete pair)"
    widths = [max(len(x[i]) for x in rows + [head]) for i in range(len(head))]
    line = lambda x: "  ".join(c.ljust(w) for c, w in zip(x, widths)).rstrip()
    return "\n".join([line(head), line(["-" * w for w in widths])] + [line(x) for x in rows])


def write_ab_report(doc, out):
    """ab.json, ab.md and the printed table of an "ab" run in <out>."""
    meta, skipped, errors = doc["metadata"], doc["skipped"], doc["errors"]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "ab.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    table = ab_table(doc)
    with open(os.path.join(out, "ab.md"), "w") as f:
        f.write("# A/B in one boot: on/off pairs\n\n")
        f.write(f"Reproduce: `{meta.get('reproduce', '-')}`\n\n")
        f.write("Ratio: geometric mean of the per-pair ratios on/off with its 95% "
                "t-interval (on the log scale) and the range; counters that only \"on\" "
                "can move show the on mean and its interval.\n\n```\n" + table + "\n```\n")
        for e in skipped:
            f.write(f"\nskipped: {e}\n")
        for e in errors:
            f.write(f"\nERROR: {e}\n")
    print(table)
    for e in skipped:
        print(f"skipped: {e}")
    for e in errors:
        print(f"ERROR: {e}", file=sys.stderr)
    return 1 if errors else 0
