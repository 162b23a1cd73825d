#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The module directories a series can break at modpost, for
scripts/modexport.sh (Documentation/check-export.rst, "Module exports").

    modexport.py plan <base tree> <patched tree> <series dir> <.config> <plan.json>
    modexport.py symvers <plan.json> <Debian's Module.symvers> <out Module.symvers>

plan: what the series changes, found by comparing every file its patches
name in the two trees:
  seeds     the identifiers that a changed header line defines: a macro,
            an inline function or a prototype whose span holds a changed
            line (comment lines do not count), and the argument of a
            top-level declarator macro (DECLARE_STATIC_KEY_FALSE(x): x);
            and the names of exports the series removes.
  closure   the seeds, then every macro or inline function of a header
            (include/, arch/arm64/include/) that uses one of them, to a
            fixed point (vcpu_is_preempted -> owner_on_cpu).
  modules   the Kbuild directories whose module objects (=m in the config)
            contain a .c file that uses an identifier of the closure or
            that the series changes, or a header beside them that uses one.
  exports   EXPORT_SYMBOL*s the series adds and removes.
symvers: Debian's Module.symvers without the modules the guard rebuilds and
without the removed exports, plus the added exports (vmlinux, or the
module that a modular file belongs to).
Exits 0; problems are reported by the caller from plan.json."""
import difflib
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harnesslib import series_names  # noqa: E402

C_WORDS = {"if", "for", "while", "switch", "return", "sizeof", "typeof", "__typeof__",
           "defined", "do", "else", "case", "goto", "asm", "__asm__", "volatile",
           "__attribute__", "alignof", "_Static_assert", "static_assert"}
EXPORT_RE = re.compile(r"^\s*EXPORT_SYMBOL(_GPL)?(?:_NS(_GPL)?)?\s*\(\s*(\w+)\s*(?:,\s*\"?([\w.]*)\"?\s*)?\)")
IDENT_RE = re.compile(r"[A-Za-z_]\w*")
HEADER_DIRS = ("include", "arch/arm64/include")
# Not built for arm64 modules: other architectures, user-space and docs.
SKIP_TOP = {"Documentation", "tools", "scripts", "samples", "usr", "LICENSES", ".pc"}


def changed_files(series_dir):
    files = []
    for name in series_names(series_dir):
        with open(os.path.join(series_dir, name), encoding="utf-8", errors="replace") as f:
            for line in f:
                m = re.match(r"^\+\+\+ b/(\S+)", line)
                if m and m.group(1) not in files:
                    files.append(m.group(1))
    return files


def read_lines(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().split("\n")
    except FileNotFoundError:
        return []


def is_comment(line):
    s = line.strip()
    return s == "" or s.startswith(("/*", "*", "//"))


def changed_new_lines(old, new):
    """Line numbers (0-based) of the new file that the change touches,
    comment lines left out; the lines removed from the old file."""
    touched, removed = set(), []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        removed.extend(old[i1:i2])
        if j2 > j1:
            touched.update(j for j in range(j1, j2) if not is_comment(new[j]))
        elif any(not is_comment(x) for x in old[i1:i2]):
            touched.update(j for j in (j1 - 1, j1) if 0 <= j < len(new))
    return touched, removed


def strip_code(line, state):
    """The line without comments and string literals; state["c"] carries
    an open /* comment over lines."""
    out, i, n = [], 0, len(line)
    while i < n:
        if state["c"]:
            k = line.find("*/", i)
            if k < 0:
                return "".join(out)
            state["c"], i = False, k + 2
        elif line.startswith("/*", i):
            state["c"], i = True, i + 2
        elif line.startswith("//", i):
            break
        elif line[i] in "\"'":
            q, i = line[i], i + 1
            while i < n and line[i] != q:
                i += 2 if line[i] == "\\" else 1
            i += 1
        else:
            out.append(line[i])
            i += 1
    return "".join(out)


def definitions(lines):
    """(name, first, last, kind, tokens) of the macros ('macro'), functions
    with a body ('inline') and prototypes or declarator-macro lines
    ('decl') at file scope."""
    defs, state, depth, cur, i, n = [], {"c": False}, 0, None, 0, len(lines)
    while i < n:
        line = lines[i]
        m = re.match(r"\s*#\s*define\s+(\w+)", line)
        if m and not state["c"] and depth == 0:
            j, body = i, []
            while True:
                body.append(strip_code(lines[j], {"c": False}))
                if not lines[j].rstrip().endswith("\\") or j + 1 >= n:
                    break
                j += 1
            toks = set(IDENT_RE.findall(" ".join(body))) - {m.group(1), "define"}
            defs.append((m.group(1), i, j, "macro", toks))
            i = j + 1
            continue
        code = strip_code(line, state)
        if code.lstrip().startswith("#"):
            i += 1
            continue
        if depth == 0 and cur is None and code.strip():
            m = re.search(r"\b([A-Za-z_]\w*)\s*\(", code)
            if m and m.group(1) not in C_WORDS:
                cur = [m.group(1), i, set(), False]
                # DECLARE_FOO(x); at file scope: x is what is declared.
                d = re.match(r"\s*([A-Z][A-Z0-9_]+)\s*\(\s*(\w+)", code)
                if d and d.group(1) == m.group(1):
                    cur[0] = d.group(2)
        if cur is not None:
            cur[2].update(IDENT_RE.findall(code))
            if "{" in code:
                cur[3] = True
        depth += code.count("{") - code.count("}")
        if depth < 0:
            depth = 0
        if cur is not None and depth == 0 and (";" in code or "}" in code):
            defs.append((cur[0], cur[1], i, "inline" if cur[3] else "decl", cur[2] - {cur[0]}))
            cur = None
        i += 1
    return defs


def grep_words(root, words, paths, includes):
    """Files (relative to root) under paths that use one of words."""
    if not words:
        return []
    pattern = r"\b(" + "|".join(sorted(words)) + r")\b"
    args = ["grep", "-rlE", pattern] + ["--include=" + x for x in includes] + \
        ["--exclude-dir=" + d for d in (".pc", ".git")] + paths
    r = subprocess.run(args, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       text=True, check=False)
    return sorted(set(r.stdout.split()))


def closure(root, seeds, max_ids):
    """The seeds and every header macro or inline that uses one, to a fixed
    point; (identifiers, {identifier: the one it was reached from, header})."""
    ids, via, frontier = set(seeds), {}, set(seeds)
    dirs = [d for d in HEADER_DIRS if os.path.isdir(os.path.join(root, d))]
    while frontier and len(ids) <= max_ids:
        new = set()
        for h in grep_words(root, frontier, dirs, ["*.h"]):
            for name, _a, _b, kind, toks in definitions(read_lines(os.path.join(root, h))):
                hit = toks & frontier
                if kind != "decl" and hit and name not in ids and name not in C_WORDS:
                    new.add(name)
                    via[name] = [sorted(hit)[0], h]
        ids |= new
        frontier = new
    return ids, via


def read_config(path):
    cfg = {}
    for line in read_lines(path):
        m = re.match(r"^(CONFIG_\w+)=(.*)$", line)
        if m:
            cfg[m.group(1)] = m.group(2).strip('"')
    return cfg


def kbuild_assignments(path):
    """[(target, gate, [objects])] of a Kbuild makefile: target-gate += objs,
    with gate 'y', 'm', 'objs' or a CONFIG_ name."""
    out, text = [], "\n".join(read_lines(path)).replace("\\\n", " ")
    for line in text.split("\n"):
        line = line.split("#", 1)[0]
        m = re.match(r"^\s*([\w/.-]+?)-(\$\((CONFIG_\w+)\)|y|m|objs)\s*[:+]?=\s*(.*)$", line)
        if m:
            gate = m.group(3) or m.group(2)
            out.append((m.group(1), gate, m.group(4).split()))
    return out


def gate_value(gate, cfg):
    if gate in ("y", "m", "objs"):
        return "y" if gate == "objs" else gate
    return cfg.get(gate, "n")


def module_of(root, relfile, cfg):
    """(module directory, module object, how) of a .c file: the nearest
    makefile up the tree that lists its object, followed through composite
    objects to an obj- line. how: 'm' (a module), 'y' (built in), 'n' (not
    built), '?' (not found)."""
    obj = relfile[:-2] + ".o" if relfile.endswith(".c") else None
    d = os.path.dirname(relfile)
    while d:
        mk = next((os.path.join(root, d, f) for f in ("Kbuild", "Makefile")
                   if os.path.isfile(os.path.join(root, d, f))), None)
        if mk and obj:
            rel = os.path.relpath(obj, d)
            assigns = kbuild_assignments(mk)
            want, seen, how = {rel}, set(), None
            while want and how is None:
                w = want.pop()
                seen.add(w)
                for target, gate, objs in assigns:
                    if w not in objs:
                        continue
                    v = gate_value(gate, cfg)
                    if target == "obj":
                        if v in ("y", "m"):
                            how = (d, w, v)
                            break
                        continue
                    if v in ("y", "m") and target + ".o" not in seen:
                        want.add(target + ".o")
            if how:
                return how
            if any(rel in objs for _t, _g, objs in assigns):
                return (d, rel, "n")
        elif mk and not obj:
            # A header: the directory's modules, if it builds any.
            ms = [objs for t, g, objs in kbuild_assignments(mk) if t == "obj" and gate_value(g, cfg) == "m"]
            return (d, "", "m" if any(o.endswith(".o") for x in ms for o in x) else "n")
        d = os.path.dirname(d)
    return (os.path.dirname(relfile), obj or "", "?")


def plan(base, patched, series_dir, config, out, max_ids=200):
    cfg = read_config(config)
    files = changed_files(series_dir)
    seeds, added, removed, headers, cfiles = {}, [], [], [], []
    for f in files:
        old, new = read_lines(os.path.join(base, f)), read_lines(os.path.join(patched, f))
        touched, gone = changed_new_lines(old, new)
        newset = set(new)
        for j in sorted(touched):
            m = EXPORT_RE.match(new[j])
            if m and new[j] not in set(old):
                added.append({"name": m.group(3), "gpl": bool(m.group(1) or m.group(2)),
                              "ns": m.group(4) or "", "file": f})
        for x in gone:
            m = EXPORT_RE.match(x)
            if m and x not in newset:
                removed.append({"name": m.group(3), "file": f})
                seeds[m.group(3)] = f + " (export removed)"
        top = f.split("/", 1)[0]
        if top in SKIP_TOP or (top == "arch" and not f.startswith("arch/arm64/")):
            continue
        if f.endswith(".h"):
            if touched:
                headers.append(f)
            for name, a, b, kind, toks in definitions(new):
                if kind == "macro" and not toks and re.fullmatch(r"_*[A-Z0-9_]+_H_*", name):
                    continue  # an include guard
                if any(a <= j <= b for j in touched) and name not in C_WORDS:
                    seeds.setdefault(name, f)
        elif f.endswith(".c") and touched:
            cfiles.append(f)
    ids, via = closure(patched, set(seeds), max_ids)
    search = sorted(d for d in os.listdir(patched)
                    if os.path.isdir(os.path.join(patched, d)) and d not in SKIP_TOP and d != "arch")
    search.append("arch/arm64")
    users = grep_words(patched, ids, search, ["*.c", "*.h"]) if len(ids) <= max_ids else []
    users = [u for u in users if not u.startswith(tuple(d + "/" for d in HEADER_DIRS))]
    modules, builtin = {}, {}
    for u in sorted(set(users) | set(cfiles)):
        d, obj, how = module_of(patched, u, cfg)
        why = "changed by the series" if u in cfiles else "uses " + ", ".join(
            sorted(w for w in ids if re.search(r"\b%s\b" % w, "\n".join(read_lines(os.path.join(patched, u))))))
        entry = {"file": u, "object": obj, "why": why}
        if how == "m":
            modules.setdefault(d, []).append(entry)
        else:
            entry["how"] = {"y": "built in", "?": "no makefile lists it",
                            "n": "its directory builds no module" if u.endswith(".h") else "not built in this config"}[how]
            builtin.setdefault(d, []).append(entry)
    for a in added:
        d, obj, how = module_of(patched, a["file"], cfg) if a["file"].endswith(".c") else ("", "", "y")
        a["module"] = "vmlinux" if how != "m" else os.path.join(d, obj[:-2])
        a["rebuilt"] = how == "m" and d in modules
    result = {"changed_files": files, "headers": headers, "changed_c": cfiles,
              "seeds": seeds, "closure": sorted(ids), "via": via,
              "too_wide": len(ids) > max_ids, "max_ids": max_ids,
              "modules": modules, "not_modules": builtin,
              "exports_added": added, "exports_removed": removed}
    with open(out, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1, sort_keys=True)
    return 0


def symvers(plan_file, debian, out):
    with open(plan_file, encoding="utf-8") as f:
        p = json.load(f)
    dirs = tuple(d + "/" for d in p["modules"])
    gone = {r["name"] for r in p["exports_removed"]}
    keep = []
    for line in read_lines(debian):
        cols = line.split("\t")
        if len(cols) < 4:
            continue
        if cols[2].startswith(dirs) or (cols[1] in gone and cols[2] == "vmlinux"):
            continue
        keep.append(line)
    have = {line.split("\t")[1] for line in keep}
    for a in p["exports_added"]:
        if a["rebuilt"] or a["name"] in have:
            continue
        kind = "EXPORT_SYMBOL_GPL" if a["gpl"] else "EXPORT_SYMBOL"
        keep.append("\t".join(["0x00000000", a["name"], a["module"], kind, a["ns"]]))
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(keep) + "\n")
    return 0


def main(argv):
    if len(argv) == 6 and argv[0] == "plan":
        return plan(*argv[1:])
    if len(argv) == 4 and argv[0] == "symvers":
        return symvers(*argv[1:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
