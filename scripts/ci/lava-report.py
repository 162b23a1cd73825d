#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Record the harness's results as LAVA test cases, in a LAVA test shell.

    lava-report.py <summary.json>        make hw-run's results: one test case
                                         per selftest (pass/fail/skip), its
                                         seconds as the measurement
    lava-report.py <hw-bench.json>       make hw-bench's numbers: one test
                                         case per benchmark metric, its mean
                                         as the measurement, with its unit
    lava-report.py --print FILE          print the lava-test-case commands
                                         instead of running them
    lava-report.py --kcidb <kcidb.json> [--upload URL]
                                         print make hw-run's KCIDB document
                                         into the log (numbered
                                         "KCIDB-JSON i/n" lines: lava.py
                                         kcidb reads them back) and PUT it
                                         to URL (curl -T; a URL ending in /
                                         gets the file's name); its test
                                         case "kcidb" passes when both
                                         worked

lava-test-case is the LAVA test shell's own command (on PATH in a test
shell); each call is one result LAVA records. Exit 0 once the results are
recorded, failed ones included (LAVA's run.sh runs under set -e: the next
step must still run); 2 when the file cannot be read (recorded as a failed
case "harness-report").
"""
import json
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kcidb  # noqa: E402

RESULT = {"pass": "pass", "fail": "fail", "skip": "skip", "error": "fail", "notrun": "skip"}


def case_name(s):
    # LAVA test case names: no spaces, keep it to [A-Za-z0-9_.-]
    return re.sub(r"[^A-Za-z0-9_.-]", "_", s)[:128]


def commands(doc):
    cmds, failed = [], False
    if "details" in doc:  # summary.json
        for d in doc["details"]:
            res = RESULT.get(d.get("result"), "fail")
            failed |= res == "fail"
            cmd = ["lava-test-case", case_name(d["name"]), "--result", res]
            if isinstance(d.get("duration"), (int, float)) and res != "skip":
                cmd += ["--measurement", str(d["duration"]), "--units", "seconds"]
            cmds.append(cmd)
        boot = (doc.get("boot") or {}).get("result")
        if boot and boot != "done":
            failed = True
            cmds.append(["lava-test-case", "boot", "--result", "fail"])
    else:  # make hw-bench's file
        for r in doc.get("results", []):
            vals = [v for v in r.get("values") or [] if isinstance(v, (int, float))]
            name = case_name(f"{r['benchmark']}.{r['metric']}")
            if not vals:
                cmds.append(["lava-test-case", name, "--result", "fail"])
                failed = True
                continue
            cmds.append(["lava-test-case", name, "--result", "pass", "--measurement",
                         f"{statistics.mean(vals):.6g}", "--units", case_name(r.get("unit") or "none")])
        failed |= bool(doc.get("errors"))
    return cmds, failed


def report_kcidb(path, upload):
    """Print the KCIDB document into the log, PUT it to upload (if set);
    one test case "kcidb" for both."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"lava-report.py: no KCIDB document: cannot read {path}: {e}", file=sys.stderr)
        subprocess.call(["lava-test-case", "kcidb", "--result", "fail"])
        return 2
    print(f"lava-report.py: {path}: {len(doc.get('tests', []))} KCIDB tests (lava.py kcidb reads the lines below back)")
    for line in kcidb.chunk_lines(doc):
        print(line)
    ok = True
    if upload:
        rc = subprocess.call(["curl", "-fsS", "--retry", "3", "-T", path, upload])
        print(f"lava-report.py: curl -T {os.path.basename(path)} {upload}: exit {rc}")
        ok = rc == 0
    subprocess.call(["lava-test-case", "kcidb", "--result", "pass" if ok else "fail"])
    return 0


def main():
    args = sys.argv[1:]
    if args[:1] == ["--kcidb"]:
        if len(args) not in (2, 4) or (len(args) == 4 and args[2] != "--upload"):
            print("usage: lava-report.py --kcidb <kcidb.json> [--upload URL]", file=sys.stderr)
            return 2
        return report_kcidb(args[1], args[3] if len(args) == 4 else "")
    dry = bool(args) and args[0] == "--print"
    if dry:
        args = args[1:]
    if len(args) != 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        with open(args[0], encoding="utf-8") as f:
            doc = json.load(f)
        cmds, failed = commands(doc)
    except (OSError, ValueError, KeyError) as e:
        print(f"lava-report.py: cannot read {args[0]}: {e}", file=sys.stderr)
        subprocess.call(["lava-test-case", "harness-report", "--result", "fail"]) if not dry else None
        return 2
    for c in cmds:
        if dry:
            print(" ".join(c))
        else:
            subprocess.call(c)
    if failed:
        print("lava-report.py: failed tests recorded above", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
