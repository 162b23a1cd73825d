#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The install from a bare Debian 12 system, for real, on every make test:
# the README's set-up for make test (`make deps LAVA=1`, as root) inside a
# bare Debian 12 root (mmdebstrap minbase of bookworm, bookworm-updates and
# bookworm-security, as a fresh machine has them), with this checkout's
# files, then what it must have left:
#   install/setup           the set-up exits 0 (its log: $OUT/logs/install-test/setup.log)
#   install/no-foreign-exec no aarch64 executable in /bin, /sbin, /usr/bin,
#                           /usr/sbin, and dpkg has no foreign architecture
#   install/no-lava-on-host no lava-dispatcher, libguestfs or qemu-system-x86
#                           in the system's dpkg (LAVA lives in its own root)
#   install/readme-list     the packages the set-up installed (apt-mark
#                           showmanual, after minus before) are exactly the
#                           README's list ("What the commands change on the host")
#   install/lava-root       the set-up made LAVA's root, with lava-run and QEMU
# The apt install runs each time against the archive's current indices (it
# is what catches an archive change, as bookworm-backports' seabios was);
# the minbase root is cached under $OUT/cache/install-test/ for a day.
# Needs root (mmdebstrap --mode=root, chroot); otherwise every case skips.
# Exit 0 all passed, 1 a case failed, 2 harness error.
. "$(dirname "$0")/../lib/lib.sh"
phase_start install-test
cache=$OUT/cache/install-test
work=$OUT/work/install-test
logs=$OUT/logs/install-test
names="install/setup install/no-foreign-exec install/no-lava-on-host install/readme-list install/lava-root"
if [ "$(id -u)" -ne 0 ]; then
	for n in $names; do result "$n" skip "needs root (mmdebstrap --mode=root, chroot)"; done
	exit 0
fi
need_tools mmdebstrap unshare chroot tar python3
mkdir -p "$cache" "$logs"
rm_tree "$work"
mkdir -p "$work"
tarball=$cache/bookworm-minbase.tar
kr='[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]'
if [ -z "$(find "$tarball" -mmin -1440 2>/dev/null)" ]; then
	rm -f "$tarball"
	with_progress "bare root" "$logs/mmdebstrap.log" mmdebstrap --variant=minbase --mode=root bookworm "$cache/new.tar" \
		"deb $kr http://deb.debian.org/debian bookworm main" \
		"deb $kr http://deb.debian.org/debian bookworm-updates main" \
		"deb $kr http://deb.debian.org/debian-security bookworm-security main" ||
		die "mmdebstrap of a bare Debian 12 root failed (log: $logs/mmdebstrap.log)" \
			"$(log_fix "$logs/mmdebstrap.log" "check the network and deb.debian.org")"
	mv "$cache/new.tar" "$tarball"
fi
root=$work/root
mkdir -p "$root"
tar -C "$root" -xf "$tarball" || die "cannot unpack $tarball into $root" "check free space under $OUT"
# A fresh machine has a resolver configuration; minbase leaves none.
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
# This checkout's files (tracked, as they are in the work tree), as a fresh
# clone has them, at /root/kit.
mkdir -p "$root/root/kit"
if git -C "$HARNESS_ROOT" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$HARNESS_ROOT" && git ls-files -z | tar --null -T - -cf -) | tar -C "$root/root/kit" -xf - ||
		die "cannot copy the checkout into $root/root/kit"
else
	rsync -a --exclude=/out "$HARNESS_ROOT"/ "$root/root/kit/" || die "cannot copy the project into $root/root/kit"
fi
in_root "$root" apt-mark showmanual | sort >"$logs/manual-before.txt"

t0=$(date +%s)
rc=0
# The README's set-up: as a new user types it, in the project, as root.
IN_ROOT_TIMEOUT=1800 with_progress "bare-system set-up (make deps LAVA=1)" "$logs/setup.log" \
	in_root "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
	sh -c 'apt-get update -q && apt-get install -y -q make python3 && cd /root/kit && make deps LAVA=1' || rc=$?
secs=$(($(date +%s) - t0))
if [ "$rc" -eq 0 ]; then
	result install/setup pass "make deps LAVA=1 in a bare Debian 12 root: exit 0 (${secs}s)"
else
	result install/setup fail "make deps LAVA=1 in a bare Debian 12 root: exit $rc after ${secs}s: $( (grep -E '^(E:|\[harness\].*ERROR)' "$logs/setup.log" || grep -v '^ *$' "$logs/setup.log") | tail -n 2 | tr '\n' ' ' | cut -c1-300)"
fi

# No foreign executable on the system's PATH (an ELF of another machine).
foreign=$(python3 - "$root" <<'EOF'
import os, struct, sys
root = sys.argv[1]
host = os.uname().machine
want = {"x86_64": 62, "aarch64": 183}.get(host)
bad = []
for d in ("bin", "sbin", "usr/bin", "usr/sbin"):
    p = os.path.join(root, d)
    if os.path.islink(p) or not os.path.isdir(p):
        continue
    for n in sorted(os.listdir(p)):
        f = os.path.join(p, n)
        if os.path.islink(f) or not os.path.isfile(f):
            continue
        with open(f, "rb") as fh:
            h = fh.read(20)
        if len(h) == 20 and h[:4] == b"\x7fELF":
            m = struct.unpack("<H" if h[5] == 1 else ">H", h[18:20])[0]
            if want is not None and m != want:
                bad.append(f"/{d}/{n} (e_machine {m})")
print(" ".join(bad))
EOF
)
fa=$(in_root "$root" dpkg --print-foreign-architectures | tr '\n' ' ')
# (Checked after a failed set-up too: what it installed before it failed
# stays on a user's machine.)
after=""
[ "$rc" -eq 0 ] || after=" (after the failed set-up)"
if [ -z "$foreign" ] && [ -z "${fa// /}" ]; then
	result install/no-foreign-exec pass "no executable of another machine in /bin /sbin /usr/bin /usr/sbin; no foreign dpkg architecture$after"
else
	result install/no-foreign-exec fail "foreign executables: ${foreign:-none}; foreign architectures: ${fa:-none}$after"
fi

lava_pkgs=$(in_root "$root" dpkg-query -W -f='${db:Status-Status} ${Package}\n' 2>/dev/null |
	awk '$1 == "installed" && ($2 == "lava-dispatcher" || $2 ~ /^libguestfs/ || $2 == "qemu-system-x86") { print $2 }' | tr '\n' ' ')
if [ -z "$lava_pkgs" ]; then
	result install/no-lava-on-host pass "no lava-dispatcher, libguestfs or qemu-system-x86 in the system's dpkg$after"
else
	result install/no-lava-on-host fail "installed on the system: $lava_pkgs$after"
fi

# The README's list of what the set-up installs (between its two
# host-packages markers, one package per backquoted word) against what it did.
in_root "$root" apt-mark showmanual | sort >"$logs/manual-after.txt"
comm -13 "$logs/manual-before.txt" "$logs/manual-after.txt" | grep -vxE 'make|python3' >"$logs/installed.txt" || true
sed -n '/<!-- host-packages -->/,/<!-- \/host-packages -->/p' "$HARNESS_ROOT/README.md" |
	grep -oE '`[a-z0-9][a-z0-9.+-]*`' | tr -d '`' | sort -u >"$logs/readme.txt"
if [ ! -s "$logs/readme.txt" ]; then
	result install/readme-list fail "README.md has no host-packages list (<!-- host-packages --> markers)"
elif [ "$rc" -ne 0 ]; then
	result install/readme-list skip "the set-up failed"
elif diff -q "$logs/readme.txt" "$logs/installed.txt" >/dev/null; then
	result install/readme-list pass "the set-up installed exactly the README's $(wc -l <"$logs/readme.txt") packages"
else
	result install/readme-list fail "installed but not in the README: $(comm -13 "$logs/readme.txt" "$logs/installed.txt" | tr '\n' ' '); in the README but not installed: $(comm -23 "$logs/readme.txt" "$logs/installed.txt" | tr '\n' ' ')"
fi

lr=$root/root/kit/out/cache/lava-root/trixie
if [ -f "$lr/.ok" ] && [ -x "$lr/root/usr/bin/lava-run" ] && [ -x "$lr/root/usr/bin/qemu-system-aarch64" ]; then
	result install/lava-root pass "LAVA's root under OUT: $(tr '\n' ' ' <"$lr/versions.env")"
else
	result install/lava-root fail "no LAVA root with lava-run and qemu-system-aarch64 under the set-up's OUT"
fi
du -sm "$root" 2>/dev/null | awk '{ print "[harness] install-test: the bare root after the set-up: " $1 " MB" }'
# The root is several GB: not kept (its logs are).
rm_tree "$work"
results_end
