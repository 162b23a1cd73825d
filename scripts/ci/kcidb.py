#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write a run's results as KCIDB v5.3 JSON, for a CI to submit.

    kcidb.py --run-dir DIR [--patches SERIES_DIR] [--origin NAME] -o kcidb.json
    kcidb.py --check FILE...     check files against the schema's rules
    kcidb.py --merge FILE... -o OUT   one file of several runs' (make test)

The run directory is one make run, make hw-run or make bench left
(metadata.json, and summary.json or a benchmark's ab.json). One checkout
(the base and the series: patchset_hash as KCIDB defines it, over the
series' patch files in order), one build (the kernel: its config fragments,
compiler, Image sha256; a prebuilt kernel says so), and one test per
selftest with the path kselftest.kvm.<name> (KCIDB paths are dot-separated
[A-Za-z0-9_-] words: "arm64/vgic_irq" becomes "arm64_vgic_irq"), plus the
boot; benchmark numbers are tests with status DONE and a "number".

The rules --check applies are those of kcidb-io's schema v5.3
(kcidb_io/schema/v05_03.py), written out here: required fields, the
origin and "<origin>:<id>" patterns, the status enum, the test path
pattern, no nulls, no unknown fields, sha256 patterns, https-only URLs,
number.value numeric. Submission is the operator's (Documentation/ci.rst).
"""
import argparse
import hashlib
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from harnesslib import series_names  # noqa: E402

ORIGIN_RE = re.compile(r"^[a-z0-9_]+$")
ID_RE = re.compile(r"^[a-z0-9_]+:.*$")
PATH_RE = re.compile(r"^([a-zA-Z0-9_-]+(\.[a-zA-Z0-9_-]+)*)?$")
SHA256_RE = re.compile(r"^[0-9a-f]{64}$")
STATUSES = {"FAIL", "ERROR", "MISS", "PASS", "DONE", "SKIP"}
DATE_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d|Z)$")
FIELDS = {
    "checkouts": ({"id", "origin"},
                  {"_timestamp", "id", "origin", "tree_name", "git_repository_url", "git_commit_hash",
                   "git_commit_name", "git_commit_tags", "git_commit_message", "git_repository_branch",
                   "git_repository_branch_tip", "patchset_files", "patchset_hash", "message_id",
                   "comment", "start_time", "origin_builds_finish_time", "origin_tests_finish_time",
                   "log_url", "log_excerpt", "valid", "misc"}),
    "builds": ({"checkout_id", "id", "origin"},
               {"_timestamp", "checkout_id", "id", "origin", "comment", "start_time", "duration",
                "architecture", "command", "compiler", "input_files", "output_files", "config_name",
                "config_url", "log_url", "log_excerpt", "status", "misc"}),
    "tests": ({"build_id", "id", "origin"},
              {"_timestamp", "build_id", "id", "origin", "environment", "path", "comment", "log_url",
               "log_excerpt", "status", "number", "start_time", "duration", "input_files",
               "output_files", "misc"}),
}
TOP = {"version", "checkouts", "builds", "tests", "issues", "incidents"}
# summary.json results -> KCIDB statuses: a harness "error" (the test could
# not run: not built, the guest died) is ERROR, not FAIL (kernelci-pipeline
# #732: a timeout sent as FAIL).
STATUS = {"pass": "PASS", "fail": "FAIL", "skip": "SKIP", "error": "ERROR", "notrun": "MISS"}


def check(doc):
    """The schema's rules; returns a list of problems (empty: valid)."""
    errs = []

    def nonull(obj, where):
        if obj is None:
            errs.append(f"{where}: null (KCIDB allows no nulls; omit the field)")
        elif isinstance(obj, dict):
            for k, v in obj.items():
                nonull(v, f"{where}.{k}")
        elif isinstance(obj, list):
            for i, v in enumerate(obj):
                nonull(v, f"{where}[{i}]")

    if not isinstance(doc, dict):
        return ["top level: not an object"]
    for k in doc:
        if k not in TOP:
            errs.append(f"top level: unknown field '{k}'")
    v = doc.get("version")
    if not (isinstance(v, dict) and v.get("major") == 5 and isinstance(v.get("minor"), int)
            and 0 <= v["minor"] <= 3 and set(v) <= {"major", "minor"}):
        errs.append(f"version: {v!r} is not {{major: 5, minor: 0..3}}")
    nonull(doc, "doc")
    ids = {}
    for kind, (required, allowed) in FIELDS.items():
        objs = doc.get(kind, [])
        if not isinstance(objs, list):
            errs.append(f"{kind}: not a list")
            continue
        ids[kind] = set()
        for i, o in enumerate(objs):
            w = f"{kind}[{i}]"
            if not isinstance(o, dict):
                errs.append(f"{w}: not an object")
                continue
            for f in sorted(required - set(o)):
                errs.append(f"{w}: missing required '{f}'")
            for f in sorted(set(o) - allowed):
                errs.append(f"{w}: unknown field '{f}'")
            if not ORIGIN_RE.match(str(o.get("origin", ""))):
                errs.append(f"{w}: origin {o.get('origin')!r} does not match [a-z0-9_]+")
            for f in ("id", "checkout_id", "build_id"):
                if f in o and not (isinstance(o[f], str) and ID_RE.match(o[f])):
                    errs.append(f"{w}: {f} {o[f]!r} is not '<origin>:<id>'")
            if "id" in o and isinstance(o["id"], str):
                if not o["id"].startswith(str(o.get("origin")) + ":"):
                    errs.append(f"{w}: id {o['id']!r} does not start with its origin")
                if o["id"] in ids[kind]:
                    errs.append(f"{w}: duplicate id {o['id']!r}")
                ids[kind].add(o["id"])
            if "status" in o and o["status"] not in STATUSES:
                errs.append(f"{w}: status {o['status']!r} not in {sorted(STATUSES)}")
            if "path" in o and not (isinstance(o["path"], str) and PATH_RE.match(o["path"])):
                errs.append(f"{w}: path {o['path']!r} is not dot-separated [A-Za-z0-9_-] words")
            if "patchset_hash" in o and not (o["patchset_hash"] == "" or SHA256_RE.match(str(o["patchset_hash"]))):
                errs.append(f"{w}: patchset_hash is not empty or a sha256")
            if "git_repository_url" in o and not str(o["git_repository_url"]).startswith("https://"):
                errs.append(f"{w}: git_repository_url must be https")
            for f in ("start_time", "_timestamp"):
                if f in o and not DATE_RE.match(str(o[f])):
                    errs.append(f"{w}: {f} {o[f]!r} is not an RFC 3339 date-time")
            for f in ("duration",):
                if f in o and not isinstance(o[f], (int, float)):
                    errs.append(f"{w}: {f} is not a number")
            if "misc" in o and not isinstance(o["misc"], dict):
                errs.append(f"{w}: misc is not an object")
            if "architecture" in o and not re.match(r"^[a-z0-9_]*$", str(o["architecture"])):
                errs.append(f"{w}: architecture {o['architecture']!r}")
            for f in ("input_files", "output_files", "patchset_files"):
                for j, r in enumerate(o.get(f, []) or []):
                    if not (isinstance(r, dict) and set(r) == {"name", "url"}
                            and re.match(r"^[^/\0]+$", str(r.get("name", "")))):
                        errs.append(f"{w}.{f}[{j}]: not {{name, url}} with a file name")
            if "number" in o:
                n = o["number"]
                if not (isinstance(n, dict) and isinstance(n.get("value"), (int, float))
                        and not isinstance(n.get("value"), bool)
                        and set(n) <= {"value", "unit", "prefix"}
                        and n.get("prefix", "metric") in ("metric", "binary")):
                    errs.append(f"{w}: number {n!r} is not {{value: <number>[, unit][, prefix]}}")
                if o.get("status") not in ("FAIL", "ERROR", "PASS", "DONE"):
                    errs.append(f"{w}: a number with status {o.get('status')!r} is not considered (FAIL/ERROR/PASS/DONE)")
    # Links inside the document (the schema allows dangling ones; this
    # writer never makes them).
    for i, b in enumerate(doc.get("builds", []) or []):
        if isinstance(b, dict) and b.get("checkout_id") not in ids.get("checkouts", set()):
            errs.append(f"builds[{i}]: checkout_id {b.get('checkout_id')!r} names no checkout here")
    for i, t in enumerate(doc.get("tests", []) or []):
        if isinstance(t, dict) and t.get("build_id") not in ids.get("builds", set()):
            errs.append(f"tests[{i}]: build_id {t.get('build_id')!r} names no build here")
    return errs


# A KCIDB document inside a LAVA job's log: the hardware job prints the
# kcidb.json make hw-run wrote (lava-report.py --kcidb) as compact JSON in
# numbered lines, each short enough for any console; lava.py kcidb puts
# them back together from the log.
CHUNK_MARK = "KCIDB-JSON"
CHUNK_RE = re.compile(r"%s (\d+)/(\d+) (.*)$" % CHUNK_MARK)


def chunk_lines(doc, width=900):
    """The document as "KCIDB-JSON <i>/<n> <part>" lines."""
    text = json.dumps(doc, separators=(",", ":"))
    parts = [text[i:i + width] for i in range(0, len(text), width)] or [""]
    return [f"{CHUNK_MARK} {i}/{len(parts)} {p}" for i, p in enumerate(parts, 1)]


def from_chunks(lines):
    """The documents printed by chunk_lines() among lines (a console's),
    in order; an incomplete one is left out."""
    docs, parts, total = [], {}, 0
    for line in lines:
        m = CHUNK_RE.search(line.rstrip("\r\n"))
        if not m:
            continue
        i, n = int(m.group(1)), int(m.group(2))
        if i == 1:
            parts, total = {}, n
        if n != total:
            continue
        parts[i] = m.group(3)
        if len(parts) == total:
            docs.append(json.loads("".join(parts[k] for k in range(1, total + 1))))
            parts, total = {}, 0
    return docs


def kpath(name):
    """A kselftest name as KCIDB path words: arm64/vgic_irq -> arm64_vgic_irq."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)


def patchset_hash(series_dir):
    """KCIDB's patchset_hash: sha256 over the newline-terminated sha256 of
    each patch, in series order ("" for no patches)."""
    names = series_names(series_dir)
    if not names:
        return ""
    lines = ""
    for n in names:
        with open(os.path.join(series_dir, n), "rb") as p:
            lines += hashlib.sha256(p.read()).hexdigest() + "\n"
    return hashlib.sha256(lines.encode()).hexdigest()


def build_doc(run_dir, origin, series_dir=None):
    ab_data = None
    ab = os.path.join(run_dir, "ab.json")
    if os.path.exists(ab):
        with open(ab, encoding="utf-8") as f:
            ab_data = json.load(f)
    mp = os.path.join(run_dir, "metadata.json")
    if os.path.exists(mp) or ab_data is None:
        with open(mp, encoding="utf-8") as f:
            meta = json.load(f)
    else:
        # make bench: the metadata of its first boot, inside ab.json
        meta = ab_data.get("metadata") or {}
    summary = None
    sp = os.path.join(run_dir, "summary.json")
    if os.path.exists(sp):
        with open(sp, encoding="utf-8") as f:
            summary = json.load(f)
    base, series = meta.get("base", {}), meta.get("series", {})
    # Test ids must not repeat across runs: the run's id, else (make bench,
    # make hw-run set none) its name and start time.
    run_id = meta.get("run_id") or f"{meta.get('run')}-{re.sub(r'[^0-9]', '', str(meta.get('date', '')))[:14]}"
    ck_key = f"{base.get('name')}-{base.get('version')}-{(series.get('hash') or 'none')[:16]}"
    checkout = {
        "id": f"{origin}:{ck_key}",
        "origin": origin,
        "tree_name": str(base.get("name", "")),
        "comment": f"Linux {base.get('version')} ({base.get('origin')}) + {series.get('patches')} patches "
                   f"of the KVM/arm64 interrupt-path series",
        "valid": True,
        "misc": {"base_tarball_sha256": base.get("tarball_sha256") or "",
                 "series_hash": series.get("hash") or "", "project_revision": meta.get("project_revision", "")},
    }
    if series_dir:
        checkout["patchset_hash"] = patchset_hash(series_dir)
    prebuilt = meta.get("prebuilt_kernel")
    art = meta.get("artefacts") or {}
    tool = meta.get("toolchain") or {}
    build = {
        "id": f"{origin}:{ck_key}-{(meta.get('image_sha256') or art.get('image_sha256') or run_id)[:16]}",
        "checkout_id": checkout["id"],
        "origin": origin,
        "architecture": "arm64",
        "config_name": "+".join((meta.get("config") or {}).get("fragments") or []) or "unknown",
        "status": "PASS",
        "misc": {"image_sha256": meta.get("image_sha256") or "",
                 "config_sha256": (meta.get("config") or {}).get("hash") or "",
                 "initramfs_sha256": art.get("initramfs_sha256") or "",
                 "artefacts": art.get("dir") or ""},
    }
    if tool.get("kernel"):
        build["compiler"] = tool["kernel"]
    hardware = meta.get("platform") == "hardware"
    if prebuilt or hardware:
        # A kernel the harness did not build (KERNEL_IMAGE, or the kernel
        # running on an arm64 host): its own checkout, not the series' --
        # the series' checkout only provided the selftests (in misc).
        what = (f"prebuilt kernel {prebuilt.get('origin')}" if prebuilt else
                f"the running kernel {meta.get('uname_r')} of an arm64 host")
        key = (art.get("image_sha256") or meta.get("image_sha256") or "")[:16] or \
            re.sub(r"[^A-Za-z0-9_.+-]", "_", str(meta.get("uname_r") or run_id))
        has = bool(prebuilt and prebuilt.get("has_series"))
        kernel_checkout = {
            "id": f"{origin}:kernel-{key}", "origin": origin, "tree_name": "prebuilt" if prebuilt else "hardware",
            "comment": f"{what}, not built by the harness"
                       f"{'; it carries the series' if has else ''}",
            "valid": True,
            "misc": {"selftests_from": checkout["id"], "selftests_series_hash": series.get("hash") or "",
                     "has_series": has, "project_revision": meta.get("project_revision", "")},
        }
        build["id"] = f"{origin}:kernel-{key}-build"
        build["checkout_id"] = kernel_checkout["id"]
        build["config_name"] = "prebuilt" if prebuilt else "running"
        build["comment"] = (f"{what}; the selftests were built from {checkout['id']}"
                            f"{'' if has or hardware else ' (the tests the series adds or changes are skipped)'}")
        if prebuilt:
            build["misc"]["prebuilt"] = prebuilt.get("origin") or ""
        checkout = kernel_checkout
    env = {"comment": f"{meta.get('platform')}: QEMU {meta.get('qemu') or 'n/a'}, {meta.get('host_mode')} host, "
                      f"GICv{meta.get('gic')}, {meta.get('smp')} CPUs, {meta.get('mem')}"
                      if meta.get("platform") != "hardware" else
                      f"hardware: {meta.get('uname_r')}, {meta.get('cpus')} CPUs",
           "misc": {"platform": meta.get("platform") or ""}}
    tests = []
    start = meta.get("date")

    def add(path, status, **kw):
        t = {"id": f"{origin}:{run_id}.{path}", "build_id": build["id"], "origin": origin,
             "path": path, "status": status, "environment": env}
        if start:
            t["start_time"] = start
        t.update({k: v for k, v in kw.items() if v is not None})
        tests.append(t)

    if summary is not None:
        boot = summary.get("boot") or {}
        bres = boot.get("result")
        add("boot", "PASS" if bres in ("done", None) else "FAIL",
            comment=f"boot: {bres}" if bres else None,
            misc={"splats": len(summary.get("splats") or [])})
        for d in summary.get("details", []):
            name = d.get("name", "")
            suite = "nested" if name.startswith("l2-") else "kvm"
            st = STATUS.get(d.get("result"), "ERROR")
            kw = {"comment": d.get("reason") or None}
            if isinstance(d.get("duration"), (int, float)):
                kw["duration"] = d["duration"]
            add(f"kselftest.{suite}.{kpath(name)}", st, **kw)
    # make bench's A/B results: per benchmark and metric, the on/off ratio
    # (mean over pairs) as the number; the means and interval in misc.
    for r in (ab_data or {}).get("results", []) if isinstance(ab_data, dict) else []:
        val = r.get("ratio_mean")
        if not (r.get("benchmark") and r.get("metric") and isinstance(val, (int, float))):
            continue
        metric = re.sub(r"_+", "_", kpath(r["metric"].lower())).strip("_")[:80]
        add(f"bench.{kpath(r['benchmark'])}.{metric}", "DONE", number={"value": val},
            comment=f"{r['metric']}: on/off ratio, mean of {r.get('pairs')} pairs ({r.get('better')} is better)",
            misc={"unit": r.get("unit") or "", "off_mean": r.get("off_mean"), "on_mean": r.get("on_mean"),
                  "ratio_ci": r.get("ratio_ci") or [], "kind": r.get("kind") or ""})
    return {"version": {"major": 5, "minor": 3}, "checkouts": [checkout], "builds": [build], "tests": tests}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run-dir")
    ap.add_argument("--patches", help="the series directory the run applied (for patchset_hash)")
    ap.add_argument("--origin", default=os.environ.get("KCIDB_ORIGIN", "kvm_arm64_irq_series"))
    ap.add_argument("-o", "--output")
    ap.add_argument("--check", nargs="+", metavar="FILE")
    ap.add_argument("--merge", nargs="+", metavar="FILE", help="merge these files into -o (one checkout/build per id)")
    a = ap.parse_args()
    if a.merge:
        if not a.output:
            ap.error("--merge needs -o")
        out = {"version": {"major": 5, "minor": 3}, "checkouts": [], "builds": [], "tests": []}
        seen = set()
        for p in a.merge:
            with open(p, encoding="utf-8") as f:
                d = json.load(f)
            for kind in ("checkouts", "builds", "tests"):
                for o in d.get(kind, []):
                    if (kind, o.get("id")) not in seen:
                        seen.add((kind, o.get("id")))
                        out[kind].append(o)
        errs = check(out)
        for e in errs:
            print(f"{a.output}: {e}", file=sys.stderr)
        with open(a.output, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
            f.write("\n")
        return 1 if errs else 0
    if a.check:
        bad = 0
        for p in a.check:
            try:
                with open(p, encoding="utf-8") as f:
                    errs = check(json.load(f))
            except (OSError, ValueError) as e:
                errs = [str(e)]
            for e in errs:
                print(f"{p}: {e}", file=sys.stderr)
            bad += bool(errs)
        return 1 if bad else 0
    if not (a.run_dir and a.output):
        ap.error("--run-dir and -o are required (or --check FILE...)")
    if not ORIGIN_RE.match(a.origin):
        print(f"[harness] kcidb: ERROR: KCIDB_ORIGIN={a.origin!r} must match [a-z0-9_]+", file=sys.stderr)
        return 2
    try:
        doc = build_doc(a.run_dir, a.origin, a.patches)
    except (OSError, ValueError, KeyError) as e:
        print(f"[harness] kcidb: ERROR: {e}", file=sys.stderr)
        return 2
    errs = check(doc)
    if errs:
        for e in errs:
            print(f"[harness] kcidb: ERROR: {e}", file=sys.stderr)
        return 2
    with open(a.output, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
