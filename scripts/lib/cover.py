#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A cover letter's text from its template and results JSON (make export).

    cover.py <template> <base description> [results.json ...] [-- results.json ...]

The template is the cover letter: first line the subject, then the body.
Lines at its top that start with "#" are for the template only and are
dropped; "# benchmarks: NAME..." there limits @RESULTS@ to those benchmarks,
"# kinds: KIND..." to those kinds of metric (count, tally, rate, latency)
and "# metrics: TEXT, TEXT" to the metrics whose name contains one of the
comma-separated TEXTs (a cover shows the figures its patches are about,
not everything the benchmark measured).
Placeholders: @BASE@ (the base the series applies to), @RESULTS@ (the
base-vs-patched tables of the results files: several files, newest first,
a benchmark shown from the newest file that has it; each block names the
kernel base it was measured on). A "--" among the results files starts a
group of fallbacks: a benchmark comes from the first group that has it
(make export: the series' own base first, then the other bases). A template that asks for @RESULTS@ when no
results file has any of its benchmarks is an error.
"""
import json
import re
import sys


def fmt(v):
    if v is None:
        return "-"
    if isinstance(v, float) and not v.is_integer():
        return f"{v:,.1f}" if abs(v) >= 10 else f"{v:,.3g}"
    return f"{int(v):,}"


def split_template(text):
    """(directives, body): the leading '#' lines parsed, the rest."""
    lines = text.split("\n")
    directives = {}
    while lines and lines[0].startswith("#"):
        key, sep, val = lines.pop(0)[1:].partition(":")
        if sep:
            key = key.strip()
            directives[key] = ([t.strip() for t in val.split(",") if t.strip()]
                               if key == "metrics" else val.split())
    return directives, "\n".join(lines)


def newest_first(docs):
    return sorted(docs, key=lambda d: d.get("metadata", {}).get("date", ""), reverse=True)


def selected(r, wanted, kinds, metrics):
    """Whether a cover's directives keep result r."""
    return ((wanted is None or r["benchmark"] in wanted)
            and (kinds is None or r.get("kind") in kinds)
            and (metrics is None or any(m in r["metric"] for m in metrics)))


def results_text(groups, wanted=None, kinds=None, metrics=None):
    """groups: lists of results documents, in order of preference. Within
    a group each (benchmark, metric) comes from the newest document that
    has it: the counts of one list and the rates of another list with the
    same benchmark names both show. A later group (another base) only
    adds benchmarks no earlier group has."""
    lines = []
    earlier = set()
    for g in groups:
        shown = set()
        for doc in newest_first(g):
            lines += doc_text(doc, (wanted, kinds, metrics), earlier, shown, lines)
        earlier |= {b for b, _ in shown}
    return "\n".join(lines)


def grouped(results, shown, title):
    """(lines, result) per result: a blank line and the benchmark's title
    before its first metric, nothing before the others; each result is
    marked in shown as (benchmark, metric)."""
    bench = None
    for r in results:
        shown.add((r["benchmark"], r["metric"]))
        head = []
        if r["benchmark"] != bench:
            bench = r["benchmark"]
            head = ["", title(r)]
        yield head, r


def run_lines(md, base):
    """Command, date, base and machine of a results document."""
    # The project's own revision ("(project <sha>)") means nothing to the list.
    command = re.sub(r" \(project [^)]*\)$", "", md.get("reproduce", "?"))
    return [f"Command: {command}",
            f"Date: {md.get('date', '?')}; kernel base: {base.get('origin', '?')}; "
            f"measured with the series at {md.get('series', {}).get('patches', '?')} patches",
            f"Machine: {md.get('platform', '?')}, {md.get('host_mode', '?')} host, "
            f"GICv{md.get('gic', '?')}, {md.get('smp', '?')} CPUs; "
            f"config {' + '.join(md.get('config', {}).get('fragments', []))}"]


def doc_text(doc, select, earlier, shown, previous):
    """The lines of one document's block (none if it adds nothing); marks
    what it shows in shown as (benchmark, metric). select: the cover's
    (benchmarks, kinds, metrics) filters, None for no filter."""
    lines = []
    md = doc.get("metadata", {})
    results = [r for r in doc.get("results", [])
               if r["benchmark"] not in earlier and (r["benchmark"], r["metric"]) not in shown
               and "aggregate" not in r["metric"]
               and selected(r, *select)]
    if not results:
        return lines
    if previous:
        lines += ["", ""]
    base = md.get("base", {})
    if doc.get("axis") == "ab":
        return lines + ab_text(doc, md, base, results, shown)
    lines += run_lines(md, base)
    lines.append("Base and patched kernels built the same way and booted alternately:")
    lines.append(f"  {', '.join(doc.get('order', []))}.")
    lines.append("Medians of the repetitions with [min-max]; ratio = patched / base.")
    if any(r.get("kind") in ("rate", "latency") for r in results):
        lines.append("Counts come from /proc/lock_stat and do not depend on emulation speed;")
        lines.append("rates and latencies measured under TCG are indicative only.")
    elif any(r.get("kind") == "tally" for r in results):
        lines.append("Lock counts (lock_stat), which do not depend on emulation speed, and")
        lines.append("tallies of the run, which do (a slower run does less in its time).")
        lines.append("Rates and latencies measured under TCG are left out.")
    else:
        lines.append("Lock counts only (lock_stat): they do not depend on emulation speed.")
        lines.append("Rates and latencies measured under TCG say nothing about hardware")
        lines.append("and are left out.")
    for head, r in grouped(results, shown, lambda r: f"{r['benchmark']}:"):
        lines += head
        unit = r.get("unit") or ""
        kind = r.get("kind", "")
        lines.append(f"  {r['metric']} ({unit}{', ' if unit and kind else ''}{kind})")
        ratio = r.get("ratio")
        lines.append(f"      base {fmt(r.get('base_median'))} [{fmt(r.get('base_min'))}-{fmt(r.get('base_max'))}]"
                     f"  patched {fmt(r.get('patched_median'))} [{fmt(r.get('patched_min'))}-{fmt(r.get('patched_max'))}]"
                     f"  ratio {'-' if ratio is None else f'{ratio:.3f}'}")
    return lines


def ab_text(doc, md, base, results, shown):
    """An A/B document (bench.py ab): one kernel, a switch off and on in
    alternating pairs inside each boot; per metric the means and the
    paired ratio on/off with its 95% interval."""
    lines = run_lines(md, base) + [
             "One kernel and boot per benchmark; the feature off and on in alternating",
             "pairs. Means of the phases; ratio = geometric mean of the per-pair",
             "ratios on/off with its 95% t-interval [low, high]; counts per operation",
             "do not depend on emulation speed, rates and latencies under TCG are",
             "indicative only."]
    for head, r in grouped(results, shown, lambda r: f"{r['benchmark']} ({r['pairs']} pairs):"):
        lines += head
        unit = r.get("unit") or ""
        if r.get("ratio_mean") is not None:
            lo, hi = r["ratio_ci"]
            ratio = (f"ratio {r['ratio_mean']:.3f} [{'-' if lo is None else f'{lo:.3f}'}, "
                     f"{'-' if hi is None else f'{hi:.3f}'}]")
        else:
            ratio = "ratio - (off cannot move it)"
        lines.append(f"  {r['metric']} ({unit}, {r.get('kind', '')})")
        lines.append(f"      off {fmt(r.get('off_mean'))}  on {fmt(r.get('on_mean'))}  {ratio}")
    return lines


def main(argv):
    if len(argv) < 3:
        sys.exit("usage: cover.py <template> <base description> [results.json ...]")
    tmpl, base, paths = argv[1], argv[2], argv[3:]
    directives, body = split_template(open(tmpl, encoding="utf-8").read())
    if "@RESULTS@" in body:
        groups = [[]]
        for p in paths:
            if p == "--":
                groups.append([])
            else:
                groups[-1].append(json.load(open(p)))
        wanted = set(directives["benchmarks"]) if "benchmarks" in directives else None
        kinds = set(directives["kinds"]) if "kinds" in directives else None
        metrics = directives.get("metrics")
        res = results_text(groups, wanted, kinds, metrics)
        if not res:
            sys.exit(f"{tmpl}: @RESULTS@ but no results file has "
                     + (f"any of {' '.join(sorted(wanted))}" if wanted else "results")
                     + (f" with kind {' '.join(sorted(kinds))}" if kinds else "")
                     + (f" and a metric named {', '.join(metrics)}" if metrics else "")
                     + f" ({' '.join(p for p in paths if p != '--') or 'none given'}); run make bench or set RESULTS=")
        body = body.replace("@RESULTS@", res)
    body = body.replace("@BASE@", base)
    sys.stdout.write(body.strip("\n") + "\n")


if __name__ == "__main__":
    main(sys.argv)
