#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make export: the series as mails ready for git send-email.
#
# The patches in patches/ carry a neutral project identity. Here they are
# applied with git am to a git repository of the base tree, re-authored to
# the sender (git config user.name / user.email, read in this project's
# directory, so a repository, global or GIT_CONFIG_* setting all work)
# with the sender's Signed-off-by replacing the project's, and written with
# git format-patch plus a cover letter, one directory per mail series (the
# series file's "# mail:" sections), $OUT/export/NN-<id>/:
#   0000-cover-letter.patch   body from <series dir>/cover-<id>.tmpl,
#                             results from the latest bench.json
#   NNNN-*.patch              [PATCH n/N] (prefix: EXPORT_PREFIX, else the
#                             template's "# prefix:" line, else PATCH)
#   series.mbox               the patches (not the cover letter) in one
#                             mbox, for git am; thread.mbox (with the cover
#                             letter) for b4 am; series, a quilt series file
# Then it proves the mails are git am-able: a fresh checkout of the base
# commit, git am of the exported mails, and the resulting tree compared,
# file by file (git tree hashes), with the quilt-applied work tree.
#
#   PATCHES=dir          series (default patches/)
#   RESULTS="file..."    results JSON(s) (default: $RESULTS_DIR/bench/bench.json
#                        and Documentation/results/<base>/bench*.json and ab*.json, then the
#                        other bases' files for what <base> lacks; with several,
#                        each benchmark comes from the newest file that has it,
#                        "--" starts a fallback group)
#   EXPORT_PREFIX=...    subject prefix (default PATCH; e.g. "RFC PATCH")
#   EXPORT_VERSION=N     series version (v2, v3...: -v N)
#   EXPORT_DIR=dir       output (default $OUT/export)
. "$(dirname "$0")/lib/lib.sh"
phase_start export
lock_out
S=$HARNESS_ROOT/scripts
need_tools git python3

resolve_patches
# Relative paths are relative to where make export was started: resolved
# now, before any cd.
EXPORT_DIR=$(abspath "${EXPORT_DIR:-$OUT/export}")
safe_rm_target EXPORT_DIR "$EXPORT_DIR"
# The numbered mails of a mail series' directory, in order, one per line
# (its cover letter, which git am would stop on, left out).
numbered_mails() {
	local p
	for p in "$1"/*.patch; do
		case "$p" in *cover-letter.patch) ;; *) printf '%s\n' "$p" ;; esac
	done
}
tmpl=${COVER_TEMPLATE:-$PATCHES/cover-letter.tmpl}
[ -f "$tmpl" ] || tmpl=$HARNESS_ROOT/patches/cover-letter.tmpl
tmpl=$(abspath "$tmpl")
[ -f "$tmpl" ] || die "COVER_TEMPLATE=$tmpl not found"
if [ -z "${RESULTS:-}" ]; then
	RESULTS=$(ls "$RESULTS_DIR"/bench/bench.json "$HARNESS_ROOT"/Documentation/results/"$BASE"/bench*.json \
		"$HARNESS_ROOT"/Documentation/results/"$BASE"/ab*.json 2>/dev/null | tr '\n' ' ')
	# A benchmark this base has not measured yet comes from another base's
	# results (the cover letter names the base of every block).
	for b in $BASES; do
		[ "$b" = "$BASE" ] && continue
		other=$(ls "$HARNESS_ROOT"/Documentation/results/"$b"/bench*.json \
			"$HARNESS_ROOT"/Documentation/results/"$b"/ab*.json 2>/dev/null | tr '\n' ' ')
		[ -n "$other" ] && RESULTS="$RESULTS -- $other"
	done
fi
r=""
for f in $RESULTS; do
	if [ "$f" = -- ]; then r="$r --"; else r="$r $(abspath "$f")"; fi
done
RESULTS=${r# }
for r in $RESULTS; do
	[ "$r" = -- ] || [ -f "$r" ] || die "no results JSON ($r)" "run make bench, or set RESULTS=<bench.json ...>"
done
[ -n "$(echo "$RESULTS" | tr -d ' -')" ] || die "no results JSON" "run make bench, or set RESULTS=<bench.json ...>"

name=$(cd "$HARNESS_ROOT" && git config user.name || true)
email=$(cd "$HARNESS_ROOT" && git config user.email || true)
[ -n "$name" ] && [ -n "$email" ] ||
	die "no sender identity: git config user.name / user.email are not set" \
		"git config --global user.name 'Your Name'; git config --global user.email you@example.org"
case "$email" in *@invalid.example) die "user.email is the project's placeholder ($email)" "export as yourself" ;; esac

"$S"/phases/base-tree.sh || exit 2
. "$STATE/base.env"
# The quilt-applied tree to compare with: the mails alone, without the
# project's own patches, in a work tree of its own (hard links), so that the
# tree make run builds keeps them.
VARIANT=${VARIANT:-mails} PATCHES=$PATCHES PROJECT_PATCHES="" "$S"/phases/apply-series.sh || exit 2
qsrc=$WORK/${VARIANT:-mails}/src
mapfile -t patches < <(series_list "$PATCHES")
[ ${#patches[@]} -gt 0 ] || die "the series is empty"
# The mail series (see "one mail series per destination" below).
mapfile -t mails < <(series_mails "$PATCHES")
ids=() dests=() firsts=() lasts=()
i=0
for m in "${mails[@]}"; do
	i=$((i + 1))
	IFS=$'\t' read -r id dest _ <<<"$m"
	if [ ${#ids[@]} -eq 0 ] || [ "${ids[-1]}" != "$id" ]; then
		for seen in "${ids[@]}"; do
			[ "$seen" = "$id" ] && die "mail series '$id' is split by another one in $PATCHES/series" "keep each '# mail:' section contiguous"
		done
		check_name "mail series id" "$id"
		ids+=("$id") dests+=("$dest") firsts+=("$i") lasts+=("$i")
	else
		lasts[-1]=$i
	fi
done

for id in "${ids[@]}"; do
	[ -f "$PATCHES/cover-$id.tmpl" ] || [ -f "$tmpl" ] ||
		die "no cover letter template for mail series '$id'" "add $PATCHES/cover-$id.tmpl"
done

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
# The project's own patches (author: the placeholder identity) become the
# sender's; a patch with a real author (an upstream commit picked for the
# 6.12 backport) keeps it. Every mail gets the sender's Signed-off-by in
# place of the project's. $work/in/NNNN.author: the author each must have.
work=$WORK/export
rm -rf "$work"
mkdir -p "$work/in"
python3 - "$PATCHES" "$work/in" "$name <$email>" "${patches[@]}" <<'PY' || die "rewriting the mails failed"
import re, sys
src, dst, sender, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
neutral = re.compile(r"^Signed-off-by: .*@invalid\.example>\s*$")
sender_name = re.sub(r"\s*<[^>]*>\s*$", "", sender).strip('"')
for i, n in enumerate(names, 1):
    text = open(f"{src}/{n}", encoding="utf-8").read()
    head, sep, rest = text.partition("\n\n")
    if not sep:
        sys.exit(f"{n}: not a mail (no header/body separator)")
    author = re.search(r"^From: (.*)$", head, flags=re.M)
    if not author:
        sys.exit(f"{n}: no From: header")
    author = author.group(1)
    if "@invalid.example" in author:
        head = re.sub(r"^From: .*$", "From: " + sender.replace("\\", r"\\"), head, count=1, flags=re.M)
        author = sender
    open(f"{dst}/{i:04d}.author", "w", encoding="utf-8").write(author + "\n")
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
        # A maintainer's note on a patch it carries for its author
        # ("[ name: what changed ]") is the sender's: the project's
        # neutral name says nothing to a maintainer.
        if k < end and l.startswith("[ irq-scaling project:"):
            l = "[ " + sender_name + ":" + l[len("[ irq-scaling project:"):]
        out.append(l)
    if not signed:
        # DCO: the sender signs at the end of the trailers.
        out.insert(end, "Signed-off-by: " + sender)
    open(f"{dst}/{i:04d}.mail", "w", encoding="utf-8").write(head + "\n\n" + "\n".join(out))
PY

git_q clone -q --shared --no-checkout "$repo" "$work/git" || die "git clone of the base repository failed"
cd "$work/git" || exit 2
# Only the directories the series touches are checked out (series_dirs):
# git am, format-patch and b4 need no other file; get_maintainer.pl reads
# the quilt tree, which has them all.
series_dirs "$PATCHES" | git_q sparse-checkout set --cone --stdin || die "git sparse-checkout of the series' directories failed"
git_q checkout -q -b series "$base_commit" || die "checkout of the base failed"
git config user.name "$name"
git config user.email "$email"
# One git am for all (each invocation refreshes the index of the whole tree).
if ! git_q am -q --keep-cr "$work"/in/????.mail >"$work/am.log" 2>&1; then
	cat "$work/am.log" >&2
	n=$(( $(git_q rev-list --count "$base_commit..HEAD") + 1 ))
	git am --abort >/dev/null 2>&1
	die "git am failed on patch $n/${#patches[@]} ${patches[$((n - 1))]}" "check that the mail is a git format-patch mail that applies to $BASE_VERSION"
fi

# --- one mail series per destination ---------------------------------------
# The series file's "# mail: <id> -- <destination>" lines (series.sh,
# series_mails) split it into mail series, each sent to one maintainer tree
# with its own cover letter: $PATCHES/cover-<id>.tmpl, else the
# COVER_TEMPLATE / cover-letter.tmpl above. All were applied above, in
# order, on one branch; mail series k is the commits of its patches, and its
# mails name the commits before it (base + the earlier mail series) as
# base-commit: and prerequisite-patch-id: (git format-patch --base).
mapfile -t commits < <(git_q rev-list --reverse "$base_commit..series")
[ ${#commits[@]} -eq ${#patches[@]} ] || die "git am made ${#commits[@]} commits for ${#patches[@]} patches"
rm -rf "$EXPORT_DIR"
mkdir -p "$EXPORT_DIR"
touch "$EXPORT_DIR/.harness-owned"
gm=$qsrc/scripts/get_maintainer.pl
[ -f "$gm" ] || die "no scripts/get_maintainer.pl in the base tree"
: >"$EXPORT_DIR/index.txt"
nmails=0
for k in "${!ids[@]}"; do
	id=${ids[$k]} f=${firsts[$k]} l=${lasts[$k]}
	n=$((l - f + 1))
	dir=$EXPORT_DIR/$(printf %02d $((k + 1)))-$id
	t=$PATCHES/cover-$id.tmpl
	[ -f "$t" ] || t=$tmpl
	# shellcheck disable=SC2086
	python3 "$S"/lib/cover.py "$t" "$BASE_ORIGIN ($BASE_VERSION)" $RESULTS >"$work/description-$id" ||
		die "filling the cover letter of mail series '$id' from $t failed"
	# format-patch takes the cover letter's subject and body from the
	# description of the branch the range ends on: one branch per mail series.
	git_q branch -f "mail-$id" "${commits[$((l - 1))]}"
	git config "branch.mail-$id.description" "$(cat "$work/description-$id")"
	# To: the maintainers, Cc: reviewers and lists, as the kernel's
	# get_maintainer.pl names them for the patches of this mail series.
	inmails=()
	for ((j = f; j <= l; j++)); do inmails+=("$work/in/$(printf %04d $j).mail"); done
	gm_run() { (cd "$qsrc" && perl "$gm" --no-git --no-git-fallback --norolestats "$@" "${inmails[@]}"); }
	to=$(gm_run --nol --nor) || die "get_maintainer.pl failed for mail series '$id'"
	cc=$(gm_run --nom) || die "get_maintainer.pl failed for mail series '$id'"
	addr=()
	# A destination that names a list address (the 6.12 stable set:
	# stable@vger.kernel.org) gets it as To:, and the maintainers move to
	# Cc:, from whom the mail series wants an ack.
	# A destination "no list: ..." (6.12's feature backport, for vendor
	# kernels) is not addressed: no To:/Cc: at all.
	case "${dests[$k]}" in "no list"*) to="" cc="" ;; esac
	list_to=$(mail_dest_address "${dests[$k]}")
	if [ -n "$list_to" ]; then
		addr+=("--to=$list_to")
		while IFS= read -r a; do [ -n "$a" ] && addr+=("--cc=$a"); done <<<"$to"
	else
		while IFS= read -r a; do [ -n "$a" ] && addr+=("--to=$a"); done <<<"$to"
	fi
	while IFS= read -r a; do [ -n "$a" ] && addr+=("--cc=$a"); done <<<"$cc"
	# The subject prefix: EXPORT_PREFIX, else the template's "# prefix:"
	# line (the 6.12 stable mails: "PATCH 6.12.y"), else PATCH.
	prefix=$(sed -n '/^#/!q; s/^# prefix:[[:space:]]*//p' "$t" | head -n 1)
	# "# cc:" lines at the template's top: people the mail series must
	# reach whom the base's MAINTAINERS does not name (or names at an old
	# address): the 6.12 stable set's irqbypass maintainers.
	while IFS= read -r a; do [ -n "$a" ] && addr+=("--cc=$a"); done < <(sed -n '/^#/!q; s/^# cc:[[:space:]]*//p' "$t")
	fp_args=(--cover-letter --cover-from-description=subject --thread=shallow -o "$dir"
		--base="$base_commit" --subject-prefix="${EXPORT_PREFIX:-${prefix:-PATCH}}" --no-signature)
	[ -n "${EXPORT_VERSION:-}" ] && fp_args+=(-v "$EXPORT_VERSION")
	git_q format-patch -q "${fp_args[@]}" "${addr[@]}" "${commits[$((f - 1))]}^..mail-$id" >/dev/null ||
		die "git format-patch failed for mail series '$id'"
	# series.mbox: the patches, for git am (which stops on the cover
	# letter's empty diff); thread.mbox: cover letter and patches, the
	# thread as the list will have it, for b4 am.
	numbered_mails "$dir" | xargs -d '\n' cat >"$dir/series.mbox"
	# series: the same mails as a quilt series file (QUILT_PATCHES=<dir>),
	# for a distro that carries this mail series as patches.
	numbered_mails "$dir" | xargs -d '\n' -n1 basename >"$dir/series"
	cat "$dir"/*.patch >"$dir/thread.mbox"
	git_q rev-parse "${commits[$((l - 1))]}^{tree}" >"$dir/.tree"
	printf '%s\t%s\t%s\t%s\n' "$(basename "$dir")" "$n" "$(sed -n 1p "$work/description-$id")" "${dests[$k]}" >>"$EXPORT_DIR/index.txt"
	nmails=$((nmails + n + 1))
done
grep -rlE 'invalid\.example|^\[ irq-scaling project:' "$EXPORT_DIR" --include='*.patch' >/dev/null &&
	die "an exported mail still carries the project's placeholder identity (an address, or a note's name)" "see $EXPORT_DIR"
# A reference the series could not fill in here ("[link needed: ...]",
# "[sha needed]", "[ Fixes: for the sender to add ...]") or a number not yet
# measured ("[ TO BE MEASURED ...]") must not reach a list.
todo=$(grep -rlE '\[(link|sha) needed|\[ Fixes: for the sender|TO BE MEASURED' "$EXPORT_DIR" --include='*.patch' | xargs -r -n1 basename | tr '\n' ' ')
# The export proof of make test (scripts/tests/export-test.sh,
# EXPORT_PROOF_ONLY=1) goes on, to prove that the mails apply, and reports
# the references as open; make export refuses them.
if [ -n "$todo" ]; then
	[ "${EXPORT_PROOF_ONLY:-0}" = 1 ] ||
		die "mails with an unfilled reference or measurement ([link needed], [sha needed], [ Fixes: for the sender ...], TO BE MEASURED): $todo" "fill it in the patch in $PATCHES"
	warn "unfilled references, for the sender to fill before sending (make export refuses them): $todo"
fi

# --- proof: each mail series applies where its mails say ---------------------
# Mail series k, with git am and with b4 am (as a maintainer applies it from
# the list), onto the commit before it (the base + the earlier mail series)
# gives the commit its last patch made; and the last one's tree is the
# quilt-applied work tree.
EXTRA_PACKAGES=b4 "$S"/deps.sh >/dev/null || exit 2
verify=$work/verify
mkdir -p "$verify"
for k in "${!ids[@]}"; do
	id=${ids[$k]} f=${firsts[$k]} l=${lasts[$k]}
	dir=$EXPORT_DIR/$(printf %02d $((k + 1)))-$id
	want=$(cat "$dir/.tree")
	start=$(git_q rev-parse "${commits[$((f - 1))]}^")
	# b4 am: the am-ready mbox it makes from the thread (its own checks of
	# the thread, trailers and base-commit on the way). The mbox on stdin:
	# b4 0.12 parses a named mbox file with the compat32 email policy and
	# then fails on folded Subject: headers.
	rm -rf "$verify/b4-$id" && mkdir -p "$verify/b4-$id"
	(cd "$work/git" && b4 --offline-mode am -m - -o "$verify/b4-$id" -n series --no-cover <"$dir/thread.mbox") \
		>"$verify/b4-$id.log" 2>&1 && [ -s "$verify/b4-$id/series.mbx" ] ||
		die "b4 am of mail series '$id' failed" "see $verify/b4-$id.log"
	for how in git b4; do
		(
			cd "$work/git" &&
			git_q checkout -q --detach "$start" &&
			[ -z "$(git status --porcelain --untracked-files=no)" ] &&
			if [ $how = git ]; then
				# The numbered mails, in order (series.mbox is their concatenation).
				mapfile -t mails < <(numbered_mails "$dir")
				git_q am -q "${mails[@]}" || { echo "git am of the numbered mails failed" >&2; exit 1; }
			else
				git_q am -q "$verify/b4-$id/series.mbx" || { echo "git am of b4's series.mbx failed" >&2; exit 1; }
			fi
		) >"$verify/$how-$id.log" 2>&1 || { cat "$verify/$how-$id.log" >&2; die "$how am of mail series '$id' onto its base failed" "see $verify/$how-$id.log"; }
		got=$(git -C "$work/git" rev-parse 'HEAD^{tree}')
		[ "$got" = "$want" ] || die "$how am of mail series '$id' gives tree $got, the series' commits give $want"
		cnt=$(git -C "$work/git" rev-list --count "$start..HEAD")
		[ "$cnt" -eq $((l - f + 1)) ] || die "$how am of mail series '$id' made $cnt commits, not $((l - f + 1))"
	done
	# Each commit's author: the sender, or the upstream author it kept.
	authors=$(git -C "$work/git" log --reverse --format='%an <%ae>' "$start..HEAD")
	expected=$(for ((j = f; j <= l; j++)); do cat "$work/in/$(printf %04d $j).author"; done)
	[ "$authors" = "$expected" ] || die "mail series '$id': authors '$(echo $authors)', expected '$(echo $expected)'"
done
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
echo "$am_tree" >"$EXPORT_DIR/.tree"
# The checkout (a full kernel tree) was only the proof's; the mails are the
# output. Drop it so that an export costs megabytes, not gigabytes, of disk.
rm -rf "$work/git"
status "${#ids[@]} mail series, $nmails mails in $EXPORT_DIR (${#patches[@]} patches + ${#ids[@]} cover letters, from $name <$email>): $(cut -f1 "$EXPORT_DIR/index.txt" | tr '\n' ' ')"
status "each applies with git am and b4 am onto the commits before it; git am of all onto $BASE_VERSION gives the quilt tree (${am_tree:0:12})"
