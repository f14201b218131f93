#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The two Debian packages installed as an image builder installs them: in
# a chroot of this host's root file system (an overlay whose changes stay
# in memory), `dpkg -i er2bc-dkms er2bc-tools`, where the postinst's DKMS
# builds and installs the modules for every kernel whose headers are here
# (autoinstall_all_kernels, as when the running kernel is not the image's),
# natively. What the install changed is written out for the guests of
# test-deb.sh to boot on (deb-smoke-guest.sh applies it to the guest's
# root): DKMS compiling in a guest under TCG took 14-30 minutes of a CPU,
# the longest stage of make check, for the same commands and compiler.
#
#   deb-image.sh [--root ROOT] DEB_DIR OUT
#
# --root: into another release's root file system (mkroot.sh) instead of
# this host's, for that release's guests (run.sh -k trixie).
#
# OUT gets image.tar (the files and directories the install created or
# changed), image.removed (the paths it removed, one a line), dpkg.log,
# dkms-status and seconds (the install's wall time). Needs root (mount
# namespaces, overlayfs). Exits 1 if the install failed.
set -euo pipefail

root=/
if [ "${1:-}" = --root ]; then
	root=${2:?usage: deb-image.sh [--root ROOT] DEB_DIR OUT}
	shift 2
fi
debs=${1:?usage: deb-image.sh [--root ROOT] DEB_DIR OUT}
out=${2:?usage: deb-image.sh [--root ROOT] DEB_DIR OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
debs=$(cd "$debs" && pwd)

# everything below runs in a mount namespace of its own: its mounts go
# with it, whatever way it ends
if [ "${ER2BC_DEB_IMAGE_NS:-}" != 1 ]; then
	[ "$(id -u)" = 0 ] || { echo "deb-image: needs root (a mount namespace, overlayfs)" >&2; exit 1; }
	exec unshare --mount --propagation private env ER2BC_DEB_IMAGE_NS=1 "$0" --root "$root" "$debs" "$out"
fi
. "$(dirname "$0")/overlay.sh"

dkms_deb=$(ls "$debs"/er2bc-dkms_*_all.deb | head -n 1)
tools_deb=$(ls "$debs"/er2bc-tools_*_amd64.deb | head -n 1)
rm -f "$out/image.tar" "$out/image.removed" "$out/dpkg.log" "$out/dkms-status" "$out/seconds"

overlay_root "$root"
mkdir "$r/tmp/er2bc-debs"
mount --bind -o ro "$debs" "$r/tmp/er2bc-debs"

# man-db's trigger indexes every man page again: off, as in the guests
rm -f "$r/var/lib/man-db/auto-update"
t0=$(date +%s)
rc=0
chroot "$r" env DEBIAN_FRONTEND=noninteractive autoinstall_all_kernels=1 \
	dpkg -i "/tmp/er2bc-debs/${dkms_deb##*/}" "/tmp/er2bc-debs/${tools_deb##*/}" \
	>"$out/dpkg.log" 2>&1 || rc=$?
echo $(( $(date +%s) - t0 )) >"$out/seconds"
chroot "$r" dkms status er2bc >"$out/dkms-status" 2>/dev/null || true
umount "$r/tmp/er2bc-debs" "$r/tmp" "$r/run"
if [ $rc != 0 ]; then
	tail -n 20 "$out/dpkg.log" >&2
	echo "deb-image: dpkg -i failed (exit $rc; $out/dpkg.log)" >&2
	exit 1
fi

# the changes, from the upper layer: a character device 0:0 is a path the
# install removed (overlayfs's whiteout); the rest, files, links and the
# directories that hold them, as they are now. A directory of the host
# made opaque (removed and made again) would hide what was below it: none
# is expected
cd "$upper"
python3 - "$out/image.removed" "$root" >"$ovl_tmp/paths" <<'PY' || exit 1
import os, stat, sys
removed = []
for d, dirs, files in os.walk("."):
    for n in sorted(dirs) + sorted(files):
        p = os.path.join(d, n)[2:]
        st = os.lstat(p)
        if stat.S_ISCHR(st.st_mode) and st.st_rdev == 0:
            removed.append(p)
            continue
        if stat.S_ISDIR(st.st_mode):
            try:
                opaque = os.getxattr(p, "trusted.overlay.opaque", follow_symlinks=False)
            except OSError:
                opaque = b""
            if opaque == b"y" and os.path.lexists(os.path.join(sys.argv[2], p)):
                sys.exit(f"deb-image: the install replaced the directory /{p}; not supported")
        print(p)
with open(sys.argv[1], "w") as f:
    f.writelines(f"{p}\n" for p in removed)
PY
tar --no-recursion --numeric-owner -cf "$out/image.tar" -T "$ovl_tmp/paths"
cd /
echo "deb-image: $(wc -l <"$ovl_tmp/paths") paths, $(wc -l <"$out/image.removed") removed; DKMS: $(tr '\n' ';' <"$out/dkms-status")"
