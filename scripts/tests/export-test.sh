#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make export, as a sender would run it, and what a maintainer gets:
#   export          mails for the real series from a test identity; the
#                   export's own git am proof passed (tree == quilt tree)
#   export-mails    N+1 mails, [PATCH n/N] subjects, cover letter filled
#                   from the template and the results JSON, every patch
#                   From: and Signed-off-by: the sender, no placeholder
#   export-git-am   independently: git am of series.mbox onto the base
#                   commit gives the same tree as the numbered mails
#   export-identity the project's placeholder identity is refused
# Appends "export/<case>\tpass|fail\t<reason>" to $RESULTS_TSV when set.
. "$(dirname "$0")/../lib.sh"
phase_start export-test
S=$HARNESS_ROOT/scripts
dir=$OUT/tests/export
log=$OUT/tests/export.log
sender_name="Test Sender"
sender_email="test.sender@example.org"
as_sender() {
	env GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0="$1" \
		GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1="$2" "${@:3}"
}

# The Subject: header, unfolded.
subject_of() {
	python3 -c 'import email, sys; m = email.message_from_file(open(sys.argv[1], encoding="utf-8")); print(" ".join(str(m["Subject"]).split()))' "$1"
}

mapfile -t patches < <(series_list "$PATCHES")
total=${#patches[@]}

# EXPORT_DIR relative to where make export starts (it cd's into its git
# checkout later): the mails must land there, not inside the checkout.
rm -rf "$dir"
mkdir -p "$(dirname "$dir")"
if (cd "$(dirname "$dir")" && as_sender "$sender_name" "$sender_email" \
	env EXPORT_DIR="$(basename "$dir")" "$S"/export.sh) >"$log" 2>&1 &&
   grep -q 'git am onto .* gives the quilt tree' "$log" && ls "$dir"/0001-*.patch >/dev/null 2>&1; then
	result export/export pass "relative EXPORT_DIR: mails in $dir"
else
	result export/export fail "$(grep -m1 ERROR "$log" | cut -c1-200) (log: $log; mails in $dir: $(ls "$dir" 2>/dev/null | wc -l))"
fi

# The mails.
problems=()
mails=$(ls "$dir"/*.patch 2>/dev/null | wc -l)
[ "$mails" -eq $((total + 1)) ] || problems+=("$mails mails for $total patches")
cover=$dir/0000-cover-letter.patch
# git format-patch pads the numbers to the width of the total: [PATCH 01/12].
pad() { printf "%0${#total}d" "$1"; }
grep -q "^Subject: \[PATCH $(pad 0)/$total\] KVM: arm64: " "$cover" 2>/dev/null || problems+=("cover letter subject")
grep -q '^Command: make bench' "$cover" 2>/dev/null || problems+=("no results command in the cover letter")
grep -q 'ratio' "$cover" 2>/dev/null || problems+=("no results table in the cover letter")
grep -q '@RESULTS@\|@BASE@\|\*\*\* SUBJECT HERE\|\*\*\* BLURB HERE' "$cover" 2>/dev/null &&
	problems+=("unfilled placeholder in the cover letter")
n=0
for p in "${patches[@]}"; do
	n=$((n + 1))
	m=$(ls "$dir"/$(printf %04d $n)-*.patch 2>/dev/null)
	[ -f "$m" ] || { problems+=("no mail $n"); continue; }
	subj=$(subject_of "$m")
	orig=$(subject_of "$PATCHES/$p")
	orig=$(echo "$orig" | sed 's/^\[[^]]*\] //')
	case "$subj" in "[PATCH $(pad $n)/$total] $orig"*) ;; *) problems+=("mail $n subject '$subj'") ;; esac
	grep -qx "From: $sender_name <$sender_email>" "$m" || problems+=("mail $n author")
	grep -qx "Signed-off-by: $sender_name <$sender_email>" "$m" || problems+=("mail $n sign-off")
done
grep -l 'invalid\.example' "$dir"/*.patch >/dev/null 2>&1 && problems+=("placeholder identity left in a mail")
if [ ${#problems[@]} -eq 0 ]; then
	result export/export-mails pass ""
else
	result export/export-mails fail "$(IFS=';'; echo "${problems[*]}")"
fi

# Independently of the export's own proof: series.mbox through git am.
. "$STATE/base.env"
repo=$OUT/cache/base-git/$BASE_ID/repo.git
v=$OUT/tests/export-am
rm -rf "$v"
if [ -d "$repo" ] && git clone -q --shared --no-checkout "$repo" "$v" 2>/dev/null &&
   (cd "$v" && git -c advice.detachedHead=false checkout -q --detach "$(git -C "$repo" rev-parse refs/heads/base)" &&
    git -c user.name=t -c user.email=t@example.org am -q "$dir/series.mbox") >"$v.log" 2>&1; then
	got=$(git -C "$v" rev-parse 'HEAD^{tree}')
	want=$(cat "$dir/.tree" 2>/dev/null)
	count=$(git -C "$v" rev-list --count "$(git -C "$repo" rev-parse refs/heads/base)..HEAD")
	if [ "$got" = "$want" ] && [ "$count" -eq "$total" ]; then
		result export/export-git-am pass ""
	else
		result export/export-git-am fail "tree $got ($count commits), export verified $want"
	fi
else
	result export/export-git-am fail "git am of $dir/series.mbox failed (log: $v.log)"
fi
rm -rf "$v"

if as_sender "KVM arm64 irq-scaling project" irq-scaling@invalid.example \
	env EXPORT_DIR="$OUT/tests/export-bad" "$S"/export.sh >"$log.bad" 2>&1; then
	result export/export-identity fail "export accepted the placeholder identity"
elif grep -q "placeholder" "$log.bad"; then
	result export/export-identity pass ""
else
	result export/export-identity fail "unexpected error: $(grep -m1 ERROR "$log.bad")"
fi

results_end
