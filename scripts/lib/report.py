#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn one guest run into results: parse the TAP (the only TAP parser of the
harness), scan the console for splats, and write summary.json, junit.xml and a
per-test table.

Usage: report.py --run-dir DIR --meta META.json [--splats PATTERNS] [--out-summary FILE]
The run dir holds tap.txt, console.log, runlist.tsv and boot.env.
Exit status: 0 when every test passed or skipped, the guest finished and the
console has no splat; 1 otherwise.
"""
import argparse
import json
import os
import re
import sys

import harnesslib
from harnesslib import read_env

RESULT_RE = re.compile(r"^(not ok|ok) (\d+) (?:selftests: (\S+): |bench: )?(\S+)(?:\s+#\s*(.*))?$")
# A result with no description, only the directive: "ok 3 # SKIP <name>"
# (the form older kselftest runners and kunit's stored logs print).
BARE_RE = re.compile(r"^(not ok|ok) (\d+)\s+#\s*(SKIP|TODO)\b\s*(.*)$", re.IGNORECASE)


def parse_tap(text):
    """Parse a TAP 13 stream as the kselftest runner prints it (and as
    scripts/guest/run-bench.sh prints it, with "bench: <name>" results).

    Returns (plan, tests) where tests is a list of dicts in stream order:
    name, number, result (pass/fail/skip), reason, output (list of lines),
    duration (seconds or None)."""
    plan = None
    tests = []
    pending = []
    durations = {}
    for raw in text.splitlines():
        line = raw.rstrip("\r")
        if line.startswith("TAP version"):
            continue
        m = re.match(r"^1\.\.(\d+)$", line)
        if m and plan is None:
            plan = int(m.group(1))
            continue
        m = re.match(r"^# harness: duration (\S+) (\d+)s$", line)
        if m:
            durations[m.group(1)] = int(m.group(2))
            continue
        m = BARE_RE.match(line)
        if m:
            ok, num, kind, rest = m.groups()
            name = rest.split()[0] if rest.split() else f"test-{num}"
            tests.append({"name": name, "number": int(num),
                          "result": "skip" if kind.upper() == "SKIP" else ("pass" if ok == "ok" else "fail"),
                          "reason": rest.strip() or kind.upper(), "output": pending, "duration": None})
            pending = []
            continue
        m = RESULT_RE.match(line)
        if m:
            ok, num, _coll, name, directive = m.groups()
            directive = (directive or "").strip()
            if ok == "ok" and directive.upper().startswith("SKIP"):
                result, reason = "skip", directive[4:].strip()
            elif ok == "ok":
                result, reason = "pass", ""
            else:
                result, reason = "fail", directive or "failed"
            tests.append({"name": name, "number": int(num), "result": result,
                          "reason": reason, "output": pending, "duration": None})
            pending = []
            continue
        if line.startswith("#"):
            pending.append(line[2:] if line.startswith("# ") else line[1:])
    for t in tests:
        t["duration"] = durations.get(t["name"])
    return plan, tests


# KUnit's results as a kernel prints them at boot (KTAP: "# Subtest:
# <suite>" at the suite's indentation, its cases' "ok N <case>" lines at the
# same one, the suite's own result four spaces further out), printk's
# "[    1.234567] " prefix or none.
KTAP_STAMP = re.compile(r"^\[\s*\d+\.\d+\] ?")
KTAP_RESULT = re.compile(r"^(not ok|ok) \d+ (.*?)(?:\s+#\s*(.*))?$")


def kunit_results(text):
    """The KUnit test cases in a console, in order: (path, result,
    reason), path [suite, case] (a parameterised case adds its parameter),
    result pass, fail or skip; only the leaves (a suite's or a case's own
    line sums up its children). A suite whose result line never came (the
    kernel stopped in it) is ([suite], "error", reason). Lines that are
    not KUnit's KTAP (the rest of the console, a TAP stream or a
    "# Subtest:" at the top level) are ignored."""
    out, stack = [], []  # stack: (indentation of the children, name)
    for raw in text.splitlines():
        line = KTAP_STAMP.sub("", raw.rstrip("\r"))
        body = line.lstrip(" ")
        indent = len(line) - len(body)
        m = re.match(r"^# Subtest: (.+?)\s*$", body)
        if m and indent >= 4:  # KUnit's suites start one level in
            while stack and stack[-1][0] >= indent:
                stack.pop()
            stack.append((indent, m.group(1)))
            continue
        m = KTAP_RESULT.match(body)
        if not m or not stack:
            continue
        ok, name, directive = m.group(1) == "ok", m.group(2).strip(), (m.group(3) or "").strip()
        if stack[-1] == (indent + 4, name):
            stack.pop()
        elif stack[-1][0] == indent:
            if ok and directive.upper().startswith("SKIP"):
                result, reason = "skip", directive[4:].strip()
            else:
                result, reason = ("pass", "") if ok else ("fail", directive)
            out.append(([n for _, n in stack] + [name], result, reason))
    if stack:
        out.append(([stack[0][1]], "error", "no result line for the suite: the kernel stopped in it"))
    return out


L2_PREFIX = "# l2-console: "


def load_patterns(path):
    deny, allow = [], []
    if not path:
        return deny, allow
    with open(path, encoding="utf-8") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            kind, _, rest = line.partition(" ")
            rest = rest.strip()
            if kind == "deny":
                deny.append(re.compile(rest))
            elif kind == "allow":
                regex, _, reason = rest.partition("  # ")
                if not reason.strip():
                    raise ValueError(f"{path}:{lineno}: allow pattern without a reason")
                allow.append(re.compile(regex.strip()))
            else:
                raise ValueError(f"{path}:{lineno}: expected 'deny' or 'allow', got '{kind}'")
    return deny, allow


def scan_console(text, deny, allow):
    """Return splats: dicts with line number, the matching line and context."""
    lines = [l.rstrip("\r") for l in text.splitlines()]
    splats = []
    last = -100
    for i, line in enumerate(lines):
        if any(p.search(line) for p in deny) and not any(p.search(line) for p in allow):
            # One splat per report: a trace's own lines (Call trace:, ...)
            # right after a reported line belong to it.
            if i - last > 40:
                splats.append({"line": i + 1, "text": line.strip(),
                               "context": lines[max(0, i - 2):i + 25]})
            last = i
    return splats


def planned_tests(path):
    planned = []
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                fields = line.rstrip("\n").split("\t")
                if fields[0] in ("run", "skip"):
                    planned.append(fields[1])
    return planned


def write_junit(path, suite, tests, splats, boot_result):
    """A run as JUnit: one case per test and one for the boot and the splat
    scan (harnesslib.write_junit, the one writer)."""
    cases = [{"classname": f"{suite}.kvm", "name": t["name"], "result": t["result"],
              "message": t["reason"], "time": t["duration"] or 0,
              "text": "\n".join(t["output"][-50:]) if t["result"] == "fail" else None,
              "out": "\n".join(t["output"])} for t in tests]
    console = {"classname": f"{suite}.console", "name": "boot-and-splat-scan", "result": "pass"}
    if boot_result != "done":
        console.update(result="fail", message=f"guest {boot_result}")
    elif splats:
        console.update(result="fail", message=f"{len(splats)} splat(s) on the console",
                       text="\n\n".join("\n".join(sp["context"]) for sp in splats))
    harnesslib.write_junit(path, [(suite, cases + [console])])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run-dir", required=True)
    ap.add_argument("--meta", required=True)
    ap.add_argument("--splats")
    ap.add_argument("--out-summary", action="append", default=[])
    a = ap.parse_args()
    rd = a.run_dir
    with open(a.meta, encoding="utf-8") as f:
        meta = json.load(f)
    tap_text = open(os.path.join(rd, "tap.txt"), encoding="utf-8", errors="replace").read() \
        if os.path.exists(os.path.join(rd, "tap.txt")) else ""
    console = open(os.path.join(rd, "console.log"), encoding="utf-8", errors="replace").read() \
        if os.path.exists(os.path.join(rd, "console.log")) else ""
    boot = read_env(os.path.join(rd, "boot.env"))
    boot_result = boot.get("BOOT_RESULT", meta.get("boot_result", "unknown"))
    plan, tests = parse_tap(tap_text)
    deny, allow = load_patterns(a.splats)
    splats = scan_console(console, deny, allow)
    for sp in splats:
        sp["file"], sp["source"] = "console.log", "l1"
    # The L2 guests' consoles reach the TAP stream as "# l2-console: <line>"
    # (run-l2.sh): the same patterns, so one scanner for every console.
    l2_lines = []
    for n, line in enumerate(tap_text.splitlines(), 1):
        if line.startswith(L2_PREFIX):
            l2_lines.append((n, line[len(L2_PREFIX):]))
    for sp in scan_console("\n".join(t for _, t in l2_lines), deny, allow):
        sp["line"] = l2_lines[sp["line"] - 1][0]
        sp["file"], sp["source"] = "tap.txt", "l2"
        splats.append(sp)

    # Under QEMU the host mode is an input: check that KVM came up in it.
    kvm_line = {"vhe": r"kvm \[\d+\]: VHE mode initialized successfully",
                "nvhe": r"kvm \[\d+\]: Hyp nVHE mode initialized successfully"}.get(meta.get("host_mode"))
    if boot_result == "done" and meta.get("platform") == "qemu-tcg" and kvm_line \
            and not re.search(kvm_line, console):
        boot_result = f"up, but no '{kvm_line}' on the console (KVM not in {meta['host_mode']} mode)"

    # A planned test without a result: the first one did not run to
    # completion (it was running, or next, when the guest died): a failure.
    # The ones after it never started: errors (not run), not failures.
    have = {t["name"] for t in tests}
    first = True
    for name in planned_tests(os.path.join(rd, "runlist.tsv")):
        if name not in have:
            res = "fail" if first else "error"
            why = "no result" if first else "not run"
            tests.append({"name": name, "number": None, "result": res,
                          "reason": f"{why} (guest {boot_result})", "output": [], "duration": None})
            first = False

    totals = {k: sum(t["result"] == k for t in tests) for k in ("pass", "fail", "skip", "error")}
    ok = totals["fail"] == 0 and totals["error"] == 0 and not splats and boot_result == "done"
    summary = {
        "schema": 2,
        "run": meta.get("run"),
        "run_id": meta.get("run_id"),
        "verdict": "pass" if ok else "fail",
        "totals": {"passed": totals["pass"], "failed": totals["fail"], "skipped": totals["skip"],
                   "errors": totals["error"]},
        "tests": {t["name"]: t["result"] for t in tests},
        "details": [{k: t[k] for k in ("name", "number", "result", "reason", "duration")} for t in tests],
        "boot": {"result": boot_result, "seconds": boot.get("BOOT_SECONDS"),
                 "up_seconds": boot.get("BOOT_UP_SECONDS")},
        "splats": [{"file": s["file"], "source": s["source"], "line": s["line"], "text": s["text"]}
                   for s in splats],
        "metadata": meta,
        "files": {"tap": "tap.txt", "console": "console.log", "junit": "junit.xml",
                  "runlist": "runlist.tsv", "qemu_cmd": "qemu.cmd"},
    }
    summary["metadata"]["kernel_cmdline"] = boot.get("KERNEL_CMDLINE", meta.get("kernel_cmdline"))
    for p in [os.path.join(rd, "summary.json")] + a.out_summary:
        with open(p, "w", encoding="utf-8") as f:
            json.dump(summary, f, indent=2, sort_keys=False)
            f.write("\n")
    write_junit(os.path.join(rd, "junit.xml"), meta.get("run", "run"), tests, splats, boot_result)

    # The per-test table.
    rows = [(t["name"], t["result"].upper(), "" if t["duration"] is None else f"{t['duration']}s",
             t["reason"]) for t in tests]
    w = max([len(r[0]) for r in rows] + [4])
    out = [f"{'test':<{w}}  {'result':<6}  {'time':>5}  note", "-" * (w + 30)]
    for name, res, dur, reason in rows:
        if len(reason) > 90:
            reason = reason[:87] + "..."
        out.append(f"{name:<{w}}  {res:<6}  {dur:>5}  {reason}")
    out.append("-" * (w + 30))
    for s in splats:
        where = " (L2 console)" if s["source"] == "l2" else ""
        out.append(f"SPLAT {s['file']}:{s['line']}{where}: {s['text']}")
    if boot_result != "done":
        out.append(f"GUEST: {boot_result}")
    out.append(f"{meta.get('run', 'run')}: {totals['pass']} passed, {totals['fail']} failed, "
               f"{totals['skip']} skipped, {totals['error']} not run, {len(splats)} splats -> "
               f"{summary['verdict'].upper()}")
    table = "\n".join(out)
    with open(os.path.join(rd, "table.txt"), "w", encoding="utf-8") as f:
        f.write(table + "\n")
    print(table)
    return 0 if ok else 1


if __name__ == "__main__":
    # Exit 1 means "a test failed": a report that cannot be made (a file
    # missing or malformed, a bad splat pattern) is a harness error, 2.
    try:
        sys.exit(main())
    except Exception as e:  # noqa: BLE001 -- any crash is the harness's, not a test's
        print(f"[harness] report: ERROR: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(2)
