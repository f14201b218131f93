# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the VM harness scripts (sourced, not run).

ER2BC_CACHE=${ER2BC_CACHE:-/var/cache/er2bc}
mkdir -p "$ER2BC_CACHE" 2>/dev/null || ER2BC_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/er2bc
mkdir -p "$ER2BC_CACHE"

# the week the other releases' roots are of (mkroot.sh), taken once and
# passed down, so that one run's calls all name the same root
: "${ER2BC_ROOT_WEEK:=$(date -u +%G-W%V)}"
export ER2BC_ROOT_WEEK

log() { echo "vm: $*" >&2; }
# own_kernel KVER: KVER is one of the kernels the project builds
# (build-debug-kernel.sh), with everything a guest needs built in
own_kernel() { [ "$1" = debug ] || [ "$1" = kcsan ]; }
die() { echo "vm: error: $*" >&2; exit 1; }
# kernel_root KVER: the root file system that has KVER's /boot and
# /lib/modules: the host's (/), or another release's, made on first use
# (mkroot.sh): trixie's, or trixie-bpo's (the newest kernel Debian offers;
# trixie-bpo-all is the same kernel, with every suite: tools/testing/manifest)
kernel_root() {
	case "$1" in
	trixie | trixie-bpo) "$(dirname "${BASH_SOURCE[0]}")/mkroot.sh" "$1" ;;
	trixie-bpo-all) "$(dirname "${BASH_SOURCE[0]}")/mkroot.sh" trixie-bpo ;;
	*) echo / ;;
	esac
}
# guest_root KVER: the root file system KVER's guests run on: the host's,
# or for trixie Debian 13's (its userland on its kernel). trixie-bpo's
# guests run on the host's, with that kernel's modules from its root
guest_root() {
	case "$1" in
	trixie) kernel_root "$1" ;;
	*) echo / ;;
	esac
}

# What a guest must never print. A warning or worse anywhere in the log
# fails the kernel's run in make check, wherever it came from; make soak
# counts a guest that stopped with one as dead.
bad_log='(WARNING:|BUG:|Oops|Kernel panic|general protection fault|UBSAN:|KASAN:|'
bad_log+='possible recursive locking|possible circular locking|inconsistent lock state|'
bad_log+='suspicious RCU usage|refcount_t:|rcu: INFO: .* detected stalls|'
bad_log+='unreferenced object|list_(add|del) corruption|sleeping function called from invalid context|'
# (and a notice that the modules use what the kernel is removing: 7.3
# names a work function queued on a deprecated workqueue, once)
bad_log+='\[(sch_er2bc|tcp_rcvmgr)[a-z_]*\] enqueued on deprecated workqueue)'

# kernel_lines: of a guest's log on stdin, the kernel's lines (timestamped;
# the tests' own output is not scanned), without the console's CRs
kernel_lines() {
	tr -d '\r' | grep -E '^\[ *[0-9]+\.[0-9]+\]'
}

# kcsan_split reports|rest: of a guest's kernel lines on stdin
# (kernel_lines), KCSAN's reports (the KCSAN kernel, make check-kcsan), one
# line each: "ours" or "elsewhere", a tab, its title; or the rest, the
# lines outside them. A report is the modules' if a frame of its stacks is
# in one of them ([sch_er2bc], [tcp_rcvmgr] or their KUnit modules), else
# the kernel's own, as the races virtio's device memory shows ("race at
# unknown origin") are. It ends at its closing line of "=", or, one that
# lost it, at the next report or after 100 lines: both views end it
# alike, so that no report is neither judged nor scanned
kcsan_split() {
	awk -v mode="$1" '
		function end() {
			if (on && mode == "reports")
				print (ours ? "ours" : "elsewhere") "\t" title
			on = 0
		}
		{ l = $0; sub(/^\[ *[0-9.]+\] /, "", l) }
		l ~ /BUG: KCSAN:/ { end(); on = 1; ours = 0; n = 0; title = l; next }
		on && l ~ /\[(sch_er2bc|tcp_rcvmgr)(_kunit)?\]/ { ours = 1 }
		on && l ~ /^=+$/ { end(); next }
		on && ++n > 100 { end() }
		!on && mode == "rest"
		END { end() }'
}

# fault_lines: of a guest's log on stdin, the first report the log scan
# fails on, its RIP and the first callers of its trace, at most 10 lines
fault_lines() {
	kernel_lines | sed 's/^\[ *[0-9.]*\] //' |
		awk -v bad="$bad_log" '
			!on && $0 ~ bad { on = 1 }
			on && ($0 ~ bad || /RIP: [0-9]+:|Call Trace|^ *[A-Za-z0-9_.]+\+0x/) { print; if (++n == 10) exit }'
}
