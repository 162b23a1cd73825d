#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The modules to load, in load order, for a prebuilt kernel.

    modules.py <lib/modules/release dir> <module>...

Prints, one per line, the path (relative to the directory) of each named
module and of every module it depends on, dependencies first, from the
directory's modules.dep (depmod's format: "<path>: <dep path> ..."). A
module the kernel has built in (modules.builtin) needs nothing and is left
out. Exit 2 with a message when a module is neither.
"""
import os
import sys


def norm(name):
    return name.replace("-", "_")


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    top, wanted = sys.argv[1], sys.argv[2:]
    deps, by_name = {}, {}
    try:
        with open(os.path.join(top, "modules.dep"), encoding="utf-8") as f:
            for line in f:
                path, _, rest = line.partition(":")
                path = path.strip()
                if not path:
                    continue
                deps[path] = rest.split()
                base = os.path.basename(path).split(".ko")[0]
                by_name[norm(base)] = path
        builtin = set()
        bpath = os.path.join(top, "modules.builtin")
        if os.path.exists(bpath):
            with open(bpath, encoding="utf-8") as f:
                builtin = {norm(os.path.basename(line.strip()).split(".ko")[0]) for line in f if line.strip()}
    except OSError as e:
        print(f"[harness] modules: ERROR: {e}", file=sys.stderr)
        return 2
    order, seen = [], set()

    def visit(path):
        if path in seen:
            return
        seen.add(path)
        for d in deps.get(path, []):
            visit(d)
        order.append(path)

    for m in wanted:
        if norm(m) in builtin:
            continue
        path = by_name.get(norm(m))
        if path is None:
            print(f"[harness] modules: ERROR: '{m}' is neither a module in {top}/modules.dep "
                  "nor built in (modules.builtin)", file=sys.stderr)
            return 2
        visit(path)
    print("\n".join(order))
    return 0


if __name__ == "__main__":
    sys.exit(main())
