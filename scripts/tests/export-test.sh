#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make export, as a sender would run it, and what a maintainer gets:
#   export          mails for the real series from a test identity; the
#                   export's own git am proof passed (tree == quilt tree)
#   export-mails    per mail series of the series file: n+1 mails,
#                   [PATCH k/n] subjects, cover letter filled, To: from
#                   get_maintainer.pl, base-commit: and (after the first)
#                   prerequisite-patch-id:, every patch From: and
#                   Signed-off-by: the sender; no placeholder anywhere
#   export-git-am   independently: git am of every series.mbox, in order,
#                   onto the base commit gives the quilt tree
#   export-identity the project's placeholder identity is refused
# Appends "export/<case>\tpass|fail\t<reason>" to $RESULTS_TSV when set.
. "$(dirname "$0")/../lib/lib.sh"
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
mapfile -t mails < <(series_mails "$PATCHES")

# EXPORT_DIR relative to where make export starts (it cd's into its git
# checkout later): the mails must land there, not inside the checkout.
rm -rf "$dir"
mkdir -p "$(dirname "$dir")"
if (cd "$(dirname "$dir")" && as_sender "$sender_name" "$sender_email" \
	env EXPORT_DIR="$(basename "$dir")" EXPORT_PROOF_ONLY=1 "$S"/export.sh) >"$log" 2>&1 &&
   grep -q 'git am of all onto .* gives the quilt tree' "$log" && [ -s "$dir/index.txt" ]; then
	result export/export pass "relative EXPORT_DIR: $(wc -l <"$dir/index.txt") mail series in $dir"
else
	result export/export fail "$(grep -m1 ERROR "$log" | cut -c1-200) (log: $log; in $dir: $(ls "$dir" 2>/dev/null | tr '\n' ' '))"
fi
# A reference only the sender can fill (a Message-ID the archives here do
# not have): the proof went on; make export itself refuses the mails until
# it is filled, and that is shown here as what is still open.
unfilled=$(grep -rlE '\[(link|sha) needed|\[ Fixes: for the sender|TO BE MEASURED' "$dir" --include='*.patch' 2>/dev/null | sed "s|^$dir/||" | tr '\n' ' ')
if [ -n "$unfilled" ]; then
	result export/unfilled-references skip "the sender fills before sending (make export refuses these mails until then): $unfilled"
else
	result export/unfilled-references pass "no [link needed], [sha needed], [ Fixes: for the sender ...] or TO BE MEASURED in the mails"
fi

# The mails, mail series by mail series, as the series file groups them.
problems=()
ids=$(printf '%s\n' "${mails[@]}" | cut -f1 | uniq)
[ "$(printf '%s\n' "$ids" | wc -l)" -eq "$(wc -l <"$dir/index.txt" 2>/dev/null || echo 0)" ] ||
	problems+=("index.txt lists $(wc -l <"$dir/index.txt" 2>/dev/null) mail series, the series file $(printf '%s\n' "$ids" | wc -l)")
n=0 k=0
for id in $ids; do
	k=$((k + 1))
	md=$dir/$(printf %02d $k)-$id
	mine=()
	for m in "${mails[@]}"; do [ "$(cut -f1 <<<"$m")" = "$id" ] && mine+=("$(cut -f3 <<<"$m")"); done
	cnt=${#mine[@]}
	got=$(ls "$md"/*.patch 2>/dev/null | wc -l)
	[ "$got" -eq $((cnt + 1)) ] || { problems+=("$id: $got mails for $cnt patches"); continue; }
	cover=$md/0000-cover-letter.patch
	# git format-patch pads the numbers to the width of the total: [PATCH 01/12].
	pad() { printf "%0${#cnt}d" "$1"; }
	subj=$(subject_of "$cover")
	case "$subj" in "[PATCH $(pad 0)/$cnt] "?* | "[PATCH "*" $(pad 0)/$cnt] "?*) ;; *) problems+=("$id: cover letter subject '$subj'") ;; esac
	grep -q '@RESULTS@\|@BASE@\|\*\*\* SUBJECT HERE\|\*\*\* BLURB HERE' "$cover" &&
		problems+=("$id: unfilled placeholder in the cover letter")
	dest=$(printf '%s\n' "${mails[@]}" | awk -F'\t' -v id="$id" '$1 == id { print $2; exit }')
	case "$dest" in
	"no list"*) ! grep -q '^To: \|^Cc: ' "$cover" || problems+=("$id: 'no list' but addressed") ;;
	*) grep -q '^To: ' "$cover" || problems+=("$id: no To: (get_maintainer.pl)") ;;
	esac
	# A destination naming a list address (6.12's stable@) is the To: of
	# every mail of the series.
	list_to=$(mail_dest_address "$dest")
	if [ -n "$list_to" ]; then
		for m in "$md"/*.patch; do
			sed -n '/^To: /,/^[A-Z][a-z-]*: /p' "$m" | grep -qF "$list_to" || problems+=("$id: $(basename "$m") not To: $list_to")
		done
	fi
	grep -q '^base-commit: [0-9a-f]\{40\}$' "$cover" || problems+=("$id: no base-commit:")
	[ $k -eq 1 ] || grep -q '^prerequisite-patch-id: ' "$cover" || problems+=("$id: no prerequisite-patch-id: for the mail series before it")
	j=0
	for p in "${mine[@]}"; do
		j=$((j + 1)) n=$((n + 1))
		m=$(find "$md" -maxdepth 1 -name "$(printf %04d "$j")-*.patch" | head -n 1)
		[ -f "$m" ] || { problems+=("$id: no mail $j"); continue; }
		subj=$(subject_of "$m")
		orig=$(subject_of "$PATCHES/$p" | sed 's/^\[[^]]*\] //')
		# [PATCH n/N], or with the cover template's prefix ([PATCH 6.12.y n/N]).
		case "$subj" in "[PATCH $(pad $j)/$cnt] $orig"* | "[PATCH "*" $(pad $j)/$cnt] $orig"*) ;; *) problems+=("$id: mail $j subject '$subj'") ;; esac
		# The sender, or the upstream author of a picked commit.
		author=$(grep -m1 '^From: ' "$PATCHES/$p" | sed 's/^From: //')
		case "$author" in *@invalid.example*) author="$sender_name <$sender_email>" ;; esac
		grep -qxF "From: $author" "$m" || problems+=("$id: mail $j author (want $author)")
		grep -qx "Signed-off-by: $sender_name <$sender_email>" "$m" || problems+=("$id: mail $j sign-off")
	done
done
[ "$n" -eq "$total" ] || problems+=("$n patches in the mail series, $total in the series")
grep -rl 'invalid\.example' "$dir" --include='*.patch' >/dev/null 2>&1 && problems+=("placeholder identity left in a mail")
if [ ${#problems[@]} -eq 0 ]; then
	result export/export-mails pass "$total patches in $(printf '%s\n' "$ids" | wc -l) mail series"
else
	result export/export-mails fail "$(IFS=';'; echo "${problems[*]}" | cut -c1-400)"
fi

# Independently of the export's own proof: every series.mbox, in order,
# through git am onto the base commit gives the quilt tree.
. "$STATE/base.env"
repo=$OUT/cache/base-git/$BASE_ID/repo.git
v=$OUT/tests/export-am
rm -rf "$v"
# A sparse checkout of the directories the series touches, as make export's.
if [ -d "$repo" ] && git clone -q --shared --no-checkout "$repo" "$v" 2>/dev/null &&
   (cd "$v" && series_dirs "$PATCHES" | git sparse-checkout set --cone --stdin &&
    git -c advice.detachedHead=false checkout -q --detach "$(git -C "$repo" rev-parse refs/heads/base)" &&
    git -c user.name=t -c user.email=t@example.org am -q "$dir"/[0-9][0-9]-*/series.mbox) >"$v.log" 2>&1; then
	got=$(git -C "$v" rev-parse 'HEAD^{tree}')
	want=$(cat "$dir/.tree" 2>/dev/null)
	count=$(git -C "$v" rev-list --count "$(git -C "$repo" rev-parse refs/heads/base)..HEAD")
	if [ "$got" = "$want" ] && [ "$count" -eq "$total" ]; then
		result export/export-git-am pass ""
	else
		result export/export-git-am fail "tree $got ($count commits), export verified $want"
	fi
else
	result export/export-git-am fail "git am of the series.mbox files in $dir failed (log: $v.log)"
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
