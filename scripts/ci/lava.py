#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""LAVA jobs from the project's runs, and LAVA's results back.

    lava.py qemu --run-dir RUN --out DIR [--tests "t1 t2"] [--url-base URL]
        The QEMU TCG job (device type qemu) that boots RUN's kernel and
        initramfs (RUN/artefacts, kept by make run) and runs the named
        entries of RUN's resolved run list (default: all) in a LAVA test
        shell, one test case each. Writes DIR/job.yaml, DIR/device.yaml (the
        qemu device lava-run needs), DIR/dispatcher.yaml, and the artefacts
        under DIR/artefacts named <sha256>-<name>: a lab copies them to its
        file server and passes --url-base https://... (default: file://DIR/artefacts).
    lava.py hw --out FILE --kit-packages "P..." [--base mainline|6.12] [--device-type T]
               [--revision REV] [--project-url URL] [--kcidb-upload URL]
               [--kernel-url URL] [--ramdisk-url URL] [--nfsrootfs-url URL]
        The job template for an arm64 server in a lab (Documentation/ci.rst):
        make hw-run and make hw-bench of base BASE on the device, each
        result a LAVA test case, make hw-run's kcidb.json printed into the
        log (and PUT to the --kcidb-upload URL). Needs no make run.
    lava.py results --log LOG --run-dir RUN [--tests "t1 t2"]
        LAVA's results (lava-run's YAML log) as results.tsv rows
        "lava/<test>", each checked against RUN's own result for the test,
        and one row "lava/equals-make-run" that compares the two sets.
    lava.py kcidb --log LOG [--run-dir RUN] [--tests "t1 t2"] [--job-id N]
                  [--log-url URL] [--origin O] -o kcidb.json
        A LAVA job's results as a KCIDB v5.3 document (kcidb.py --check
        accepts it). The hardware job's log carries make hw-run's own
        kcidb.json (KCIDB-JSON lines): that, with the job's id. The QEMU
        job's: RUN's checkout and build (its kcidb.json's), a test per
        run-list entry with KernelCI's path (kselftest.kvm.kvm_<test>; MISS
        for one LAVA never reported), boot, and the KUnit cases the kernel
        printed at boot (kunit.exec.<suite>.<case>).

The jobs are data: scripts/ci/lava/*.yaml are the templates (${name}
placeholders), and scripts/tests/golden/lava/ holds what they give for
fixed inputs (make harness-test compares).
"""
import argparse
import hashlib
import json
import math
import os
import re
import string
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATES = os.path.join(HERE, "lava")
ROOT = os.path.dirname(os.path.dirname(HERE))


class LavaError(Exception):
    pass


def render(name, values):
    with open(os.path.join(TEMPLATES, name), encoding="utf-8") as f:
        text = f.read()
    try:
        return string.Template(text).substitute(values)
    except (KeyError, ValueError) as e:
        raise LavaError(f"template {name}: {e}") from e


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def place(src, dest_dir, name):
    """src under dest_dir as <sha256>-<name> (a hard link where it can be);
    returns (file name, sha256)."""
    digest = sha256(src)
    fname = f"{digest}-{name}"
    dest = os.path.join(dest_dir, fname)
    if not os.path.exists(dest):
        try:
            os.link(src, dest)
        except OSError:
            import shutil
            shutil.copyfile(src, dest)
    return fname, digest


def read_runlist(path):
    entries = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if parts and parts[0] in ("run", "skip"):
                entries.append(parts)
    return entries


def select(entries, tests):
    names = [e[1] for e in entries]
    if not tests:
        return names
    for t in tests:
        if t not in names:
            raise LavaError(f"'{t}' is not in the run's run list (it has: {' '.join(names)})")
    return tests


BASE_CMDLINE = "console=ttyAMA0 panic=-1 oops=panic"


def qemu_values(meta, entries, tests, kernel_url, kernel_sha, ramdisk_url, ramdisk_sha,
                qemu="qemu-system-aarch64", cmdline=None):
    gic = meta.get("gic") or 3
    machine = ("virt,gic-version=3,its=on,virtualization=on" if gic == 3
               else "virt,gic-version=2,virtualization=on")
    # The run's own command line past boot-qemu.sh's fixed part (nvhe,
    # APPEND), as its summary.json recorded it.
    if cmdline is not None:
        rest = cmdline[len(BASE_CMDLINE):].strip() if cmdline.startswith(BASE_CMDLINE) else cmdline.strip()
        append = rest + " " if rest else ""
    else:
        append = "kvm-arm.mode=nvhe " if meta.get("host_mode") == "nvhe" else ""
    secs = sum(int(e[2]) for e in entries if e[0] == "run" and e[1] in tests)
    test_minutes = math.ceil(secs / 60) + 5
    boot_minutes = 5
    return {
        "job_name": f"kvm-irq-series {meta.get('base', {}).get('name')} {meta.get('run')}: "
                    f"{len(tests)} KVM selftests on the QEMU TCG KVM host",
        "job_minutes": 10 + boot_minutes + test_minutes + 2,
        "boot_minutes": boot_minutes,
        "test_minutes": test_minutes,
        "machine": machine,
        "cpu": "max,pauth-impdef=on",
        "memory": meta.get("mem") or "2G",
        "extra": ", ".join(f"'{x}'" for x in (f"-smp {meta.get('smp') or 2}", "-accel tcg,thread=multi", "-no-reboot")),
        "append": append,
        "revision": meta.get("project_revision", ""),
        "base": f"{meta.get('base', {}).get('name')} {meta.get('base', {}).get('version')}",
        "series_hash": (meta.get("series") or {}).get("hash", ""),
        "run": meta.get("run", ""),
        "kernel_url": kernel_url, "kernel_sha256": kernel_sha,
        "ramdisk_url": ramdisk_url, "ramdisk_sha256": ramdisk_sha,
        "tests": " ".join(tests),
        "qemu": qemu,
    }


def cmd_qemu(a):
    run = a.run_dir
    with open(os.path.join(run, "metadata.json"), encoding="utf-8") as f:
        meta = json.load(f)
    if meta.get("platform", "qemu-tcg") != "qemu-tcg":
        raise LavaError(f"{run} is a {meta.get('platform')} run: the QEMU job needs a make run")
    art = os.path.join(run, "artefacts")
    image, initrd = os.path.join(art, "Image"), os.path.join(art, "initramfs.cpio")
    for p in (image, initrd):
        if not os.path.exists(p):
            raise LavaError(f"{p} not found: the run kept no artefacts (make run keeps them; rerun it)")
    entries = read_runlist(os.path.join(run, "runlist.tsv"))
    tests = select(entries, a.tests.split())
    os.makedirs(os.path.join(a.out, "artefacts"), exist_ok=True)
    kname, ksha = place(image, os.path.join(a.out, "artefacts"), "Image")
    rname, rsha = place(initrd, os.path.join(a.out, "artefacts"), "initramfs.cpio")
    base = a.url_base or "file://" + os.path.abspath(os.path.join(a.out, "artefacts"))
    base = base.rstrip("/")
    cmdline = None
    sp = os.path.join(run, "summary.json")
    if os.path.exists(sp):
        with open(sp, encoding="utf-8") as f:
            cmdline = (json.load(f).get("metadata") or {}).get("kernel_cmdline")
    v = qemu_values(meta, entries, tests, f"{base}/{kname}", ksha, f"{base}/{rname}", rsha, a.qemu, cmdline)
    for name, out in (("qemu-job.yaml", "job.yaml"), ("qemu-device.yaml", "device.yaml")):
        with open(os.path.join(a.out, out), "w", encoding="utf-8") as f:
            f.write(render(name, v))
    with open(os.path.join(a.out, "dispatcher.yaml"), "w", encoding="utf-8") as f:
        f.write("# lava-run's dispatcher configuration: where it downloads the artefacts to.\n"
                f"dispatcher_download_dir: {os.path.abspath(os.path.join(a.out, 'download'))}\n")
    print(f"{len(tests)} tests; job {os.path.join(a.out, 'job.yaml')}")
    return 0


BASES = ("mainline", "6.12")
KIT = "/root/kit"


def hw_values(a, kit=KIT):
    """The hardware template's values; kit is where the job clones the
    project on the device (the unit test runs the steps elsewhere)."""
    if a.base not in BASES:
        raise LavaError(f"base {a.base!r}: use one of {' '.join(BASES)}")
    upload = getattr(a, "kcidb_upload", "") or ""
    if upload and not re.match(r"^https?://\S+$", upload):
        raise LavaError(f"--kcidb-upload {upload!r}: use an http(s):// URL the device can PUT to")
    return {
        "device_type": a.device_type,
        "job_name": f"kvm-irq-series hardware kit ({a.base}) on {a.device_type}",
        "job_minutes": 240, "test_minutes": 220,
        "revision": a.revision, "project_url": a.project_url, "base": a.base, "kit": kit,
        "kernel_url": a.kernel_url, "ramdisk_url": a.ramdisk_url, "nfsrootfs_url": a.nfsrootfs_url,
        "kit_packages": a.kit_packages,
        "kcidb_upload": f" --upload '{upload}'" if upload else "",
    }


def cmd_hw(a):
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(render("hw-job.yaml", hw_values(a)))
    print(f"hardware job template {a.out}")
    return 0


def log_records(path):
    """lava-run's log (and a lab's, lavacli jobs logs --raw): one mapping per
    line ({"dt": ..., "lvl": ..., "msg": ...}); (lvl, msg) of each."""
    out = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not re.search(r'"?lvl"?: "?(results|target)', line):
                continue
            # lava-dispatcher 2023.01 writes each line in YAML's flow
            # style, which is JSON but for the non-specific tag "! " before
            # some quoted numbers; else YAML proper (python3-yaml, a
            # dependency of lava-dispatcher).
            try:
                doc = json.loads(re.sub(r'(?<=[:,\[] )! (?=")', "", line.strip().lstrip("- ")))
            except ValueError:
                try:
                    import yaml
                    doc = yaml.safe_load(line)
                except Exception:  # noqa: BLE001 -- an unreadable line is not a result
                    continue
            rec = doc[0] if isinstance(doc, list) and doc else doc
            if isinstance(rec, dict) and "lvl" in rec and "msg" in rec:
                out.append((rec["lvl"], rec["msg"]))
    return out


def parse_log(path):
    """The results lines of a LAVA log, as dicts."""
    return [m for lvl, m in log_records(path) if lvl == "results" and isinstance(m, dict)]


def cmd_results(a):
    with open(os.path.join(a.run_dir, "summary.json"), encoding="utf-8") as f:
        summary = json.load(f)
    ours = {d["name"]: d["result"] for d in summary.get("details", [])}
    tests = a.tests.split() or list(ours)
    recs = parse_log(a.log)
    job = [r for r in recs if r.get("definition") == "lava" and r.get("case") == "job"]
    cases = {}
    for r in recs:
        if r.get("definition", "").endswith("kselftest-kvm"):
            cases[r.get("case")] = r
    rows, same = [], True
    for t in tests:
        r = cases.get(t)
        mine = ours.get(t, "absent")
        if r is None:
            rows.append((f"lava/{t}", "fail", f"no LAVA test case (make run: {mine})"))
            same = False
            continue
        res = r.get("result")
        meas = r.get("measurement")
        note = f"LAVA {res}{f' in {meas}s' if meas not in (None, '') else ''}; make run: {mine}"
        if res == mine:
            rows.append((f"lava/{t}", "pass" if res in ("pass", "skip") else "fail", note))
        else:
            same = False
            rows.append((f"lava/{t}", "fail", note + " (differs)"))
    jres = job[-1].get("result") if job else "absent"
    rows.append(("lava/job", "pass" if jres == "pass" else "fail",
                 f"lava-run's job result: {jres}{'; ' + str(job[-1].get('error_msg')) if job and job[-1].get('error_msg') else ''}"))
    rows.append(("lava/equals-make-run", "pass" if same else "fail",
                 f"{len(tests)} tests: LAVA's results {'equal' if same else 'differ from'} make run's on the same kernel and initramfs"))
    for r in rows:
        print("\t".join(r))
    return 0 if all(r[1] == "pass" for r in rows) else 1


def lava_job_id(recs, given=""):
    """The job's id: given, else the prefix of its test definitions' uuid."""
    if given:
        return given
    for r in recs:
        uuid = (r.get("extra") or {}).get("uuid") if isinstance(r.get("extra"), dict) else None
        uuid = uuid or r.get("uuid")
        if uuid:
            return str(uuid).split("_", 1)[0]
    return "unknown"


def cmd_kcidb(a):
    """A LAVA job's results as KCIDB (Documentation/ci.rst): the hardware
    job's log carries make hw-run's own document (KCIDB-JSON lines); the
    QEMU job's results become tests of the run it booted (--run-dir)."""
    sys.path.insert(0, HERE)
    import kcidb
    records = log_records(a.log)
    recs = [m for lvl, m in records if lvl == "results" and isinstance(m, dict)]
    console = [m for lvl, m in records if lvl == "target" and isinstance(m, str)]
    job_id = lava_job_id(recs, a.job_id)
    if not re.match(r"^[A-Za-z0-9_.-]+$", job_id):
        raise LavaError(f"job id {job_id!r}: use letters, digits and . _ -")
    if a.log_url and not kcidb.URL_RE.match(a.log_url):
        raise LavaError(f"--log-url {a.log_url!r}: use an http(s):// or file:// URL")
    lava_env = {"lava_job_id": job_id}
    docs = kcidb.from_chunks(console)
    if docs:  # the hardware job: make hw-run's documents, as written
        out = {"version": {"major": 5, "minor": 3}, "checkouts": [], "builds": [], "tests": []}
        for d in docs:
            for kind in ("checkouts", "builds", "tests"):
                for o in d.get(kind, []):
                    if kind == "tests":
                        o.setdefault("environment", {}).setdefault("misc", {}).update(lava_env)
                        if a.log_url:
                            o.setdefault("log_url", a.log_url)
                    if o.get("id") not in {x.get("id") for x in out[kind]}:
                        out[kind].append(o)
    else:
        if not a.run_dir:
            raise LavaError(f"{a.log} has no KCIDB document (KCIDB-JSON lines, the hardware job's): "
                            "name the make run the QEMU job booted with --run-dir")
        own = os.path.join(a.run_dir, "kcidb.json")
        base = kcidb.build_doc(a.run_dir, a.origin, None, "", "")
        if os.path.exists(own):  # the run's own checkout and build (its patchset_hash)
            with open(own, encoding="utf-8") as f:
                mine = json.load(f)
            if mine.get("checkouts") and mine.get("builds"):
                base["checkouts"], base["builds"] = mine["checkouts"][:1], mine["builds"][:1]
        build = base["builds"][0]
        with open(os.path.join(a.run_dir, "metadata.json"), encoding="utf-8") as f:
            meta = json.load(f)
        env = {"comment": f"LAVA job {job_id}, device type qemu: QEMU TCG, {meta.get('host_mode')} host, "
                          f"GICv{meta.get('gic')}, {meta.get('smp')} CPUs, {meta.get('mem')}",
               "compatible": ["linux,dummy-virt"],
               "misc": dict(lava_env, platform="lava-qemu", run=str(meta.get("run") or ""))}
        tests = []

        def add(path, status, key=None, **kw):
            t = {"id": f"{a.origin}:lava-{job_id}.{key or path}", "build_id": build["id"], "origin": a.origin,
                 "path": path, "status": status, "environment": env}
            if a.log_url:
                t["log_url"] = a.log_url
            t.update({k: v for k, v in kw.items() if v is not None})
            tests.append(t)

        login = [r for r in recs if r.get("definition") == "lava"
                 and r.get("case") in ("login-action", "auto-login-action")]
        job = [r for r in recs if r.get("definition") == "lava" and r.get("case") == "job"]
        add("boot", "PASS" if login and login[-1].get("result") == "pass" else "FAIL",
            comment=f"LAVA's {login[-1].get('case')}: {login[-1].get('result')}" if login else "no login: the boot failed")
        planned = [e[1] for e in read_runlist(os.path.join(a.run_dir, "runlist.tsv"))]
        wanted = a.tests.split() or planned
        names = [n for n in planned if n.split("@", 1)[0] in wanted or n in wanted]
        own_tests = kcidb.project_tests(names, None, (meta.get("base") or {}).get("name"))
        cases = {r.get("case"): r for r in recs if str(r.get("definition", "")).endswith("kselftest-kvm")}
        for name in names:
            path = kcidb.test_path(name, own_tests)
            key = path + (f"@{name.split('@', 1)[1]}" if "@" in name else "")
            r = cases.get(name)
            if r is None:
                add(path, "MISS", key=key, misc={"name": name},
                    comment=f"no LAVA test case (the job ended {'incomplete' if not job or job[-1].get('result') != 'pass' else 'before it'})")
                continue
            res = {"pass": "PASS", "fail": "FAIL", "skip": "SKIP"}.get(r.get("result"), "ERROR")
            meas = r.get("measurement")
            try:
                dur = float(meas) if meas not in (None, "") else None
            except ValueError:
                dur = None
            add(path, res, key=key, duration=dur if res != "SKIP" else None, misc={"name": name})
        for parts, result, reason in report_kunit("\n".join(console)):
            add(kcidb.kunit_path(parts), kcidb.STATUS.get(result, "ERROR"), comment=reason or None)
        out = {"version": {"major": 5, "minor": 3}, "checkouts": base["checkouts"], "builds": base["builds"],
               "tests": tests}
    errs = kcidb.check(out) + kcidb.check_links(out)
    if errs:
        raise LavaError("the KCIDB document breaks the schema: " + "; ".join(errs[:5]))
    kcidb.write(out, a.output)
    print(f"{len(out['tests'])} KCIDB tests of LAVA job {job_id}: {a.output}")
    return 0


def report_kunit(text):
    sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))
    import report
    return report.kunit_results(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    q = sub.add_parser("qemu")
    q.add_argument("--run-dir", required=True)
    q.add_argument("--out", required=True)
    q.add_argument("--tests", default="")
    q.add_argument("--url-base", default="")
    q.add_argument("--qemu", default="qemu-system-aarch64")
    h = sub.add_parser("hw")
    h.add_argument("--out", required=True)
    h.add_argument("--device-type", default="LAB-DEVICE-TYPE")
    h.add_argument("--revision", default="main")
    h.add_argument("--project-url", default="https://example.org/kvm-irq-series.git")
    h.add_argument("--kernel-url", default="https://lab.example.org/kernel/Image")
    h.add_argument("--ramdisk-url", default="https://lab.example.org/debian-12-arm64/initrd.img.gz")
    h.add_argument("--nfsrootfs-url", default="https://lab.example.org/debian-12-arm64/rootfs.tar.xz")
    h.add_argument("--kit-packages", required=True, help="the hardware kit's packages (scripts/deps.sh --kit-packages)")
    h.add_argument("--base", default="mainline", help="the base the kit builds its selftests from (make's BASE)")
    h.add_argument("--kcidb-upload", default="", help="an http(s) URL the job PUTs make hw-run's kcidb.json to (curl -T)")
    r = sub.add_parser("results")
    r.add_argument("--log", required=True)
    r.add_argument("--run-dir", required=True)
    r.add_argument("--tests", default="")
    k = sub.add_parser("kcidb")
    k.add_argument("--log", required=True, help="the job's log (lava-run's lava.log.yaml; lavacli jobs logs --raw)")
    k.add_argument("--run-dir", default="", help="the make run whose artefacts the QEMU job booted")
    k.add_argument("--tests", default="", help="the run-list entries the job ran (default: all)")
    k.add_argument("--job-id", default="")
    k.add_argument("--log-url", default="", help="where the lab serves the job's log (the tests' log_url)")
    k.add_argument("--origin", default=os.environ.get("KCIDB_ORIGIN", "kvm_arm64_irq_series"))
    k.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    try:
        return {"qemu": cmd_qemu, "hw": cmd_hw, "results": cmd_results, "kcidb": cmd_kcidb}[a.cmd](a)
    except (LavaError, OSError, ValueError) as e:
        print(f"[harness] lava: ERROR: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
