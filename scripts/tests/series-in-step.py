#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The 6.12 series is the mainline series' backport: every patch of
patches/mainline is backported by exactly one patch of patches/6.12, which
names it ("Backport of mainline-series patch NN/TT ("<subject>")") with its
number, the series' length and its subject as they are today, and has that
subject itself; a 6.12 patch that names none is an upstream backport
("commit <sha> upstream."), a fix of code mainline no longer has (Fixes:),
or says in its message why 6.12 needs it.

    series-in-step.py <mainline series dir> <6.12 series dir>

Prints one line per problem and exits 1 if there is any, 0 otherwise."""
import email
import email.policy
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from harnesslib import series_names  # noqa: E402


def patches(d):
    out = []
    for n in series_names(d):
        with open(os.path.join(d, n), encoding="utf-8") as f:
            msg = email.message_from_file(f, policy=email.policy.default)
        subject = re.sub(r"^\[PATCH[^\]]*\]\s*", "", " ".join(str(msg["Subject"]).split()))
        body = msg.get_payload(decode=False) if not msg.is_multipart() else ""
        out.append((n, subject, body.split("\n---\n", 1)[0]))
    return out


def main(ml_dir, bp_dir):
    ml, bp = patches(ml_dir), patches(bp_dir)
    problems, seen = [], {}
    for name, subject, body in bp:
        flat = " ".join(body.split())
        m = re.search(r'Backport of mainline-series patch (\d+)/(\d+) \("(.+?)"\)\.', flat)
        if not m:
            if (not re.search(r"^commit [0-9a-f]{12,40} upstream\.$", body, re.M) and "6.12" not in flat
                    and not re.search(r"^Fixes: [0-9a-f]{12}", body, re.M)):
                problems.append(f"{name}: names no mainline-series patch and no upstream commit, is no fix "
                                "(Fixes:) and does not say why 6.12 needs it")
            continue
        nn, total, subj = int(m.group(1)), int(m.group(2)), m.group(3)
        if total != len(ml):
            problems.append(f"{name}: says mainline-series patch {nn}/{total}, the mainline series has {len(ml)}")
        if not 1 <= nn <= len(ml):
            problems.append(f"{name}: mainline-series patch {nn} does not exist")
            continue
        if ml[nn - 1][1] != subj:
            problems.append(f"{name}: names \"{subj}\" as mainline-series {nn:02d}, which is \"{ml[nn - 1][1]}\"")
        if subject != ml[nn - 1][1]:
            problems.append(f"{name}: subject \"{subject}\" differs from mainline-series {nn:02d}'s")
        if nn in seen:
            problems.append(f"{name}: mainline-series {nn:02d} is backported by {seen[nn]} already")
        seen[nn] = name
    for i, (name, subject, _) in enumerate(ml, 1):
        if i not in seen:
            problems.append(f"mainline-series {i:02d} ({name}) has no backport in {bp_dir}")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
