#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write a run's results as KCIDB v5.3 JSON, for a CI to submit.

    kcidb.py --run-dir DIR [--patches SERIES_DIR] [--origin NAME] [--url-base URL] -o kcidb.json
    kcidb.py --check FILE... [--strict]   check files against the schema's rules
    kcidb.py --merge FILE... -o OUT   one file of several runs' (make test)

The run directory is one make run, make hw-run or make bench left
(metadata.json, and summary.json or a benchmark's ab.json). One checkout:
the base placed upstream (a Debian linux-source X.Y.Z: tree "stable", its
repository, branch linux-X.Y.y and tag vX.Y.Z; the Debian package in
misc) and patchset_hash of the mailed series only (the project's own
patches, applied-series/project/, are counted in misc). One build (the
kernel: its config fragments by name, compiler, Image sha256; a prebuilt
kernel or a hardware host's running kernel is a checkout of its own). One
test per run-list entry with KernelCI's path (kselftest.kvm.kvm_<test>;
the nested tests and the project's own under kvm-irq-series.), the boot,
each KUnit case the kernel printed at boot (kunit.exec.<suite>.<case>);
make bench's ratios are tests with status DONE and a "number". With
--url-base (or KCIDB_URL_BASE, the URL of out/results/<base>/), the logs,
.config and artefacts are named by URL there. Documentation/ci.rst has
the naming and where it comes from.

--check applies the rules of kcidb-io's schema v5.3
(kcidb_io/schema/v05_03.py, with jsonschema[format]'s checkers), written
out here so that no CI needs kcidb-io: required fields, every field's type
and pattern, no nulls, no unknown fields, and the formats uri, email and
date-time. --strict (and the writer, and --merge) add the writer's own
rules, which the schema does not have: ids start with their origin, none
twice, builds and tests link to objects of the document, numbers only on
tests that ran. Submission is the operator's (Documentation/ci.rst).
"""
import argparse
import glob
import hashlib
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))
import report  # noqa: E402
from harnesslib import series_names  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kcidb_schema import (  # noqa: E402,F401 (check, check_links: the checker, re-exported)
    ORIGIN_RE, check, check_links,
)

# summary.json results -> KCIDB statuses: a harness "error" (the test could
# not run: not built, the guest died) is ERROR, not FAIL (kernelci-pipeline
# #732: a timeout sent as FAIL).
STATUS = {"pass": "PASS", "fail": "FAIL", "skip": "SKIP", "error": "ERROR", "notrun": "MISS"}

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


# Test paths as KernelCI names them. KernelCI runs kselftests with Linaro's
# test-definitions (automated/linux/kselftest/parse-output.py), whose case
# name is the runner's "selftests: <collection>: <test>" slugified, and
# files them under its job's kcidb_test_suite, kselftest.<collection>
# (kernelci-pipeline config/jobs.yaml; src/send_kcidb.py joins the path).
# The runner names a test by its kselftest-list.txt entry, the file's base
# name (tools/testing/selftests/lib.mk emit_tests): so
# tools/testing/selftests/kvm/arm64/vgic_irq is kselftest.kvm.kvm_vgic_irq,
# as KernelCI's reports show kselftest.kvm.kvm_arch_timer_edge_cases for
# kvm/aarch64/arch_timer_edge_cases on 6.12.y. KernelCI's KUnit job puts
# kunit.py's suites under its "exec" step: kunit.exec.<suite>.<case>
# (kernelci-pipeline config/runtime/kunit.jinja2). The project's own tests
# are not kselftests and are not KUnit: they go under PROJECT (nested:
# the L2 guests; project: the tests of selftests/project/<base>, not
# mailed; bench: make bench's A/B ratios).
PROJECT = "kvm-irq-series"


def slug(text):
    """Linaro test-definitions' kselftest slugify: runs of characters
    other than [A-Za-z0-9_-] become one "_", no "_" at either end, "_-"
    becomes "__"."""
    text = re.sub(r"\[\d{1,5}\]", "", text)
    text = re.sub(r"(^_|_$)", "", re.sub(r"[^A-Za-z0-9_-]+", "_", text))
    return text.replace("_-", "__")


def test_path(name, project_tests=()):
    """The KCIDB path of a run-list test (REPEAT's "<test>@k" included)."""
    test = name.split("@", 1)[0]
    if test.startswith("l2-"):
        return f"{PROJECT}.nested.{slug(test)}"
    if test.endswith("+busy"):  # a selftest beside another VM on its CPU
        return f"{PROJECT}.busy-cpu.{slug(os.path.basename(test.removesuffix('+busy')))}"
    if test in project_tests or os.path.basename(test) in project_tests:
        return f"{PROJECT}.project.{slug(os.path.basename(test))}"
    return "kselftest.kvm." + slug("kvm: " + os.path.basename(test))


def kunit_path(parts):
    return "kunit.exec." + ".".join(slug(p) or "_" for p in parts)


def project_dir(series_dir, base_name):
    """The project's own patches the run applied: the "project/" part of
    the applied series, else this checkout's selftests/project/<base>."""
    if series_dir and os.path.isdir(os.path.join(series_dir, "project")):
        return os.path.join(series_dir, "project")
    return os.path.join(ROOT, "selftests", "project", str(base_name))


def project_tests(names, series_dir, base_name):
    """The run-list names whose source a patch of the project's own
    creates (a new file: "--- /dev/null"); a test they only change stays
    a kselftest."""
    d = project_dir(series_dir, base_name)
    new = set()
    for patch in sorted(glob.glob(os.path.join(d, "*.patch"))):
        with open(patch, encoding="utf-8", errors="replace") as f:
            text = f.read()
        new.update(re.findall(r"^--- /dev/null\n\+\+\+ b/tools/testing/selftests/kvm/(?:.*/)?([^/\n]+)\.[cS]$",
                              text, re.M))
    return {n for n in names if os.path.basename(n.split("@", 1)[0]) in new}


def patchset_hash(series_dir, names=None):
    """KCIDB's patchset_hash: sha256 over the newline-terminated sha256 of
    each patch, in series order ("" for no patches)."""
    names = series_names(series_dir) if names is None else names
    if not names:
        return ""
    lines = ""
    for n in names:
        with open(os.path.join(series_dir, n), "rb") as p:
            lines += hashlib.sha256(p.read()).hexdigest() + "\n"
    return hashlib.sha256(lines.encode()).hexdigest()


def mailed(series_dir):
    """(the series' own patch names, the project's own): the project's
    patches (selftests/project/<base>: project-only tests, the A/B switch)
    are never mailed; the applied series names them project/<name>."""
    names = series_names(series_dir)
    return [n for n in names if not n.startswith("project/")], [n for n in names if n.startswith("project/")]


# Where a base's source comes from upstream: Debian's linux-source-X.Y is
# the stable release X.Y.Z (Debian's own patches applied, DFSG files
# removed). The commit each release tag names, where the project found it
# (none yet: KCIDB then places the checkout by repository, branch and tag).
STABLE_GIT = "https://git.kernel.org/pub/scm/linux/kernel/git/stable/linux.git"
MAINLINE_GIT = "https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git"
TAG_COMMITS = {}


def place(checkout, base):
    """The upstream tree, repository, branch and tag a base's checkout
    comes from (a Debian package; a git KERNEL_SRC: its commit)."""
    kind, ver = base.get("kind"), str(base.get("version") or "")
    if kind == "git":
        m = re.match(r"^git:([0-9a-f]{40})$", str(base.get("origin") or ""))
        if m:  # a clean git tree: its commit (the repository is unknown)
            checkout["git_commit_hash"] = m.group(1)
        return
    if kind != "debian":
        return
    m = re.match(r"^(\d+)\.(\d+)(?:\.(\d+))?$", ver)
    if not m:
        return
    if m.group(3):
        checkout.update(tree_name="stable", git_repository_url=STABLE_GIT,
                        git_repository_branch=f"linux-{m.group(1)}.{m.group(2)}.y")
    else:
        checkout.update(tree_name="mainline", git_repository_url=MAINLINE_GIT, git_repository_branch="master")
    checkout.update(git_commit_name=f"v{ver}", git_commit_tags=[f"v{ver}"])
    if TAG_COMMITS.get(f"v{ver}"):
        checkout["git_commit_hash"] = TAG_COMMITS[f"v{ver}"]
    pkg = str(base.get("origin") or "").split()
    checkout["misc"].update(debian_package=pkg[0] if pkg else "",
                            debian_version=base.get("package_version") or (pkg[1] if len(pkg) > 1 else ""),
                            upstream=f"v{ver} with Debian's patches (debian/patches) and without the "
                                     f"DFSG-removed files: not byte-identical to the tag")


def no_path(s):
    """A file name given by the user as an absolute path, without the
    path (no runner's directories in a KCIDB document)."""
    s = str(s or "")
    return os.path.basename(s) if s.startswith("/") else s


def run_urls(run_dir, url):
    """{name: url} of the run's files a lab serves under url."""
    files = {"console.log": "console.log", "tap.txt": "tap.txt", "junit.xml": "junit.xml",
             "config": "artefacts/config", "Image": "artefacts/Image", "initramfs.cpio": "artefacts/initramfs.cpio"}
    if not url:
        return {}
    return {n: f"{url}/{rel}" for n, rel in files.items() if os.path.exists(os.path.join(run_dir, rel))}


def build_doc(run_dir, origin, series_dir=None, url_base="", console=None):
    """The KCIDB document of a run directory. url_base: where a lab serves
    the run directory (log, config and output URLs); console: the text to
    read KUnit's results from (default the run's console.log)."""
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
    if console is None:
        cp = os.path.join(run_dir, "console.log")
        console = ""
        if summary is not None and os.path.exists(cp):
            with open(cp, encoding="utf-8", errors="replace") as f:
                console = f.read()
    urls = run_urls(run_dir, url_base.rstrip("/") if url_base else "")
    base, series = meta.get("base", {}), meta.get("series", {})
    # Test ids must not repeat across runs: the run's id, else (make bench,
    # make hw-run set none) its name and start time.
    run_id = meta.get("run_id") or f"{meta.get('run')}-{re.sub(r'[^0-9]', '', str(meta.get('date', '')))[:14]}"
    ck_key = f"{base.get('name')}-{base.get('version')}-{(series.get('hash') or 'none')[:16]}"
    where = (f"Debian's {base.get('origin')}" if base.get("kind") == "debian" else
             "a git tree (KERNEL_SRC)" if base.get("kind") == "git" else "a local tree (KERNEL_SRC)")
    checkout = {
        "id": f"{origin}:{ck_key}",
        "origin": origin,
        "valid": True,
        "misc": {"base": str(base.get("name", "")), "base_tarball_sha256": base.get("tarball_sha256") or "",
                 "series_hash": series.get("hash") or "", "project_revision": meta.get("project_revision", "")},
    }
    place(checkout, base)
    if series_dir:
        own, project = mailed(series_dir)
        checkout["patchset_hash"] = patchset_hash(series_dir, own)
        checkout["comment"] = (f"Linux {base.get('version')} ({where}) + the {len(own)} patches of the "
                               f"KVM/arm64 interrupt-path series"
                               + (f", and the project's {len(project)} own patches (not mailed: "
                                  f"project-only tests; not in patchset_hash)" if project else ""))
        checkout["misc"].update(series_patches=len(own), project_patches=len(project),
                                project_patchset_hash=patchset_hash(series_dir, project))
    else:
        checkout["comment"] = (f"Linux {base.get('version')} ({where}) + {series.get('patches')} patches "
                               f"(the KVM/arm64 interrupt-path series and the project's own)")
    prebuilt = meta.get("prebuilt_kernel")
    art = meta.get("artefacts") or {}
    tool = meta.get("toolchain") or {}
    fragments = [re.sub(r"\.config$", "", os.path.basename(f)) for f in (meta.get("config") or {}).get("fragments") or []]
    build = {
        "id": f"{origin}:{ck_key}-{(meta.get('image_sha256') or art.get('image_sha256') or run_id)[:16]}",
        "checkout_id": checkout["id"],
        "origin": origin,
        "architecture": "arm64",
        "config_name": "+".join(fragments) or "unknown",
        "status": "PASS",
        "misc": {"image_sha256": meta.get("image_sha256") or "",
                 "config_sha256": (meta.get("config") or {}).get("hash") or "",
                 "initramfs_sha256": art.get("initramfs_sha256") or "",
                 "artefacts": art.get("dir") or ""},
    }
    if tool.get("kernel"):
        build["compiler"] = tool["kernel"]
    if "config" in urls:
        build["config_url"] = urls["config"]
    outs = [{"name": n, "url": urls[n]} for n in ("Image", "initramfs.cpio") if n in urls]
    if outs:
        build["output_files"] = outs
    hardware = meta.get("platform") == "hardware"
    if prebuilt or hardware:
        # A kernel the harness did not build (KERNEL_IMAGE, or the kernel
        # running on an arm64 host): its own checkout, not the series' --
        # the series' checkout only provided the selftests (in misc).
        what = (f"prebuilt kernel {no_path(prebuilt.get('origin'))}" if prebuilt else
                f"the running kernel {meta.get('uname_r')} of an arm64 host")
        key = (art.get("image_sha256") or meta.get("image_sha256") or "")[:16] or \
            re.sub(r"[^A-Za-z0-9_.+-]", "_", str(meta.get("uname_r") or run_id))
        has = bool(prebuilt and prebuilt.get("has_series"))
        kernel_checkout = {
            "id": f"{origin}:kernel-{key}", "origin": origin,
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
            build["misc"]["prebuilt"] = no_path(prebuilt.get("origin"))
        checkout = kernel_checkout
    qemu = re.sub(r"^QEMU emulator version ", "", str(meta.get("qemu") or "n/a"))
    env = {"comment": f"{meta.get('platform')}: QEMU {qemu}, {meta.get('host_mode')} host, "
                      f"GICv{meta.get('gic')}, {meta.get('smp')} CPUs, {meta.get('mem')}"
                      if not hardware else
                      f"hardware: {meta.get('uname_r')}, {meta.get('cpus')} CPUs",
           "misc": {"platform": meta.get("platform") or ""}}
    if meta.get("platform") == "qemu-tcg":
        env["compatible"] = ["linux,dummy-virt"]  # QEMU's virt machine
    tests = []
    start = meta.get("date")

    def add(path, status, key=None, **kw):
        t = {"id": f"{origin}:{run_id}.{key or path}", "build_id": build["id"], "origin": origin,
             "path": path, "status": status, "environment": env}
        if start:
            t["start_time"] = start
        t.update({k: v for k, v in kw.items() if v is not None})
        tests.append(t)

    def files(*names):
        return [{"name": n, "url": urls[n]} for n in names if n in urls] or None

    if summary is not None:
        boot = summary.get("boot") or {}
        bres = boot.get("result")
        add("boot", "PASS" if bres in ("done", None) else "FAIL",
            comment=f"boot: {bres}" if bres else None, log_url=urls.get("console.log"),
            misc={"splats": len(summary.get("splats") or [])})
        details = summary.get("details", [])
        own = project_tests([d.get("name", "") for d in details], series_dir, base.get("name"))
        for d in details:
            name = d.get("name", "")
            st = STATUS.get(d.get("result"), "ERROR")
            path = test_path(name, own)
            kw = {"comment": d.get("reason") or None, "log_url": urls.get("tap.txt"),
                  "output_files": files("console.log", "junit.xml"), "misc": {"name": name}}
            if isinstance(d.get("duration"), (int, float)):
                kw["duration"] = d["duration"]
            add(path, st, key=path + (f"@{name.split('@', 1)[1]}" if "@" in name else ""), **kw)
        for parts, result, reason in report.kunit_results(console):
            add(kunit_path(parts), STATUS.get(result, "ERROR"), comment=reason or None,
                log_url=urls.get("console.log"))
    # make bench's A/B results: per benchmark and metric, the on/off ratio
    # (mean over pairs) as the number; the means and interval in misc.
    for r in (ab_data or {}).get("results", []) if isinstance(ab_data, dict) else []:
        val = r.get("ratio_mean")
        if not (r.get("benchmark") and r.get("metric") and isinstance(val, (int, float))):
            continue
        metric = re.sub(r"_+", "_", slug(r["metric"].lower())).strip("_")[:80]
        add(f"{PROJECT}.bench.{slug(r['benchmark'])}.{metric}", "DONE", number={"value": val},
            comment=f"{r['metric']}: on/off ratio, mean of {r.get('pairs')} pairs ({r.get('better')} is better)",
            misc={"unit": r.get("unit") or "", "off_mean": r.get("off_mean"), "on_mean": r.get("on_mean"),
                  "ratio_ci": r.get("ratio_ci") or [], "kind": r.get("kind") or ""})
    return {"version": {"major": 5, "minor": 3}, "checkouts": [checkout], "builds": [build], "tests": tests}


URL_RE = re.compile(r"^(https?|file)://\S+$")


def url_for(run_dir, given):
    """The URL a lab serves run_dir under: given, else KCIDB_URL_BASE (the
    URL of out/results/<base>/) and the run directory's name; "" for none."""
    if given:
        url = given
    elif os.environ.get("KCIDB_URL_BASE"):
        url = os.environ["KCIDB_URL_BASE"].rstrip("/") + "/" + os.path.basename(os.path.normpath(run_dir))
    else:
        return ""
    if not URL_RE.match(url):
        raise ValueError(f"URL base {url!r}: use https://<file server>/<dir> (or http://, file://)")
    return url.rstrip("/")


def write(doc, path):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run-dir")
    ap.add_argument("--patches", help="the series directory the run applied (for patchset_hash)")
    ap.add_argument("--origin", default=os.environ.get("KCIDB_ORIGIN", "kvm_arm64_irq_series"))
    ap.add_argument("--url-base", default="", help="the URL a lab serves the run directory under "
                    "(default: $KCIDB_URL_BASE/<run directory's name>)")
    ap.add_argument("-o", "--output")
    ap.add_argument("--check", nargs="+", metavar="FILE", help="check files against the schema's rules")
    ap.add_argument("--strict", action="store_true", help="with --check: also the writer's own rules (check_links)")
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
        errs = check(out) + check_links(out)
        for e in errs:
            print(f"{a.output}: {e}", file=sys.stderr)
        write(out, a.output)
        return 1 if errs else 0
    if a.check:
        bad = 0
        for p in a.check:
            try:
                with open(p, encoding="utf-8") as f:
                    doc = json.load(f)
                errs = check(doc) + (check_links(doc) if a.strict else [])
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
        doc = build_doc(a.run_dir, a.origin, a.patches, url_for(a.run_dir, a.url_base))
    except (OSError, ValueError, KeyError) as e:
        print(f"[harness] kcidb: ERROR: {e}", file=sys.stderr)
        return 2
    errs = check(doc) + check_links(doc)
    if errs:
        for e in errs:
            print(f"[harness] kcidb: ERROR: {e}", file=sys.stderr)
        return 2
    write(doc, a.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
