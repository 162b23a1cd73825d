#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Resolve a run list and its skip lists into the guest's runlist.tsv.

Run list lines:   <test> <timeout-seconds> [arguments...]     (# comments)
Skip list lines:  <test>  # <reason>          (the reason is mandatory)

A test named in a skip list is emitted as "skip"; every other run-list test as
"run". Errors (a skip entry without a reason, a bad timeout, a skip entry for a
test that is not in the run list, a duplicate) name the file and line and exit
with status 2.

With --tree SRC (the kernel tree the selftests are built from), a run-list
test that has no source in SRC's tools/testing/selftests/kvm is emitted as
"skip" when a patch in --patches DIR adds it (the run list is shared by the
base and the patched trees), also "skip" when only another base's series
(--other-series DIR, repeatable) adds it (not ported to this base yet), and
is an error otherwise (a misspelt name).

With --repeat N (N > 1) every test to run is emitted N times, as
"<test>@1" ... "<test>@N", each with its own result (a flaky test shows as
some of them failing); skipped tests once.

With --kernel-lacks DIR (repeatable; a prebuilt kernel under test that
does not carry DIR's series), a test whose source a patch of DIR adds or
changes is emitted as "skip", with the patch named in the reason (a test
the series changes through the selftest library alone still runs), unless
an --any-kernel FILE names it (skip-list format, a reason each: tests the
series adds or changes that run on a kernel without it, skipping what it
lacks, e.g. selftests/any-kernel-6.12.txt).

A test named "<test>+busy" is <test> run while another VM runs on the same
CPU (the selftest its arguments name, with that test's arguments), as on a CI
host shared with other guests (scripts/guest/run-tests.sh); its source is
<test>'s.

Tests named l2-* are nested tests (scripts/guest/l2/run-l2.sh boots an L2
guest in the L1 guest); --no-l2 REASON emits them as "skip" with REASON
(an initramfs without the nested kit).

Usage: runlist.py <runlist> [--skip FILE]... [--only TEST[,TEST...]]
                  [--tree SRC --patches DIR [--other-series DIR]...] [--kernel-lacks DIR]...
                  [--any-kernel FILE]... [--no-l2 REASON] [--repeat N] -o OUT
Prints "<n run> <n skip> <sum of timeouts>" on stdout.
"""
import argparse
import glob
import os
import re
import sys

from harnesslib import ListError, list_entries


class RunListError(Exception):
    pass


def parse_runlist(path):
    tests = []
    try:
        for where, fields in list_entries(path, 3, "<test> <timeout> [args]"):
            name, timeout = fields[0], fields[1]
            args = fields[2] if len(fields) > 2 else ""
            if "\t" in args:
                raise RunListError(f"{where}: arguments of {name} contain a tab")
            tests.append((name, int(timeout), args))
    except ListError as e:
        raise RunListError(str(e)) from None
    return tests


def parse_skiplist(path):
    skips = {}
    with open(path, encoding="utf-8") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            where = f"{path}:{lineno}"
            entry, _, reason = line.partition("#")
            entry, reason = entry.strip(), reason.strip()
            if not entry or len(entry.split()) != 1:
                raise RunListError(f"{where}: expected '<test>  # <reason>', got '{line}'")
            if not reason:
                raise RunListError(f"{where}: skip entry '{entry}' has no reason; "
                                   "write why after '#' (every skip needs one)")
            if entry in skips:
                raise RunListError(f"{where}: {entry} skipped twice")
            skips[entry] = (reason, where)
    return skips


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def patch_adding(name, patches):
    """The first patch of the directory (or directories, a list) that adds
    the test's source, or None."""
    pat = re.compile(r"^\+\+\+ b/tools/testing/selftests/kvm/(.*/)?%s\.[cS]$" % re.escape(name))
    dirs = patches if isinstance(patches, list) else [patches]
    for patch in [p for d in dirs for p in sorted(glob.glob(os.path.join(d or "", "*.patch")))]:
        with open(patch, encoding="utf-8", errors="replace") as f:
            if any(pat.match(line.rstrip("\n")) for line in f):
                return patch
    return None


def missing_from_tree(name, tree, patches, others=()):
    """None if the test's source is in the tree, else the skip reason:
    a patch of this series adds it (not applied here), or only another
    base's series does (not ported to this base yet). Raises RunListError
    if no series adds it (a misspelt name)."""
    kvm = os.path.join(tree, "tools/testing/selftests/kvm")
    for ext in (".c", ".S"):
        if glob.glob(os.path.join(kvm, "**", name + ext), recursive=True):
            return None
    patch = patch_adding(name, patches)
    if patch:
        return f"not in this tree: {os.path.basename(patch)} adds it and is not applied here"
    for other in others:
        patch = patch_adding(name, other)
        if patch:
            return f"not in this base: {os.path.relpath(patch, ROOT)} adds it (not ported)"
    where = " or ".join(patches) if isinstance(patches, list) else patches
    raise RunListError(f"test '{name}' has no source in {kvm} and no patch in "
                       f"{where} adds it (misspelt?)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runlist")
    ap.add_argument("--skip", action="append", default=[])
    ap.add_argument("--only", default="")
    ap.add_argument("--tree", default="")
    ap.add_argument("--patches", action="append", default=[],
                    help="a series directory (repeat it: the series, then the project's own patches)")
    ap.add_argument("--other-series", action="append", default=[], metavar="DIR",
                    help="another base's series: a test only it adds is skipped as not ported")
    ap.add_argument("--kernel-lacks", action="append", default=[], metavar="DIR",
                    help="a series the kernel under test does not carry (a prebuilt kernel): "
                         "a test whose source a patch of DIR adds or changes is skipped")
    ap.add_argument("--any-kernel", action="append", default=[], metavar="FILE",
                    help="tests (skip-list format) that --kernel-lacks does not skip: they run "
                         "on a kernel without the series and skip what it lacks")
    ap.add_argument("--no-l2", default="", metavar="REASON",
                    help="skip the nested (l2-*) tests with this reason")
    ap.add_argument("--repeat", default="1", metavar="N",
                    help="run every test N times (names <test>@1..N)")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    try:
        if not re.fullmatch(r"[1-9][0-9]*", a.repeat):
            raise RunListError(f"REPEAT={a.repeat}: use a whole number of runs, 1 or more")
        repeat = int(a.repeat)
        tests = parse_runlist(a.runlist)
        skips = {}
        for s in a.skip:
            for name, val in parse_skiplist(s).items():
                skips.setdefault(name, val)
        names = {t[0] for t in tests}
        any_kernel = {}
        for f in a.any_kernel:
            any_kernel.update(parse_skiplist(f))
        for name, (_, where) in any_kernel.items():
            if name not in names:
                raise RunListError(f"{where}: entry '{name}' is not in {a.runlist}")
        for name, (_, where) in skips.items():
            if name not in names:
                raise RunListError(f"{where}: skip entry '{name}' is not in {a.runlist}")
        only = [x for x in a.only.replace(",", " ").split() if x]
        for name in only:
            if name not in names:
                raise RunListError(f"ONLY: '{name}' is not in {a.runlist}")
        for name in sorted(names):
            # Nested tests (an L2 guest under Debian's QEMU in the L1
            # guest): their code is the harness's, not the tree's.
            if name.startswith("l2-") and a.no_l2 and name not in skips:
                skips[name] = (a.no_l2, "l2")
        if a.tree:
            for name in sorted(names):
                if name in skips or name.startswith("l2-"):
                    continue
                reason = missing_from_tree(name.removesuffix("+busy"), a.tree, a.patches, a.other_series)
                if reason:
                    skips[name] = (reason, "tree")
        for name in sorted(names):
            # A prebuilt kernel (KERNEL_IMAGE) without the series: the
            # series' own tests test what it lacks.
            if name in skips or name.startswith("l2-") or not a.kernel_lacks or name in any_kernel:
                continue
            patch = patch_adding(name.removesuffix("+busy"), a.kernel_lacks)
            if patch:
                skips[name] = (f"the kernel under test (KERNEL_IMAGE) lacks {os.path.basename(patch)}, "
                               "which adds or changes this test (KERNEL_HAS_SERIES=1 if it carries the series)", "kernel")
    except (OSError, RunListError) as e:
        print(f"[harness] runlist: ERROR: {e}", file=sys.stderr)
        return 2
    nrun = nskip = total = 0
    with open(a.output, "w", encoding="utf-8") as out:
        for name, timeout, args in tests:
            if only and name not in only:
                continue
            if name in skips:
                out.write(f"skip\t{name}\t{skips[name][0]}\n")
                nskip += 1
            else:
                for k in range(1, repeat + 1):
                    rname = f"{name}@{k}" if repeat > 1 else name
                    out.write(f"run\t{rname}\t{timeout}\t{args}\n")
                    nrun += 1
                    total += timeout
    print(nrun, nskip, total)
    return 0


if __name__ == "__main__":
    sys.exit(main())
