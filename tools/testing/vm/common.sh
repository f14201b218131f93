# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the VM harness scripts (sourced, not run).

ER2BC_CACHE=${ER2BC_CACHE:-/var/cache/er2bc}
mkdir -p "$ER2BC_CACHE" 2>/dev/null || ER2BC_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/er2bc
mkdir -p "$ER2BC_CACHE"

log() { echo "vm: $*" >&2; }
# own_kernel KVER: KVER is one of the kernels the project builds
# (build-debug-kernel.sh), with everything a guest needs built in
own_kernel() { [ "$1" = debug ] || [ "$1" = kcsan ]; }
die() { echo "vm: error: $*" >&2; exit 1; }

# What a guest must never print. A warning or worse anywhere in the log
# fails the kernel's run in make check, wherever it came from; make soak
# counts a guest that stopped with one as dead.
bad_log='(WARNING:|BUG:|Oops|Kernel panic|general protection fault|UBSAN:|KASAN:|'
bad_log+='possible recursive locking|possible circular locking|inconsistent lock state|'
bad_log+='suspicious RCU usage|refcount_t:|rcu: INFO: .* detected stalls|'
bad_log+='unreferenced object|list_(add|del) corruption|sleeping function called from invalid context)'

# kernel_lines: of a guest's log on stdin, the kernel's lines (timestamped;
# the tests' own output is not scanned), without the console's CRs
kernel_lines() {
	tr -d '\r' | grep -E '^\[ *[0-9]+\.[0-9]+\]'
}

# KCSAN's reports (the KCSAN kernel, make check-kcsan), from a guest's
# kernel lines on stdin (kernel_lines): a report is the modules' if a
# frame of its stacks is in one of them ([sch_er2bc], [tcp_rcvmgr] or
# their KUnit modules);
# else it is the kernel's own, as the races virtio's device memory shows
# ("race at unknown origin") are
# kcsan_reports: one line a report, "ours" or "elsewhere", a tab, its title
kcsan_reports() {
	sed 's/^\[ *[0-9.]*\] //' | awk '
		/BUG: KCSAN:/ { on = 1; ours = 0; title = $0; next }
		on && /\[(sch_er2bc|tcp_rcvmgr)(_kunit)?\]/ { ours = 1 }
		on && /^=+$/ { print (ours ? "ours" : "elsewhere") "\t" title; on = 0 }'
}
# no_kcsan: the kernel lines on stdin but KCSAN's reports (one that
# lost its closing line ends at the next report or after 100 lines, so
# that what follows it is still scanned)
no_kcsan() {
	awk '
		/BUG: KCSAN:/ { on = 1; n = 0; next }
		on && (/\] =+$/ || ++n > 100) { on = 0; next }
		!on'
}

# fault_lines: of a guest's log on stdin, the first report the log scan
# fails on, its RIP and the first callers of its trace, at most 10 lines
fault_lines() {
	kernel_lines | sed 's/^\[ *[0-9.]*\] //' |
		awk -v bad="$bad_log" '
			!on && $0 ~ bad { on = 1 }
			on && ($0 ~ bad || /RIP: [0-9]+:|Call Trace|^ *[A-Za-z0-9_.]+\+0x/) { print; if (++n == 10) exit }'
}
