# SPDX-License-Identifier: GPL-2.0
# Sourced by deb.sh, deb-image.sh and build-modules.sh: a root file system
# under a writable overlay whose changes stay in memory, ready to chroot
# into. overlay_root is called in a mount namespace of its own (unshare
# --mount --propagation private): the mounts go with it, whatever way the
# script ends; in_overlay makes that namespace itself.

# overlay_root LOWER: LOWER (/ or another release's root, mkroot.sh) under
# an overlay; sets r (the merged root to chroot into) and upper (its upper
# layer: what changed), and an EXIT trap that removes the directory
overlay_root() {
	local lower=$1
	# the upper layer in a tmpfs: a layer inside the root file system it
	# covers would overlap it (overlayfs refuses)
	ovl_tmp=$(mktemp -d /tmp/er2bc-overlay.XXXXXX)
	# (the mounts go with the namespace; the directory is the host's)
	trap 'cd /; umount -R -l "$ovl_tmp" 2>/dev/null; rmdir "$ovl_tmp"' EXIT
	mount -t tmpfs -o size=4g,mode=0755 er2bc-overlay "$ovl_tmp"
	mkdir "$ovl_tmp/upper" "$ovl_tmp/work" "$ovl_tmp/root"
	# (whole files in the upper layer, renamed directories copied: what is
	# there is what changed)
	mount -t overlay er2bc-overlay \
		-o "lowerdir=$lower,upperdir=$ovl_tmp/upper,workdir=$ovl_tmp/work,redirect_dir=off,metacopy=off" \
		"$ovl_tmp/root"
	r=$ovl_tmp/root
	upper=$ovl_tmp/upper
	mount -t proc proc "$r/proc"
	mount --rbind /dev "$r/dev"
	mount --rbind /sys "$r/sys"
	# the root's own /tmp and /run, empty, as at boot (the host's are not
	# the root's, and not part of what changed)
	mount -t tmpfs -o mode=1777 tmp "$r/tmp"
	mount -t tmpfs -o mode=0755 run "$r/run"
}

# in_overlay ROOT SRC DST CMD...: CMD chrooted in ROOT under an overlay, in
# a mount namespace of its own, with SRC bound at DST inside (what CMD
# writes there is kept; the root is not written)
in_overlay() {
	unshare --mount --propagation private bash -c '
		set -e
		. "$0"
		root=$1 src=$2 dst=$3
		shift 3
		overlay_root "$root"
		mkdir -p "$r$dst"
		mount --bind "$src" "$r$dst"
		chroot "$r" "$@"' "${BASH_SOURCE[0]}" "$@"
}
