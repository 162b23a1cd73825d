#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The rules of KCIDB's schema v5.3, for kcidb.py --check (and --merge,
the writer, lava.py kcidb): kcidb-io's kcidb_io/schema/v05_03.py with the
format checkers of jsonschema[format], written out so that no CI needs
kcidb-io (check), and the writer's own rules the schema does not have
(check_links). Split from kcidb.py, which re-exports check and
check_links; the unit tests compare these rules with kcidb-io's on
differential cases (scripts/tests/unit/test_ci.py).
"""
import re

# The schema's rules (kcidb-io, kcidb_io/schema/v05_03.py, with the format
# checkers of jsonschema[format], which kcidb-io requires), written out: the
# type and pattern of every field of checkouts, builds and tests, and the
# formats "uri" (RFC 3986: a scheme, no spaces), "email" (an "@") and
# "date-time" (RFC 3339). Issues and incidents are not written here: only
# their presence as lists is checked.
ORIGIN_RE = re.compile(r"^[a-z0-9_]+$")
ID_RE = re.compile(r"^[a-z0-9_]+:[^\0]*$")
PATH_RE = re.compile(r"^([a-zA-Z0-9_-]+(\.[a-zA-Z0-9_-]+)*)?$")
SHA256_RE = re.compile(r"^[0-9a-f]{64}$")
STATUSES = {"FAIL", "ERROR", "MISS", "PASS", "DONE", "SKIP"}
_URI_CHAR = r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})"
URI_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:(?://(?:%s|[\[\]])*|%s*)(?:#%s*)?$"
                    % (_URI_CHAR, _URI_CHAR, _URI_CHAR))
DATE_RE = re.compile(r"^(\d{4})-(\d\d)-(\d\d)[Tt]([01]\d|2[0-3]):([0-5]\d):([0-5]\d)(\.\d+)?"
                     r"([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$")
COMMIT_RE = re.compile(r"^[0-9a-f]{40}$")
COMPATIBLE_RE = re.compile(r"^[^ \0]+(,[^ \0]+)*$")


def _date(v):
    m = DATE_RE.match(v)
    if not m:
        return False
    import calendar
    y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
    return 1 <= mo <= 12 and 1 <= d <= calendar.monthrange(y, mo)[1]


# Field kinds: "str" (no NUL), "excerpt" (no NUL, at most 16384 characters),
# "uri", "date", "num", "bool", "obj", "files" (a resource list), or a
# compiled pattern the string must match.
_COMMON = {"_timestamp": "date", "id": ID_RE, "origin": ORIGIN_RE, "comment": "str", "start_time": "date",
           "log_url": "uri", "log_excerpt": "excerpt", "misc": "obj"}
FIELDS = {
    "checkouts": ({"id", "origin"}, dict(
        _COMMON, tree_name="str", git_repository_url=re.compile(r"^https://[^\0]*$"),
        git_commit_hash=COMMIT_RE, git_commit_name="str", git_commit_tags="tags", git_commit_message="str",
        git_repository_branch="str", git_repository_branch_tip="bool", patchset_files="files",
        patchset_hash=re.compile(r"^$|^[0-9a-f]{64}$"), message_id="email",
        origin_builds_finish_time="date", origin_tests_finish_time="date", valid="bool")),
    "builds": ({"checkout_id", "id", "origin"}, dict(
        _COMMON, checkout_id=ID_RE, duration="num", architecture=re.compile(r"^[a-z0-9_]*$"), command="str",
        compiler="str", input_files="files", output_files="files", config_name="str", config_url="uri",
        status="status")),
    "tests": ({"build_id", "id", "origin"}, dict(
        _COMMON, build_id=ID_RE, environment="env", path=PATH_RE, status="status", number="number",
        duration="num", input_files="files", output_files="files")),
}
URI_FIELDS = {"git_repository_url", "config_url", "log_url"}
TOP = {"version", "checkouts", "builds", "tests", "issues", "incidents"}


def _value_errors(kind, v, w):
    """The schema's complaints about value v of a field of this kind."""
    def s():
        return isinstance(v, str) and "\0" not in v
    if isinstance(kind, re.Pattern):
        ok = isinstance(v, str) and kind.match(v)
        if ok and w.rsplit(".", 1)[-1] in URI_FIELDS:
            ok = URI_RE.match(v)
        return [] if ok else [f"{w}: {v!r} does not match {kind.pattern}"]
    if kind == "str":
        return [] if s() else [f"{w}: not a string without NUL"]
    if kind == "excerpt":
        return [] if s() and len(v) <= 16384 else [f"{w}: not a string of at most 16384 characters"]
    if kind == "uri":
        return [] if isinstance(v, str) and URI_RE.match(v) else [f"{w}: {v!r} is not a URI (scheme:..., no spaces)"]
    if kind == "email":
        return [] if isinstance(v, str) and "@" in v else [f"{w}: {v!r} is not an e-mail address"]
    if kind == "date":
        return [] if isinstance(v, str) and _date(v) else [f"{w}: {v!r} is not an RFC 3339 date-time"]
    if kind == "num":
        return [] if isinstance(v, (int, float)) and not isinstance(v, bool) else [f"{w}: not a number"]
    if kind == "bool":
        return [] if isinstance(v, bool) else [f"{w}: not true or false"]
    if kind == "obj":
        return [] if isinstance(v, dict) else [f"{w}: not an object"]
    if kind == "status":
        return [] if v in STATUSES else [f"{w}: {v!r} not in {sorted(STATUSES)}"]
    if kind == "tags":
        return [] if isinstance(v, list) and all(isinstance(t, str) and "\0" not in t for t in v) \
            else [f"{w}: not a list of strings"]
    if kind == "files":
        if not isinstance(v, list):
            return [f"{w}: not a list of {{name, url}}"]
        errs = []
        for j, r in enumerate(v):
            if not (isinstance(r, dict) and set(r) == {"name", "url"} and isinstance(r["name"], str)
                    and re.match(r"^[^/\0]+$", r["name"])):
                errs.append(f"{w}[{j}]: not {{name, url}} with a file name")
            elif not (isinstance(r["url"], str) and URI_RE.match(r["url"])):
                errs.append(f"{w}[{j}].url: {r['url']!r} is not a URI")
        return errs
    if kind == "env":
        if not isinstance(v, dict):
            return [f"{w}: not an object"]
        errs = [f"{w}: unknown field '{k}'" for k in sorted(set(v) - {"compatible", "comment", "misc"})]
        if "compatible" in v and not (isinstance(v["compatible"], list) and all(
                isinstance(c, str) and COMPATIBLE_RE.match(c) for c in v["compatible"])):
            errs.append(f"{w}.compatible: not a list of compatible strings (no spaces)")
        errs += _value_errors("str", v["comment"], f"{w}.comment") if "comment" in v else []
        errs += _value_errors("obj", v["misc"], f"{w}.misc") if "misc" in v else []
        return errs
    if kind == "number":
        ok = (isinstance(v, dict) and "value" in v and set(v) <= {"value", "unit", "prefix"}
              and isinstance(v["value"], (int, float)) and not isinstance(v["value"], bool)
              and (not isinstance(v.get("unit", ""), str) or "\0" not in v.get("unit", ""))
              and isinstance(v.get("unit", ""), str) and v.get("prefix", "metric") in ("metric", "binary"))
        return [] if ok else [f"{w}: {v!r} is not {{value: <number>[, unit][, prefix: metric|binary]}}"]
    raise ValueError(kind)


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
    if not (isinstance(v, dict) and v.get("major") == 5 and set(v) <= {"major", "minor"}
            and (("minor" not in v) or (isinstance(v["minor"], int) and not isinstance(v["minor"], bool)
                                        and 0 <= v["minor"] <= 3))):
        errs.append(f"version: {v!r} is not {{major: 5[, minor: 0..3]}}")
    nonull(doc, "doc")
    for kind in ("issues", "incidents"):
        if kind in doc and not isinstance(doc[kind], list):
            errs.append(f"{kind}: not a list")
    for kind, (required, fields) in FIELDS.items():
        objs = doc.get(kind, [])
        if not isinstance(objs, list):
            errs.append(f"{kind}: not a list")
            continue
        for i, o in enumerate(objs):
            w = f"{kind}[{i}]"
            if not isinstance(o, dict):
                errs.append(f"{w}: not an object")
                continue
            for f in sorted(required - set(o)):
                errs.append(f"{w}: missing required '{f}'")
            for f in sorted(o):
                if f not in fields:
                    errs.append(f"{w}: unknown field '{f}'")
                elif o[f] is not None:
                    errs += _value_errors(fields[f], o[f], f"{w}.{f}")
    return errs


def check_links(doc):
    """The writer's own rules, beyond the schema (which allows all of
    these): every id starts with its object's origin, no id twice, every
    checkout_id and build_id names an object of the document, and a number
    only on a test that ran (the schema says it "should only be
    considered" then)."""
    errs, ids = [], {}
    if not isinstance(doc, dict):
        return errs
    for kind in FIELDS:
        ids[kind] = set()
        for i, o in enumerate(doc.get(kind) or []):
            if not isinstance(o, dict) or not isinstance(o.get("id"), str):
                continue
            w = f"{kind}[{i}]"
            if not o["id"].startswith(str(o.get("origin")) + ":"):
                errs.append(f"{w}: id {o['id']!r} does not start with its origin")
            if o["id"] in ids[kind]:
                errs.append(f"{w}: duplicate id {o['id']!r}")
            ids[kind].add(o["id"])
            if "number" in o and o.get("status") not in ("FAIL", "ERROR", "PASS", "DONE"):
                errs.append(f"{w}: a number with status {o.get('status')!r} is not considered (FAIL/ERROR/PASS/DONE)")
    for kind, link, target in (("builds", "checkout_id", "checkouts"), ("tests", "build_id", "builds")):
        for i, o in enumerate(doc.get(kind) or []):
            if isinstance(o, dict) and o.get(link) not in ids.get(target, set()):
                errs.append(f"{kind}[{i}]: {link} {o.get(link)!r} names no {target[:-1]} here")
    return errs
