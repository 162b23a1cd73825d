#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make check's data and comparisons, in one place (scripts/check.sh calls it).

  checklib.py header <table>
      start the table (column names)
  checklib.py row <rows.tsv> <table> <n> <patch> [gate=value ...]
      one row: gates not named are "-" (the gate does not apply, or was not
      reached); appends to rows.tsv (tab separated, the columns of GATES) and
      to the table, and prints the table line
  checklib.py norm <src> <log>...
      the warnings of build logs, normalised: "file: warning: text" (path
      relative to the tree, line and column dropped so that a warning that
      only moved is not new), sorted
  checklib.py new <candidate> <baseline>
      the lines of candidate not in baseline, as a multiset (a second copy of
      a base warning is new)
  checklib.py json <rows.tsv> <out> <rc> <seconds> <patch> <gate> <what> <x86 mode> <base> <series>
      check.json
"""
import collections
import json
import re
import sys

GATES = ("apply", "checkpatch", "arm64", "x86_64", "sparse", "w1", "kdoc", "selftests")
COLUMNS = ("n", "patch") + GATES
TITLES = ("#", "patch", "apply", "checkpatch", "arm64", "x86_64", "sparse", "W=1", "kdoc", "selftests")
WIDTHS = (3, 62, 6, 10, 9, 8, 7, 7, 5, 0)

WARNING_RE = re.compile(r"^[^ :]+:[0-9]+(:[0-9]+)?: (warning|error):")
LINECOL_RE = re.compile(r"^([^ :]+):[0-9]+(:[0-9]+)?: ")


def format_row(fields):
    """One table line: fixed-width columns, the last one as is."""
    return " ".join(f"{v:<{w}}" if w else v for v, w in zip(fields, WIDTHS))


def make_row(n, patch, cells):
    """The row's fields in COLUMNS order; cells maps gate -> value."""
    unknown = set(cells) - set(GATES)
    if unknown:
        raise ValueError(f"unknown gate(s): {', '.join(sorted(unknown))} (gates: {', '.join(GATES)})")
    return [str(n), patch] + [cells.get(g, "-") for g in GATES]


def norm_warnings(text, src):
    out = []
    for line in text.splitlines():
        if not WARNING_RE.match(line):
            continue
        line = re.sub(r"^(\.\./)+", "", line)
        if src and line.startswith(src.rstrip("/") + "/"):
            line = line[len(src.rstrip("/")) + 1:]
        out.append(LINECOL_RE.sub(r"\1: ", line, count=1))
    return sorted(out)


def new_lines(candidate, baseline):
    base = collections.Counter(baseline)
    out = []
    for line in candidate:
        if base[line] > 0:
            base[line] -= 1
        else:
            out.append(line)
    return out


def read_rows(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            rows.append(dict(zip(COLUMNS, line.rstrip("\n").split("\t"))))
    return rows


def check_json(rows, rc, secs, patch, gate, what, x86, base, series):
    return {"base": base, "series": series, "result": "pass" if rc == 0 else "fail",
            "seconds": secs, "x86_64_mode": x86, "rows": rows,
            "failure": {"patch": patch, "gate": gate, "what": what} if rc != 0 else None}


def lines_of(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return [l.rstrip("\n") for l in f if l.strip()]


def table_line(table, fields, mode):
    """Write one line of the table and print it as check's status line."""
    line = format_row(fields)
    with open(table, mode, encoding="utf-8") as f:
        f.write(line + "\n")
    print(f"[harness] check: {line}")


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "header" and len(argv) == 3:
        table_line(argv[2], TITLES, "w")
        return 0
    if cmd == "row" and len(argv) >= 6:
        fields = make_row(argv[4], argv[5], dict(a.split("=", 1) for a in argv[6:]))
        with open(argv[2], "a", encoding="utf-8") as f:
            f.write("\t".join(fields) + "\n")
        table_line(argv[3], fields, "a")
        return 0
    if cmd == "norm" and len(argv) >= 3:
        text = ""
        for p in argv[3:]:
            try:
                with open(p, encoding="utf-8", errors="replace") as f:
                    text += f.read()
            except OSError:
                pass
        for line in norm_warnings(text, argv[2]):
            print(line)
        return 0
    if cmd == "new" and len(argv) == 4:
        for line in new_lines(lines_of(argv[2]), lines_of(argv[3])):
            print(line)
        return 0
    if cmd == "json" and len(argv) == 12:
        rows_f, out, rc, secs, patch, gate, what, x86, base, series = argv[2:]
        doc = check_json(read_rows(rows_f), int(rc), int(secs), patch, gate, what, x86, base, series)
        with open(out, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
