#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make mutants: the mutant files and the verdicts (scripts/mutants.sh runs
the kernels).

A mutant is a patch on top of a base's whole series that breaks one property
on purpose. Its file (selftests/mutants/<base>/NNN-<name>.patch) starts with
a header, then the diff:

    Mutant: <name, as in the file name>
    Breaks: <the property, one line>
    Tests: <run-list test>... kunit:<suite>[.<case>]...
    Why: <why each named test must fail on this kernel>
    (continuation lines start with whitespace)

    --- a/<file>
    +++ b/<file>

  mutants.py list <dir> --runlist <runlist> --kunit <kunit.txt> [--only "a b"]
      one line per mutant: "<file>\\t<name>\\t<selftests>\\t<kunit suites>"
      (space-separated; "-" for none); a malformed header, a test the run
      list or the KUnit list does not have, or an unknown ONLY name is an
      error (exit 2)
  mutants.py verdict --tests "<tests>" [--summary <summary.json> --run-id <id>]
                     [--kunit-tsv <results.tsv>]
      "<result>\\t<note>": pass (killed: every named test failed), fail
      (survived: a named test passed) or error (a named test did not run or
      its result is missing: the mutant shows nothing)
  mutants.py report <results.tsv> <out dir>
      table.txt and summary.json of a make mutants run
"""
import argparse
import json
import os
import re
import sys

import runlist

HEADER_KEYS = ("Mutant", "Breaks", "Tests", "Why")


class MutantError(Exception):
    pass


def parse_header(path):
    fields, key = {}, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith(("--- ", "diff ", "Index: ")):
                break
            m = re.match(r"^([A-Z][a-z]+):\s*(.*)$", line)
            if m and m.group(1) in HEADER_KEYS:
                key = m.group(1)
                if key in fields:
                    raise MutantError(f"{path}: '{key}:' given twice")
                fields[key] = m.group(2).strip()
            elif key and line[:1] in (" ", "\t") and line.strip():
                fields[key] += " " + line.strip()
            elif line.strip():
                key = None
    missing = [k for k in HEADER_KEYS if not fields.get(k)]
    if missing:
        raise MutantError(f"{path}: header lacks {', '.join(k + ':' for k in missing)}")
    name = fields["Mutant"]
    stem = re.sub(r"^\d+-", "", os.path.basename(path)).rsplit(".", 1)[0]
    if name != stem:
        raise MutantError(f"{path}: 'Mutant: {name}' does not match the file name ({stem})")
    return fields


def kunit_suites(path):
    """The suite names of selftests/kunit.txt ("<suite> <symbols>...")."""
    suites = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                suites.add(line.split()[0])
    return suites


def cmd_list(a):
    tests = {t[0] for t in runlist.parse_runlist(a.runlist)}
    suites = kunit_suites(a.kunit)
    files = sorted(f for f in os.listdir(a.dir) if f.endswith(".patch"))
    if not files:
        raise MutantError(f"no mutants (*.patch) in {a.dir}")
    only = [x for x in a.only.replace(",", " ").split() if x]
    out, names = [], set()
    for f in files:
        h = parse_header(os.path.join(a.dir, f))
        name = h["Mutant"]
        if name in names:
            raise MutantError(f"{f}: mutant '{name}' defined twice")
        names.add(name)
        st, ku = [], []
        for t in h["Tests"].split():
            if t.startswith("kunit:"):
                suite = t[len("kunit:"):].split(".", 1)[0]
                if suite not in suites:
                    raise MutantError(f"{f}: {t}: no suite '{suite}' in {a.kunit}")
                ku.append(t[len("kunit:"):])
            elif t in tests:
                st.append(t)
            else:
                raise MutantError(f"{f}: test '{t}' is not in {a.runlist}")
        out.append((f, name, " ".join(st) or "-", " ".join(ku) or "-"))
    for n in only:
        if n not in names:
            raise MutantError(f"MUTANTS: no mutant '{n}' in {a.dir}")
    for row in out:
        if not only or row[1] in only:
            print("\t".join(row))
    return 0


def kunit_results(path):
    """kunit/<suite>.<case> lines of a results TSV -> {suite.case: result}."""
    res = {}
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                fields = line.rstrip("\n").split("\t")
                if len(fields) >= 2 and fields[0].startswith("kunit/"):
                    res[fields[0][len("kunit/"):]] = fields[1]
    return res


def verdict(tests, summary=None, kunit=None):
    """(result, note) for one mutant: every named test must fail."""
    results = []
    for t in tests:
        if t.startswith("kunit:"):
            want = t[len("kunit:"):]
            cases = {k: v for k, v in (kunit or {}).items()
                     if k == want or ("." not in want and k.startswith(want + "."))}
            if not cases:
                results.append((t, "missing"))
            elif any(v == "fail" for v in cases.values()):
                results.append((t, "fail"))
            elif all(v == "pass" for v in cases.values()):
                results.append((t, "pass"))
            else:
                results.append((t, "/".join(sorted(set(cases.values())))))
        else:
            r = (summary or {}).get("tests", {}).get(t)
            results.append((t, r or "missing"))
    survived = [t for t, r in results if r == "pass"]
    other = [f"{t} {r}" for t, r in results if r not in ("pass", "fail")]
    if survived:
        return "fail", "survived: " + ", ".join(survived) + " passed on the mutant kernel"
    if other:
        return "error", "not shown: " + ", ".join(other)
    return "pass", "killed: " + ", ".join(t for t, _ in results) + " failed"


def cmd_verdict(a):
    summary = None
    if a.summary:
        try:
            with open(a.summary, encoding="utf-8") as f:
                summary = json.load(f)
        except (OSError, ValueError):
            summary = None
        if summary and summary.get("run_id") != a.run_id:
            summary = None   # another run's: never read as this mutant's
    res, note = verdict(a.tests.split(), summary, kunit_results(a.kunit_tsv))
    if summary and summary.get("boot", {}).get("result") not in (None, "done") and res != "pass":
        note += f" (guest {summary['boot']['result']})"
    print(f"{res}\t{note}")
    return 0


WORD = {"pass": "killed", "fail": "SURVIVED", "error": "error"}


def cmd_report(a):
    rows = []
    with open(a.tsv, encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) >= 2:
                name = fields[0].split("/", 1)[1] if fields[0].startswith("mutants/") else fields[0]
                rows.append((name, fields[1], fields[2] if len(fields) > 2 else ""))
    os.makedirs(a.out, exist_ok=True)
    width = max([len(r[0]) for r in rows] + [6])
    lines = [f"{'mutant'.ljust(width)}  {'result':8}  note"]
    lines += [f"{n.ljust(width)}  {WORD.get(r, r):8}  {note}" for n, r, note in rows]
    totals = {w: sum(1 for r in rows if r[1] == k) for k, w in WORD.items()}
    lines.append(f"{totals['killed']} killed, {totals['SURVIVED']} survived, {totals['error']} error")
    with open(os.path.join(a.out, "table.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(a.out, "summary.json"), "w", encoding="utf-8") as f:
        json.dump({"schema": 1, "totals": {"killed": totals["killed"], "survived": totals["SURVIVED"],
                                           "error": totals["error"]},
                   "mutants": [{"name": n, "result": WORD.get(r, r).lower(), "note": note}
                               for n, r, note in rows]}, f, indent=1)
        f.write("\n")
    print("\n".join(lines))
    return 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    ls = sub.add_parser("list")
    ls.add_argument("dir")
    ls.add_argument("--runlist", required=True)
    ls.add_argument("--kunit", required=True)
    ls.add_argument("--only", default="")
    ls.set_defaults(func=cmd_list)
    v = sub.add_parser("verdict")
    v.add_argument("--tests", required=True)
    v.add_argument("--summary")
    v.add_argument("--run-id", default="")
    v.add_argument("--kunit-tsv")
    v.set_defaults(func=cmd_verdict)
    r = sub.add_parser("report")
    r.add_argument("tsv")
    r.add_argument("out")
    r.set_defaults(func=cmd_report)
    a = ap.parse_args()
    try:
        return a.func(a)
    except (OSError, MutantError, runlist.RunListError) as e:
        print(f"[harness] mutants: ERROR: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
