#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make help's variable part, from scripts/params.tsv (the one list).

    help.py            the variables, one line each: name, default, targets, what
    help.py --names    the names only, space-separated (the Makefile's check)
"""
import os
import sys


def params(path):
    rows = []
    for line in open(path, encoding="utf-8"):
        if line.startswith("#") or not line.strip():
            continue
        f = line.rstrip("\n").split("\t")
        if len(f) != 4:
            sys.exit(f"{path}: '{line.strip()}': want 4 tab-separated fields, not {len(f)}")
        rows.append(f)
    return rows


def main(argv):
    rows = params(os.path.join(os.path.dirname(os.path.abspath(__file__)), "params.tsv"))
    if argv[1:] == ["--names"]:
        print(" ".join(r[0] for r in rows))
        return
    print("Variables, make <target> NAME=value (name, [default], what it does, (targets that read it)):")
    for name, default, targets, what in rows:
        print(f"  {name:<16} [{default}] {what} ({targets})")


if __name__ == "__main__":
    main(sys.argv)
