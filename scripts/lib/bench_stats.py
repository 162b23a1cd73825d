# SPDX-License-Identifier: GPL-2.0
"""Statistics of benchmark results (bench.py's numbers). Base and patched
boots: the median and the range of each metric over the
repetitions and the ratio of the medians, as the flat results list of
bench.json (summarize(), combine(), results_of()). One boot with a
feature switched off and on (axis "ab"): the means of both states and the
paired ratio on/off, the geometric mean of the per-pair ratios with its
95% t-interval (mean_ci(), ab_result()).
"""

import math
import statistics

from bench_parse import better


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
