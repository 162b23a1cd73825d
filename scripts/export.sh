#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make export: the series as mails ready for git send-email.
#
# The patches in patches/ carry a neutral project identity. Here they are
# applied with git am to a git repository of the base tree, re-authored to
# the sender (git config user.name / user.email, read in this project's
# directory, so a repository, global or GIT_CONFIG_* setting all work)
# with the sender's Signed-off-by replacing the project's, and written with
# git format-patch plus a cover letter:
#   $OUT/export/0000-cover-letter.patch   body from patches/cover-letter.tmpl,
#                                          results from the latest bench.json
#   $OUT/export/NNNN-*.patch               [PATCH n/N]
#   $OUT/export/series.mbox                the patches (not the cover letter) in
#                                          one mbox, for git am / b4 am -m
# Then it proves the mails are git am-able: a fresh checkout of the base
# commit, git am of the exported mails, and the resulting tree compared,
# file by file (git tree hashes), with the quilt-applied work tree.
#
#   PATCHES=dir          series (default patches/)
#   RESULTS="file..."    results JSON(s) (default: $RESULTS_DIR/bench/bench.json,
#                        else Documentation/results/bench*.json; with several,
#                        each benchmark comes from the newest file that has it)
#   EXPORT_PREFIX=...    subject prefix (default PATCH; e.g. "RFC PATCH")
#   EXPORT_VERSION=N     series version (v2, v3...: -v N)
#   EXPORT_DIR=dir       output (default $OUT/export)
. "$(dirname "$0")/lib.sh"
phase_start export
lock_out
S=$HARNESS_ROOT/scripts
need_tools git python3

PATCHES=$(cd "$PATCHES" 2>/dev/null && pwd) || die "PATCHES=$PATCHES does not exist"
# Relative paths are relative to where make export was started: resolved
# now, before any cd.
EXPORT_DIR=$(abspath "${EXPORT_DIR:-$OUT/export}")
safe_rm_target EXPORT_DIR "$EXPORT_DIR"
tmpl=${COVER_TEMPLATE:-$PATCHES/cover-letter.tmpl}
[ -f "$tmpl" ] || tmpl=$HARNESS_ROOT/patches/cover-letter.tmpl
tmpl=$(abspath "$tmpl")
[ -f "$tmpl" ] || die "COVER_TEMPLATE=$tmpl not found"
if [ -z "${RESULTS:-}" ]; then
	RESULTS=$RESULTS_DIR/bench/bench.json
	[ -f "$RESULTS" ] || RESULTS=$(ls "$HARNESS_ROOT"/Documentation/results/bench*.json 2>/dev/null | tr '\n' ' ')
fi
r=""
for f in $RESULTS; do r="$r $(abspath "$f")"; done
RESULTS=${r# }
for r in $RESULTS; do
	[ -f "$r" ] || die "no results JSON ($r)" "run make bench, or set RESULTS=<bench.json ...>"
done
[ -n "${RESULTS// /}" ] || die "no results JSON" "run make bench, or set RESULTS=<bench.json ...>"

name=$(cd "$HARNESS_ROOT" && git config user.name || true)
email=$(cd "$HARNESS_ROOT" && git config user.email || true)
[ -n "$name" ] && [ -n "$email" ] ||
	die "no sender identity: git config user.name / user.email are not set" \
		"git config --global user.name 'Your Name'; git config --global user.email you@example.org"
case "$email" in *@invalid.example) die "user.email is the project's placeholder ($email)" "export as yourself" ;; esac

"$S"/base-tree.sh || exit 2
. "$STATE/base.env"
# The quilt-applied tree to compare with.
VARIANT=${VARIANT:-patched} PATCHES=$PATCHES "$S"/apply-series.sh || exit 2
qsrc=$WORK/${VARIANT:-patched}/src
mapfile -t patches < <(series_list "$PATCHES")
[ ${#patches[@]} -gt 0 ] || die "the series is empty"

# --- a git repository of the base tree (cached per base) ---------------------
fixed_date="1970-01-01T00:00:00Z"
gitbase=$OUT/cache/base-git/$BASE_ID
git_q() { git -c core.autocrlf=false -c gc.auto=0 -c advice.detachedHead=false "$@"; }
if [ ! -f "$gitbase/.ok" ]; then
	info "making a git repository of base $BASE_VERSION (once per base; ~1-2 min)"
	rm -rf "$gitbase"
	mkdir -p "$gitbase"
	git_q init -q --bare "$gitbase/repo.git"
	# Every file of the base, ignored or not, with its mode: the tree is the base.
	tmpidx=$gitbase/index
	GIT_DIR=$gitbase/repo.git GIT_INDEX_FILE=$tmpidx GIT_WORK_TREE=$BASE_DIR git_q add -A -f . ||
		die "git add of the base tree failed"
	tree=$(GIT_DIR=$gitbase/repo.git GIT_INDEX_FILE=$tmpidx git_q write-tree)
	commit=$(echo "Base: $BASE_ORIGIN ($BASE_VERSION)" | GIT_DIR=$gitbase/repo.git \
		GIT_AUTHOR_NAME=base GIT_AUTHOR_EMAIL=base@invalid.example GIT_AUTHOR_DATE=$fixed_date \
		GIT_COMMITTER_NAME=base GIT_COMMITTER_EMAIL=base@invalid.example GIT_COMMITTER_DATE=$fixed_date \
		git_q commit-tree "$tree")
	GIT_DIR=$gitbase/repo.git git_q update-ref refs/heads/base "$commit"
	rm -f "$tmpidx"
	touch "$gitbase/.ok"
fi
repo=$gitbase/repo.git
base_commit=$(GIT_DIR=$repo git rev-parse refs/heads/base)

# --- mails re-authored to the sender --------------------------------------------
work=$WORK/export
rm -rf "$work"
mkdir -p "$work/in"
python3 - "$PATCHES" "$work/in" "$name <$email>" "${patches[@]}" <<'PY' || die "rewriting the mails failed"
import re, sys
src, dst, sender, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
neutral = re.compile(r"^Signed-off-by: .*@invalid\.example>\s*$")
for i, n in enumerate(names, 1):
    text = open(f"{src}/{n}", encoding="utf-8").read()
    head, sep, rest = text.partition("\n\n")
    if not sep:
        sys.exit(f"{n}: not a mail (no header/body separator)")
    head = re.sub(r"^From: .*$", "From: " + sender.replace("\\", r"\\"), head, count=1, flags=re.M)
    out, signed = [], False
    body_lines = rest.split("\n")
    # Only the commit message (before the first ---) carries trailers.
    end = next((k for k, l in enumerate(body_lines) if l == "---"), len(body_lines))
    for k, l in enumerate(body_lines):
        if k < end and neutral.match(l):
            if not signed:
                out.append("Signed-off-by: " + sender)
                signed = True
            continue
        if k < end and l == "Signed-off-by: " + sender:
            signed = True
        out.append(l)
    if not signed:
        # DCO: the sender signs at the end of the trailers.
        out.insert(end, "Signed-off-by: " + sender)
    open(f"{dst}/{i:04d}.mail", "w", encoding="utf-8").write(head + "\n\n" + "\n".join(out))
PY

git_q clone -q --shared --no-checkout "$repo" "$work/git" || die "git clone of the base repository failed"
cd "$work/git" || exit 2
git_q checkout -q -b series "$base_commit" || die "checkout of the base failed"
git config user.name "$name"
git config user.email "$email"
n=0
for p in "${patches[@]}"; do
	n=$((n + 1))
	if ! git_q am -q --keep-cr "$work/in/$(printf %04d $n).mail" >"$work/am-$n.log" 2>&1; then
		cat "$work/am-$n.log" >&2
		git am --abort >/dev/null 2>&1
		die "git am failed on patch $n/${#patches[@]} $p" "check that the mail is a git format-patch mail that applies to $BASE_VERSION"
	fi
done

# --- cover letter and format-patch -------------------------------------------
# shellcheck disable=SC2086
python3 - "$tmpl" "$BASE_ORIGIN ($BASE_VERSION)" $RESULTS >"$work/description" <<'PY' || die "filling $tmpl failed"
import json, sys
tmpl, base, paths = sys.argv[1], sys.argv[2], sys.argv[3:]
# Several results files: newest first; a benchmark is shown from the newest
# file that has it.
docs = sorted((json.load(open(p)) for p in paths),
              key=lambda d: d.get("metadata", {}).get("date", ""), reverse=True)

def fmt(v):
    if v is None:
        return "-"
    if isinstance(v, float) and not v.is_integer():
        return f"{v:,.1f}" if abs(v) >= 10 else f"{v:,.3g}"
    return f"{int(v):,}"

lines = []
shown = set()
for doc in docs:
    md = doc.get("metadata", {})
    results = [r for r in doc.get("results", []) if r["benchmark"] not in shown]
    if not results:
        continue
    if lines:
        lines.append("")
        lines.append("")
    lines.append(f"Command: {md.get('reproduce', '?')}")
    lines.append(f"Date: {md.get('date', '?')}; series: {md.get('series', {}).get('patches', '?')} patches")
    lines.append(f"Machine: {md.get('platform', '?')}, {md.get('host_mode', '?')} host, "
                 f"GICv{md.get('gic', '?')}, {md.get('smp', '?')} CPUs; "
                 f"config {' + '.join(md.get('config', {}).get('fragments', []))}")
    lines.append("Base and patched kernels built the same way and booted alternately:")
    lines.append(f"  {', '.join(doc.get('order', []))}.")
    lines.append("Medians of the repetitions with [min-max]; ratio = patched / base.")
    lines.append("Counts come from /proc/lock_stat and do not depend on emulation speed;")
    lines.append("rates and latencies measured under TCG are indicative only.")
    bench = None
    for r in results:
        if "aggregate" in r["metric"]:
            continue
        if r["benchmark"] != bench:
            bench = r["benchmark"]
            shown.add(bench)
            lines.append("")
            lines.append(f"{bench}:")
        unit = r.get("unit") or ""
        kind = r.get("kind", "")
        lines.append(f"  {r['metric']} ({unit}{', ' if unit and kind else ''}{kind})")
        ratio = r.get("ratio")
        lines.append(f"      base {fmt(r.get('base_median'))} [{fmt(r.get('base_min'))}-{fmt(r.get('base_max'))}]"
                     f"  patched {fmt(r.get('patched_median'))} [{fmt(r.get('patched_min'))}-{fmt(r.get('patched_max'))}]"
                     f"  ratio {'-' if ratio is None else f'{ratio:.3f}'}")
text = open(tmpl).read().replace("@BASE@", base).replace("@RESULTS@", "\n".join(lines))
sys.stdout.write(text.rstrip("\n") + "\n")
PY
git config branch.series.description "$(cat "$work/description")"
rm -rf "$EXPORT_DIR"
mkdir -p "$EXPORT_DIR"
touch "$EXPORT_DIR/.harness-owned"
fp_args=(--cover-letter --cover-from-description=subject -o "$EXPORT_DIR"
	--subject-prefix="${EXPORT_PREFIX:-PATCH}" --no-signature)
[ -n "${EXPORT_VERSION:-}" ] && fp_args+=(-v "$EXPORT_VERSION")
git_q format-patch -q "${fp_args[@]}" "$base_commit..series" >/dev/null ||
	die "git format-patch failed"
# Version prefixes (v2-0000-...) are what format-patch writes with -v.
# The patches in one mbox, without the cover letter (git am stops on its
# empty body): git am series.mbox applies the series.
ls "$EXPORT_DIR"/*.patch | grep -v 'cover-letter\.patch$' | xargs cat >"$EXPORT_DIR/series.mbox"
nmails=$(ls "$EXPORT_DIR"/*.patch | wc -l)
grep -l 'invalid\.example' "$EXPORT_DIR"/*.patch >/dev/null &&
	die "an exported mail still carries the project's placeholder identity" "see $EXPORT_DIR"

# --- proof: git am of the exported mails == the quilt-applied tree ----------------
# In the checkout used above, back at the base commit (only the files the
# series touched change), then git am of exactly the exported mails.
(
	cd "$work/git" &&
	git_q checkout -q --detach "$base_commit" &&
	[ -z "$(git status --porcelain --untracked-files=no)" ] &&
	for m in $(ls "$EXPORT_DIR"/*.patch | grep -v 'cover-letter\.patch$'); do
		git_q am -q "$m" || { echo "git am failed on $(basename "$m")" >&2; exit 1; }
	done
) >"$work/verify.log" 2>&1 || { cat "$work/verify.log" >&2; die "the exported mails do not git am onto the base" "see $work/verify.log"; }
am_tree=$(git -C "$work/git" rev-parse 'HEAD^{tree}')
# The quilt tree's hash: the base's files as they are in the quilt tree
# (modified, deleted, or unchanged), plus the files the series creates.
# Other untracked files there are build output (the KVM selftests write
# generated headers into the source tree) and not part of the series.
# (.gitignore cannot tell them apart: Debian's linux-source ignores "/*".)
qidx=$work/quilt.index
rm -f "$qidx"
vgit=$work/git/.git
created=$(for p in "${patches[@]}"; do
	awk '/^--- \/dev\/null/ { n = NR } /^\+\+\+ b\// && NR == n + 1 { sub(/^\+\+\+ b\//, ""); sub(/\t.*/, ""); print }' "$PATCHES/$p"
done | sort -u | while read -r f; do [ -e "$qsrc/$f" ] && echo "$f"; done)
GIT_DIR=$vgit GIT_INDEX_FILE=$qidx git_q read-tree "$base_commit" &&
	GIT_DIR=$vgit GIT_INDEX_FILE=$qidx GIT_WORK_TREE=$qsrc git_q add -u . &&
	{ [ -z "$created" ] || echo "$created" | GIT_DIR=$vgit GIT_INDEX_FILE=$qidx GIT_WORK_TREE=$qsrc \
		git_q add -f --pathspec-from-file=- ; } ||
	die "hashing the quilt tree failed"
q_tree=$(GIT_DIR=$vgit GIT_INDEX_FILE=$qidx git_q write-tree)
if [ "$am_tree" != "$q_tree" ]; then
	GIT_DIR=$vgit git diff --stat "$am_tree" "$q_tree" >&2
	die "git am of the export gives tree $am_tree, the quilt-applied tree is $q_tree" \
		"the files listed differ (a patch git and quilt apply differently, or stray files in $qsrc)"
fi
authors=$(git -C "$work/git" log --format='%an <%ae>' "$base_commit..HEAD" | sort -u)
[ "$authors" = "$name <$email>" ] || die "exported commits have author(s) '$authors', expected '$name <$email>'"
echo "$am_tree" >"$EXPORT_DIR/.tree"
# The checkout (a full kernel tree) was only the proof's; the mails are the
# output. Drop it so that an export costs megabytes, not gigabytes, of disk.
rm -rf "$work/git"
status "$nmails mails in $EXPORT_DIR ($((nmails - 1)) patches + cover letter, from $name <$email>); git am onto $BASE_VERSION gives the quilt tree (${am_tree:0:12})"
