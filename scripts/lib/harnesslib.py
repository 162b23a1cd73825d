# SPDX-License-Identifier: GPL-2.0
"""Shared Python helpers of the harness: one owner per format.

read_env()      the env files written by state.sh's write_env (VAR=<%q value>)
list_entries()  the run lists and benchmark lists ("<name> <timeout> ..."
                lines, '#' comments), with their shared checks
series_names()  a quilt series file's patch names, in order
write_junit()   the one JUnit XML writer (report.py per run, collect.py for
                make test)
"""
import os
import shlex


def read_env(path):
    """{VAR: value} of an env file written by state.sh's write_env (bash's
    printf %q quoting, which shlex undoes); {} when the file is missing."""
    env = {}
    if not os.path.exists(path):
        return env
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            k, sep, v = line.partition("=")
            if not sep or not k.isidentifier():
                continue
            words = shlex.split(v) if v else [""]
            env[k] = words[0] if words else ""
    return env


def series_names(series_dir):
    """The patch names of <series_dir>/series, in order (quilt's format:
    '#' comments, blank lines, a name with optional patch options)."""
    names = []
    with open(os.path.join(series_dir, "series"), encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                names.append(line.split()[0])
    return names


class ListError(Exception):
    """A malformed run list or benchmark list line (the message names it)."""


def list_entries(path, nfields, usage):
    """(where, fields) for each entry of a list file: '#' starts a comment,
    blank lines are skipped, fields[0] is a name listed once, fields[1] a
    positive number of seconds; the line is split into at most nfields
    fields (the last keeps its spaces). usage describes the format."""
    seen = {}
    with open(path, encoding="utf-8") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            fields = line.split(None, nfields - 1)
            where = f"{path}:{lineno}"
            if len(fields) < 2:
                raise ListError(f"{where}: expected '{usage}', got '{line}'")
            name, timeout = fields[0], fields[1]
            if not timeout.isdigit() or int(timeout) <= 0:
                raise ListError(f"{where}: timeout of {name} must be a positive number of seconds, "
                                f"got '{timeout}'")
            if name in seen:
                raise ListError(f"{where}: {name} already listed at line {seen[name]}")
            seen[name] = lineno
            yield where, fields


def write_junit(path, suites, name=None):
    """Write JUnit XML: suites is a list of (suite name, cases), each case a
    dict with classname, name, result (pass, fail, error or skip) and
    optionally message, text (the failure's body), time (seconds), out
    (system-out). Counts are per suite and in total."""
    import xml.etree.ElementTree as ET

    def counts(cases):
        return {"tests": str(len(cases)),
                "failures": str(sum(c["result"] == "fail" for c in cases)),
                "errors": str(sum(c["result"] == "error" for c in cases)),
                "skipped": str(sum(c["result"] == "skip" for c in cases))}

    root = ET.Element("testsuites", **({"name": name} if name else {}),
                      **counts([c for _, cases in suites for c in cases]))
    for suite, cases in suites:
        s = ET.SubElement(root, "testsuite", name=suite, **counts(cases))
        for c in cases:
            attrs = {"classname": c["classname"], "name": c["name"]}
            if c.get("time") is not None:
                attrs["time"] = str(c["time"])
            e = ET.SubElement(s, "testcase", **attrs)
            kind = {"fail": "failure", "error": "error", "skip": "skipped"}.get(c["result"])
            if kind:
                el = ET.SubElement(e, kind, message=c.get("message", ""))
                if c.get("text"):
                    el.text = c["text"]
            if c.get("out") is not None:
                ET.SubElement(e, "system-out").text = c["out"]
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)
