/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One structured metric per line, the only output format scripts/lib/bench.py
 * needs to know for the project's own benchmark programs:
 *
 *   {"metric":"<name>","params":{...},"unit":"<unit>","kind":"<kind>",
 *    "better":"higher|lower|neither","value":<number>}
 *
 * <name> is the metric's identity in bench.json (it includes the parameters
 * a reader needs, e.g. "exits/s per vCPU, 2 vCPUs"); params repeats them for
 * machines. kind: "rate" and "latency" (timing-dependent, indicative under
 * TCG), "tally" (events over a timed run), "count" (independent of speed).
 */
#ifndef BENCH_METRIC_H
#define BENCH_METRIC_H

#include <stdio.h>

static inline void bench_metric(const char *name, const char *params_json, const char *unit,
				const char *kind, const char *better, double value)
{
	printf("{\"metric\":\"%s\",\"params\":{%s},\"unit\":\"%s\",\"kind\":\"%s\","
	       "\"better\":\"%s\",\"value\":%.10g}\n",
	       name, params_json, unit, kind, better, value);
	fflush(stdout);
}

#endif
