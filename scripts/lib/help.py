#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make help's variable part, from scripts/lib/params.tsv (the one list).

    help.py            the variables, one line each: name, default, targets, what
    help.py --names    the names only, space-separated (the Makefile's check)
    help.py --repro-vars TARGET
                       the variables of TARGET's reproducer (repro.sh's
                       reproducer): those TARGET reads that can change a
                       result, in the table's order
"""
import os
import sys


def params(path):
    rows = []
    for line in open(path, encoding="utf-8"):
        if line.startswith("#") or not line.strip():
            continue
        f = line.rstrip("\n").split("\t")
        if len(f) != 5 or f[3] not in ("repro", "-"):
            sys.exit(f"{path}: '{line.strip()}': want 5 tab-separated fields "
                     f"(name, default, targets, repro or -, what), not {len(f)}")
        rows.append(f)
    return rows


def main(argv):
    rows = params(os.path.join(os.path.dirname(os.path.abspath(__file__)), "params.tsv"))
    if argv[1:] == ["--names"]:
        print(" ".join(r[0] for r in rows))
        return
    if len(argv) == 3 and argv[1] == "--repro-vars":
        print(" ".join(r[0] for r in rows if r[3] == "repro" and
                       (argv[2] in r[2].split() or "all" in r[2].split())))
        return
    print("Variables, make <target> NAME=value (name, [default], what it does, (targets that read it)):")
    for name, default, targets, _repro, what in rows:
        print(f"  {name:<16} [{default}] {what} ({targets})")


if __name__ == "__main__":
    main(sys.argv)
