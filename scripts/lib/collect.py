#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make test's collector: one owner for its results vocabulary.

  collect.py run <summary.json> <prefix> <run id>
      this run's results as results.tsv lines ("<prefix>/<test>\\t<result>\\t<note>"),
      plus "<prefix>/boot+console". Exits 1 without output when the summary is
      missing or belongs to another run (its run_id differs): a stale summary
      is never read as this run's.
  collect.py check <rows.tsv> <base> <log>
      make check's table rows (scripts/lib/checklib.py's rows.tsv) as results.tsv
      lines "<base>/check/<n>-<patch>": pass, fail (a gate FAIL), or skip (a
      gate NOT-RUN, with the row's reason); the base row is not a test
  collect.py junit <results.tsv> <junit.xml>
      the whole make test as one JUnit file: one testsuite per first path
      component ("harness", "mainline", "6.12", ...), <failure> for fail,
      <error> for error, <skipped> for skip.

Results are pass, fail, skip or error (a test that could not run: the harness
or the machine failed, not the kernel).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harnesslib  # noqa: E402

RESULTS = ("pass", "fail", "skip", "error")


def run_lines(summary_path, prefix, run_id):
    try:
        with open(summary_path, encoding="utf-8") as f:
            s = json.load(f)
    except (OSError, ValueError):
        return None
    if s.get("run_id") != run_id:
        return None
    out = []
    for d in s["details"]:
        res = d["result"] if d["result"] in RESULTS else "error"
        out.append((f"{prefix}/{d['name']}", res, d.get("reason") or ""))
    boot = s["boot"]["result"]
    if boot != "done":
        out.append((f"{prefix}/boot+console", "fail", f"guest {boot}"))
    elif s["splats"]:
        out.append((f"{prefix}/boot+console", "fail",
                    f"{len(s['splats'])} splat(s): {s['splats'][0]['text']}"))
    else:
        out.append((f"{prefix}/boot+console", "pass", ""))
    return out


def check_lines(rows_path, base, log):
    out = []
    with open(rows_path, encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 3 or fields[0] == "0":
                continue
            n, patch, cells = fields[0], fields[1], fields[2:]
            if n == "+":
                name = "final-state-clang"
            else:
                name = f"{n}-{patch}"
            if "NOT-RUN" in cells:
                out.append((f"{base}/check/{name}", "skip", patch.split(": ", 1)[-1]))
            elif "FAIL" in cells:
                out.append((f"{base}/check/{name}", "fail", f"see {log}"))
            else:
                out.append((f"{base}/check/{name}", "pass", ""))
    return out


def read_tsv(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line:
                continue
            fields = line.split("\t")
            if len(fields) < 2 or fields[1] not in RESULTS:
                raise ValueError(f"{path}:{n}: not '<test>\\t<pass|fail|skip|error>\\t<note>': {line!r}")
            rows.append((fields[0], fields[1], fields[2] if len(fields) > 2 else ""))
    return rows


def write_junit(rows, path):
    """make test's results.tsv as JUnit: one testsuite per first path
    component (harnesslib.write_junit, the one writer)."""
    suites = {}
    for name, res, note in rows:
        suite, _, case = name.partition("/")
        classname, _, short = (case or suite).rpartition("/")
        suites.setdefault(suite, []).append({
            "classname": f"{suite}.{classname}" if classname else suite,
            "name": short, "result": res, "message": note})
    harnesslib.write_junit(path, list(suites.items()), name="make test")


def main(argv):
    if len(argv) == 5 and argv[1] in ("run", "check"):
        try:
            rows = (run_lines if argv[1] == "run" else check_lines)(argv[2], argv[3], argv[4])
        except OSError as e:
            print(f"[harness] collect: ERROR: {e}", file=sys.stderr)
            return 2
        if rows is None:
            return 1
        for row in rows:
            print("\t".join(row))
        return 0
    if len(argv) == 4 and argv[1] == "junit":
        try:
            write_junit(read_tsv(argv[2]), argv[3])
        except (OSError, ValueError) as e:
            print(f"[harness] collect: ERROR: {e}", file=sys.stderr)
            return 2
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
