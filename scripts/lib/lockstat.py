#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Parse /proc/lock_stat (format version 0.4, Documentation/locking/lockstat.rst).

The only lock_stat parser of the harness. For every lock class it returns the
twelve counters of the class line (a read/write lock has one line per side,
suffixed -R / -W) and the two lists of call sites that follow it: the
contention points (code that had to wait for the lock) and the contending
points (the holder it waited for), each with its count.

Usage:
  lockstat.py FILE                     a table of the classes with contentions
  lockstat.py FILE --json              everything as JSON
  lockstat.py FILE --class NAME ...    only these classes (exact name, without
                                       the leading '&', or a prefix ending in '*')
"""
import argparse
import json
import re
import sys

COLUMNS = ["con-bounces", "contentions", "waittime-min", "waittime-max",
           "waittime-total", "waittime-avg", "acq-bounces", "acquisitions",
           "holdtime-min", "holdtime-max", "holdtime-total", "holdtime-avg"]
CLASS_RE = re.compile(r"^\s*(.+?):\s+((?:-?[\d.]+\s+){11}-?[\d.]+)\s*$")
SITE_RE = re.compile(r"^\s*(.+?)\s+(\d+)\s+\[<([0-9a-fA-F]+)>\]\s+(\S+)\s*$")
SEP_RE = re.compile(r"^\s*-+\s*$")


class LockStatError(Exception):
    pass


def _num(s):
    return float(s) if "." in s else int(s)


def parse(text):
    """Return {class name: {"stats": {...}, "contention_points": [...],
    "contending_points": [...]}}. Read/write classes appear as "name-R" and
    "name-W"; their call sites are attached to both. A name printed twice
    (lock_stat truncates long names) gets " [2]", " [3]", ... appended."""
    lines = text.splitlines()
    if not lines or not lines[0].startswith("lock_stat version"):
        raise LockStatError("not a /proc/lock_stat file (no 'lock_stat version' header)")
    version = lines[0].split()[-1]
    if version != "0.4":
        raise LockStatError(f"lock_stat version {version}: only 0.4 is known")
    classes = {}
    group = []          # class names of the current block (R/W sides)
    section = None      # None, "contention_points" or "contending_points"
    for line in lines[1:]:
        if not line.strip() or line.startswith("....") or line.lstrip().startswith("class name"):
            if line.startswith("...."):
                group, section = [], None
            continue
        if SEP_RE.match(line):
            if group:
                section = "contention_points" if section is None else "contending_points"
            continue
        m = CLASS_RE.match(line)
        if m and section is None:
            name = m.group(1).strip()
            # lock_stat cuts class names at 40 characters, so two classes
            # can print the same name: keep both.
            if name in classes:
                n = 2
                while f"{name} [{n}]" in classes:
                    n += 1
                name = f"{name} [{n}]"
            values = m.group(2).split()
            classes[name] = {"stats": dict(zip(COLUMNS, map(_num, values))),
                             "contention_points": [], "contending_points": []}
            group.append(name)
            continue
        m = SITE_RE.match(line)
        if m and section and group:
            site = {"count": int(m.group(2)), "ip": m.group(3), "symbol": m.group(4)}
            for name in group:
                classes[name][section].append(site)
            continue
        if line.strip():
            raise LockStatError(f"unexpected line: {line.strip()[:100]}")
    return classes


def select(classes, patterns):
    """Classes matching the patterns ('&' optional; 'prefix*' allowed)."""
    out = {}
    for name, val in classes.items():
        bare = name.lstrip("&")
        for p in patterns:
            p = p.lstrip("&")
            if (p.endswith("*") and bare.startswith(p[:-1])) or bare == p:
                out[name] = val
    return out


def site_function(symbol):
    """'__irq_get_desc_lock+0x54/0x90' -> '__irq_get_desc_lock'."""
    return symbol.split("+", 1)[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--class", dest="classes", nargs="*")
    a = ap.parse_args()
    try:
        classes = parse(open(a.file, encoding="utf-8", errors="replace").read())
    except (OSError, LockStatError) as e:
        print(f"lockstat.py: {a.file}: {e}", file=sys.stderr)
        return 1
    if a.classes:
        classes = select(classes, a.classes)
    if a.json:
        json.dump(classes, sys.stdout, indent=1)
        print()
        return 0
    print(f"{'class':<44} {'acquisitions':>12} {'contentions':>11}  contention points")
    for name, c in sorted(classes.items(), key=lambda kv: -kv[1]["stats"]["contentions"]):
        if not a.classes and not c["stats"]["contentions"]:
            continue
        sites = ", ".join(f"{site_function(s['symbol'])} {s['count']}" for s in c["contention_points"])
        print(f"{name:<44} {c['stats']['acquisitions']:>12} {c['stats']['contentions']:>11}  {sites}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
