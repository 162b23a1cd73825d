# SPDX-License-Identifier: GPL-2.0
"""What a benchmark run printed, as metrics (bench.py's parsing): reads a
benchmark list (``<name> <timeout s> <lock classes, comma separated, or
-> <program> [args]`` per line), the raw stream of a boot
(its TAP, with each benchmark's own output, its /proc/lock_stat dump and
its lock_acquire hist dump) and the structured metric lines of the
project's programs (selftests/bench/metric.h), and turns them into
(metric, kind, unit, value) tuples: "count" (lock acquisitions and
contentions, exits, calls: TCG does not distort them), "tally" (events
counted over a fixed time or a timing-dependent run: a faster kernel gets
more), "rate" and "latency" (under TCG: indicative only), each with the
direction that is better ("higher", "lower" or "neither"); the upstream
selftests used as benchmarks (vgic_wakeup, vgic_lpi_stress) are the only
programs with parsers of their own here.
"""

import json
import os
import re

import lockstat
import report    # the TAP parser
from harnesslib import ListError, list_entries


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


# ---- A/B in one boot (axis "ab") ----------------------------------------

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


def load_ab(dirs):
    """The off/on pairs of an "ab" run's boots (DIR/tap.txt each):
    (errors, skipped, {(benchmark, metric): {..., "pairs": [...]}}, order).
    Pairs are numbered per boot; every complete pair of every boot counts
    once."""
    errors, skipped, keys, order = [], [], {}, []
    for d in dirs:
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
    return errors, skipped, keys, order
