# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# What a phase records under STATE and WORK for the phases after it and for
# its next run: the one writer of the env files (write_env: base.env,
# applied.env, initramfs.env, boot.env, read back with "." or
# harnesslib.read_env) and the sha256 of a file (sha256_file: the base's
# pin, the config and series hashes, the run's metadata). Used by the
# phases, check.sh, hw-run.sh, modexport.sh, hw-emulated.sh, the CI scripts
# and series.sh's series_hash.
# Part of lib.sh, which sources it: source lib.sh, not this file.

# write_env <file> VAR...: the one writer of the harness's env files
# (base.env, applied.env, initramfs.env, boot.env): VAR=value lines, each
# value quoted with printf %q so that any value (quotes, spaces) survives;
# written to a temporary file and renamed. Read them with bash's "." or
# with read_env() in scripts/lib/harnesslib.py (shlex), nothing else.
write_env() {
	local f=$1 v
	shift
	for v in "$@"; do
		printf '%s=%q\n' "$v" "${!v}"
	done >"$f.tmp" && mv "$f.tmp" "$f"
}

sha256_file() {
	sha256sum "$1" | cut -d' ' -f1
}
