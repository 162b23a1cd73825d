#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Benchmark lists, results and reports.

  bench.py resolve BENCHLIST [--only NAMES] -o benchlist.tsv
      check a benchmark list and write the guest's resolved list
  bench.py collect --raw DIR [--raw DIR ...] --out DIR
      turn the raw streams of interleaved boots (DIR/<variant>-<rep>/tap.txt
      with DIR/<variant>-<rep>/metadata.json) into bench.json, bench.md and
      PNG plots
  bench.py hw --raw DIR... --out FILE
      the same for native runs on one kernel: a single-kernel results file
  bench.py compare BEFORE.json AFTER.json --out DIR
      two single-kernel files (make hw-bench before/after) -> bench.json etc.
  bench.py ab --raw DIR... --benchlist LIST --out DIR
      one kernel, a feature switched at run time: the off/on pairs that the
      benchmarks print inside each boot -> ab.json, ab.md (paired ratios)

Benchmark list lines:
  <name> <timeout s> <lock classes, comma separated, or -> <program> [args]

Metric kinds: "count" (lock acquisitions and contentions, exits, calls:
TCG does not distort them), "tally" (events counted over a fixed time or
a timing-dependent run: a faster kernel gets more), "rate" and "latency"
(under TCG: indicative only). Every result carries "better": "higher",
"lower" or "neither" (a tally that only explains another metric).
"""
import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lockstat  # noqa: E402
import report    # noqa: E402  (the TAP parser)
from harnesslib import ListError, list_entries  # noqa: E402


class BenchError(Exception):
    pass


def parse_benchlist(path):
    entries = []
    try:
        for where, fields in list_entries(path, 5, "<name> <timeout> <classes|-> <program> [args]"):
            if len(fields) < 4:
                raise BenchError(f"{where}: expected '<name> <timeout> <classes|-> <program> [args]'")
            name, timeout, classes, prog = fields[:4]
            entries.append({"name": name, "timeout": int(timeout),
                            "classes": [] if classes == "-" else classes.split(","),
                            "program": prog, "args": fields[4] if len(fields) > 4 else ""})
    except ListError as e:
        raise BenchError(str(e)) from None
    return entries


# ---- metrics from one benchmark's output -------------------------------

def json_objects(lines):
    """The JSON objects among a benchmark's output lines (one per line)."""
    for line in lines:
        line = line.strip()
        if line.startswith("{"):
            try:
                yield json.loads(line)
            except ValueError:
                continue


# Which direction is better for metrics that declare it (structured
# metrics, hw-bench files): metric name -> "higher" | "lower" | "neither".
# better() falls back to rules for the metrics of upstream selftests.
DECLARED_BETTER = {}


def metric_object(line):
    """The JSON object of one structured metric line (selftests/bench/metric.h),
    also behind the L2 guest's "[l2] " prefix; None for any other line."""
    line = line.strip()
    if line.startswith("[l2] "):
        line = line[len("[l2] "):]
    if not line.startswith("{\"metric\""):
        return None
    try:
        return json.loads(line)
    except ValueError:
        return None


def structured_metric(line):
    """(metric, kind, unit, value) of one structured metric line; None for
    any other line."""
    o = metric_object(line)
    try:
        m = (o["metric"], o["kind"], o["unit"], o["value"])
    except (TypeError, KeyError):
        return None
    if o.get("better") in ("higher", "lower", "neither"):
        DECLARED_BETTER[o["metric"]] = o["better"]
    return m


def metrics_from_output(lines):
    """(metric, kind, unit, value) tuples from a benchmark's stdout: the
    project's own programs print structured metric lines; the upstream
    selftests (vgic_wakeup's JSON summary, vgic_lpi_stress's text) are
    parsed here, they are the only per-program parsers."""
    out = []
    for line in lines:
        m = structured_metric(line)
        if m:
            out.append(m)
    for obj in json_objects(lines):
        if obj.get("benchmark") == "vgic-wakeup":
            tag = f"{obj['vcpus']} vCPUs, halt_poll_ns {obj['halt_poll_ns']}"
            out.append((f"interrupts delivered, {tag}", "tally", "interrupts", obj["interrupts"]))
            out.append((f"delivery latency mean, {tag}", "latency", "us", obj["latency_us"]["mean"]))
            out.append((f"halt_successful_poll, {tag}", "tally", "polls", obj["halt_successful_poll"]))
            out.append((f"halt_wakeup, {tag}", "tally", "wakeups", obj["halt_wakeup"]))
    for line in lines:
        for regex, metric, kind, unit, conv in TEXT_METRICS:
            m = regex.match(line.strip())
            if m:
                out.append((metric, kind, unit, conv(m.group(1))))
    return out


# Metrics printed as text lines by upstream selftests (vgic_lpi_stress):
# regex with the value as group 1, metric, kind, unit, type of the value.
TEXT_METRICS = [
    (re.compile(r"Rate: ([\d.]+) LPIs/sec"), "LPI injection rate", "rate", "LPIs/s", float),
    (re.compile(r"LPIs taken by the guest: (\d+)"), "LPIs taken by the guest", "tally", "LPIs", int),
    (re.compile(r"MOVI commands during the run: (\d+)"), "MOVI commands during the run", "tally", "commands",
     int),
    (re.compile(r"MSIs that missed the ITS translation cache: (\d+)"), "MSIs that missed the ITS translation cache",
     "count", "MSIs", int),
]


# Which direction is better, for metrics that do not declare it: rates
# higher, latencies and lock counts (acquisitions, contentions, wait times)
# lower; a tally is better lower when it counts a cost (context switches),
# higher when it counts work done, and "neither" when it only explains
# another metric (polls, wake-ups, MOVI commands).
TALLY_BETTER = [
    (re.compile(r"^context switches"), "lower"),
    (re.compile(r"^(interrupts delivered|LPIs taken)"), "higher"),
]


def better(kind, metric):
    if metric in DECLARED_BETTER:
        return DECLARED_BETTER[metric]
    if kind == "rate":
        return "higher"
    if kind in ("latency", "count"):
        return "lower"
    for regex, direction in TALLY_BETTER:
        if regex.search(metric):
            return direction
    return "neither"


def total_exits(lines):
    """Exits to userspace made by all exit-loop runs in a benchmark's output."""
    return sum(sum(o["exits"]) for o in json_objects(lines) if o.get("benchmark") == "exit-loop")


# Frames of the lock machinery itself, above the code that takes the lock.
LOCK_FRAME_RE = re.compile(r"^(lock_acquire|__lock_acquire|_raw_|__raw_|do_raw_|trace_|__traceiter_|__bpf_trace_|_*mutex_lock)")


def parse_lock_sites(text):
    """{class: {function: acquisitions}} from a lock:lock_acquire hist dump
    (run-bench.sh): each stack's hitcount goes to the first frame that is
    not lock machinery. The class is the "name" key of the entry (one
    trigger for all classes), or the one class in the trigger's filter
    (dumps from one trigger per class)."""
    out, cls, stack = {}, None, []
    for line in text.splitlines():
        if "trigger info:" in line:
            names = [n.lstrip("&") for n in re.findall(r'name == "([^"]+)"', line)]
            for n in names:
                out.setdefault(n, {})
            cls = names[0] if len(names) == 1 else None
            continue
        st = line.strip()
        m = re.match(r"\{ name: (\S+)\s*, (?:common_)?stacktrace:", st)
        if m:
            cls = m.group(1).lstrip("&")
            out.setdefault(cls, {})
            stack = []
        elif st.startswith("{ common_stacktrace:") or st.startswith("{ stacktrace:"):
            stack = []
        elif st.startswith("} hitcount:") and cls is not None:
            n = int(st.split(":", 1)[1].split()[0])
            fn = next((lockstat.site_function(f) for f in stack if not LOCK_FRAME_RE.match(f)), "?")
            out[cls][fn] = out[cls].get(fn, 0) + n
        elif st and "+0x" in st and not st.startswith("#"):
            stack.append(st)
    return out


def metrics_from_lockstat(text, classes, sites_text=None):
    """Counts for the named classes: acquisitions, contentions, and the
    contentions per contention-point function; for a class named
    "<class>:sites", also the acquisitions per calling function."""
    out = []
    parsed = lockstat.parse(text)
    acq_sites = parse_lock_sites(sites_text) if sites_text else {}
    for want in classes:
        per_site = want.endswith(":sites")
        want = want[:-len(":sites")] if per_site else want
        sel = lockstat.select(parsed, [want])
        acq = sum(c["stats"]["acquisitions"] for c in sel.values())
        con = sum(c["stats"]["contentions"] for c in sel.values())
        label = want.lstrip("&")
        out.append((f"lock_stat {label} acquisitions", "count", "acquisitions", acq))
        out.append((f"lock_stat {label} contentions", "count", "contentions", con))
        sites = {}
        for c in sel.values():
            for s in c["contention_points"]:
                fn = lockstat.site_function(s["symbol"])
                sites[fn] = sites.get(fn, 0) + s["count"]
        for fn, n in sorted(sites.items()):
            out.append((f"lock_stat {label} contentions at {fn}", "count", "contentions", n))
        if per_site and label in acq_sites:
            for fn, n in sorted(acq_sites[label].items()):
                out.append((f"lock_stat {label} acquisitions at {fn}", "count", "acquisitions", n))
    return out


def split_lockstat(output):
    """Separate a benchmark's own output from its /proc/lock_stat dump and
    its lock_acquire hist dump: (own lines, lock_stat text, hist text)."""
    own, ls, hist, inside = [], [], [], None
    for line in output:
        if line in ("@lock_stat-begin", "@lock_sites-begin"):
            inside = ls if line == "@lock_stat-begin" else hist
        elif line in ("@lock_stat-end", "@lock_sites-end"):
            inside = None
        elif inside is not None:
            inside.append(line)
        else:
            own.append(line)
    return own, ("\n".join(ls) if ls else None), ("\n".join(hist) if hist else None)


def run_metrics(tap_text, benchlist):
    """{benchmark: {"ok": bool, "reason": str, "metrics": [(m, kind, unit, v)]}}
    for one boot's stream."""
    classes = {e["name"]: e["classes"] for e in benchlist}
    _, tests = report.parse_tap(tap_text)
    res = {}
    for t in tests:
        own, ls, hist = split_lockstat(t["output"])
        metrics = metrics_from_output(own)
        if ls is not None and classes.get(t["name"]):
            lsm = metrics_from_lockstat(ls, classes[t["name"]], hist)
            metrics += lsm
            # A benchmark that runs for a fixed time makes more exits (and
            # so more lock acquisitions) on a faster kernel: per exit, the
            # count no longer depends on speed.
            exits = total_exits(own)
            if exits:
                metrics += [(f"{m} per 1000 exits", "count", f"{unit}/1000 exits", v * 1000.0 / exits)
                            for m, _, unit, v in lsm if m.endswith(" acquisitions")]
        res[t["name"]] = {"ok": t["result"] == "pass", "reason": t["reason"], "metrics": metrics,
                          "lock_stat": ls is not None}
    return res


# ---- aggregation --------------------------------------------------------

def summarize(values):
    if not values:
        return {"median": None, "min": None, "max": None}
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def combine(per_variant, order):
    """per_variant: {"base": [run_metrics...], "patched": [...]} ->
    the flat, stable results list of bench.json."""
    keys = {}
    for runs in per_variant.values():
        for run in runs:
            for bench, r in run.items():
                for metric, kind, unit, _ in r["metrics"]:
                    keys.setdefault((bench, metric), {"kind": kind, "unit": unit,
                                                      "base": [], "patched": []})
    for variant, runs in per_variant.items():
        for run in runs:
            for (bench, metric), d in keys.items():
                r = run.get(bench)
                if r is None:
                    continue
                values = [v for m, _, _, v in r["metrics"] if m == metric]
                if values:
                    d[variant].append(values[0])
                elif metric.startswith("lock_stat ") and r.get("lock_stat"):
                    # lock_stat lists only what happened: a call site or
                    # class missing from a run's dump counted 0 there.
                    d[variant].append(0)
    return results_of(keys)


def results_of(keys):
    """{(benchmark, metric): {"kind", "unit", "base": [values], "patched":
    [values]}} -> bench.json's results: medians, spread, ratio, direction."""
    results = []
    for (bench, metric), d in keys.items():
        b, p = summarize(d["base"]), summarize(d["patched"])
        ratio = None
        if b["median"] not in (None, 0) and p["median"] is not None:
            ratio = p["median"] / b["median"]
        results.append({"benchmark": bench, "metric": metric, "kind": d["kind"], "unit": d["unit"],
                        "better": better(d["kind"], metric),
                        "base": d["base"], "patched": d["patched"],
                        "base_median": b["median"], "base_min": b["min"], "base_max": b["max"],
                        "patched_median": p["median"], "patched_min": p["min"], "patched_max": p["max"],
                        "ratio": ratio})
    results.sort(key=lambda r: (r["benchmark"], r["kind"], r["metric"]))
    return results


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


def load_raw(dirs, benchlist_entries):
    per_variant, order, errors, metas = {}, [], [], {}
    for d in dirs:
        name = os.path.basename(os.path.normpath(d))
        variant = name.rsplit("-", 1)[0]
        text = open(os.path.join(d, "tap.txt"), encoding="utf-8", errors="replace").read()
        run = run_metrics(text, benchlist_entries)
        for bench, r in run.items():
            if not r["ok"]:
                errors.append(f"{name}: {bench}: {r['reason']}")
        if "# harness: done" not in text:
            errors.append(f"{name}: the guest did not finish its list")
        per_variant.setdefault(variant, []).append(run)
        order.append(name)
        mp = os.path.join(d, "metadata.json")
        if os.path.exists(mp):
            metas[variant] = json.load(open(mp))
    return per_variant, order, errors, metas


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
    before, after = json.load(open(a.before)), json.load(open(a.after))
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
    md.update({"reproduce": f"scripts/lib/bench.py compare {a.before} {a.after}"
                            + (f" --platform '{a.platform}'" if a.platform else ""),
               "runs": [(before.get("metadata") or {}).get("reproduce"), md.get("reproduce")],
               "platform": a.platform or md.get("platform", "hardware")})
    md.setdefault("base", {"origin": f"kernel {before.get('kernel')}"})
    reps = {len(x["values"]) for d in (before, after) for x in d["results"] if x.get("values")}
    doc = {"schema": 1, "metadata": md, "repetitions": max(reps) if reps else None,
           "before_kernel": before.get("kernel"), "after_kernel": after.get("kernel"),
           "order": [], "errors": before.get("errors", []) + after.get("errors", []),
           "results": results_of(keys)}
    return write_report(doc, a.out)


def cmd_bases(a):
    """make bench results of two bases (e.g. 6.12 and mainline), one
    reStructuredText table: per benchmark and metric, each base's base and
    patched medians and its ratio. Only what both files measured, unless
    --all; the ratios are compared, never the absolute values across
    bases (different kernels, possibly different runs)."""
    docs = []
    for f in a.files:
        d = json.load(open(f))
        docs.append({(x["benchmark"], x["metric"]): x for x in d["results"]})
    labels = a.labels.split(",") if a.labels else [os.path.basename(os.path.dirname(os.path.abspath(f)))
                                                   for f in a.files]
    if len(labels) != len(docs):
        raise ValueError(f"--labels names {len(labels)} bases for {len(docs)} files")
    keys = []
    for d in docs:
        for k in d:
            if k not in keys and (a.all or all(k in d2 for d2 in docs)):
                keys.append(k)
    if a.benchmarks:
        want = a.benchmarks.split(",")
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
    print("\n".join([sep, line(head), sep] + [line(r) for r in rows] + [sep]))
    return 0


# ---- A/B in one boot (axis "ab") ----------------------------------------

# Two-sided 95% quantiles of Student's t for 1..30 degrees of freedom.
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
       2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
       2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def mean_ci(values):
    """Mean and the 95% t-interval of the mean (None, None below 2 values)."""
    n = len(values)
    if n == 0:
        return None, None, None
    m = statistics.fmean(values)
    if n < 2:
        return m, None, None
    h = (T95[n - 2] if n - 1 <= len(T95) else 1.96) * statistics.stdev(values) / n ** 0.5
    return m, m - h, m + h


def ab_samples(lines):
    """{metric: {"kind", "unit", "better", "pairs": {pair: {"off": v, "on": v}}}}
    from the structured metric lines that carry "ab" and "pair" params."""
    out = {}
    for line in lines:
        o = metric_object(line)
        try:
            state, pair = o["params"]["ab"], int(o["params"]["pair"])
        except (ValueError, KeyError, TypeError):
            continue
        if state not in ("off", "on"):
            continue
        m = out.setdefault(o["metric"], {"kind": o.get("kind"), "unit": o.get("unit"),
                                         "better": o.get("better", "neither"), "pairs": {}})
        m["pairs"].setdefault(pair, {})[state] = o["value"]
    return out


def ab_result(bench, metric, d, pairs):
    """One metric of one benchmark over its complete pairs: the means of
    both states, and the paired ratio on/off (geometric mean of the
    per-pair ratios) with its 95% interval (None where a phase measured 0:
    the counters that only "on" can move)."""
    offs = [p["off"] for p in pairs]
    ons = [p["on"] for p in pairs]
    on_mean, on_lo, on_hi = mean_ci(ons)
    r = {"benchmark": bench, "metric": metric, "kind": d["kind"], "unit": d["unit"],
         "better": d["better"], "pairs": len(pairs), "off": offs, "on": ons,
         "off_mean": mean_ci(offs)[0], "on_mean": on_mean, "on_ci": [on_lo, on_hi],
         "ratio_mean": None, "ratio_ci": [None, None], "ratio_min": None, "ratio_max": None}
    if pairs and all(o > 0 for o in offs) and all(o > 0 for o in ons):
        # Ratios are averaged on a log scale (the geometric mean), so that
        # the interval stays positive and a pair at 2x and one at 0.5x
        # cancel out; exp() of the t-interval of the mean log ratio.
        ratios = [on / off for on, off in zip(ons, offs)]
        m, lo, hi = mean_ci([math.log(x) for x in ratios])
        r.update(ratio_mean=math.exp(m), ratio_ci=[None if lo is None else math.exp(lo),
                                                   None if hi is None else math.exp(hi)],
                 ratio_min=min(ratios), ratio_max=max(ratios))
    return r


def cmd_ab(a):
    """Axis "ab" (make bench with a "# axis: ab" list): one kernel, a
    run-time switch, alternating off/on pairs inside each boot -> ab.json
    and ab.md with paired ratios and intervals. Pairs are numbered per
    boot; every complete pair of every boot counts once."""
    entries = parse_benchlist(a.benchlist)
    errors, skipped, keys, order = [], [], {}, []
    for d in a.raw:
        name = os.path.basename(os.path.normpath(d))
        order.append(name)
        text = open(os.path.join(d, "tap.txt"), encoding="utf-8", errors="replace").read()
        if "# harness: done" not in text:
            errors.append(f"{name}: the guest did not finish its list")
        _, tests = report.parse_tap(text)
        for t in tests:
            if t["result"] == "skip":
                skipped.append(f"{name}: {t['name']}: {t['reason']}")
                continue
            if t["result"] != "pass":
                errors.append(f"{name}: {t['name']}: {t['reason']}")
            complete = 0
            for metric, dd in ab_samples(t["output"]).items():
                k = keys.setdefault((t["name"], metric), {**dd, "pairs": []})
                for pair, v in sorted(dd["pairs"].items()):
                    if "off" in v and "on" in v:
                        k["pairs"].append(v)
                        complete += 1
            if t["result"] == "pass" and not complete:
                errors.append(f"{name}: {t['name']}: passed without a complete off/on pair")
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
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "ab.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    table = ab_table(doc)
    with open(os.path.join(a.out, "ab.md"), "w") as f:
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
