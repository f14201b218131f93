# SPDX-License-Identifier: GPL-2.0
#
# What the benchmark scripts (make bench-*) share. Sourced once they have
# set top (the repository) and kver; sets bench (build/bench, created),
# start, kdir and mods (the modules, built), and defines log, bench_vm and
# bench_publish.

bench=$top/build/bench
start=$(date +%s)
mkdir -p "$bench"
# the code that runs: taken now, before anything is built from it; the
# results of other benchmarks (Documentation/results) are not code
commit=$(git -C "$top" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
# (untracked files count: build-modules.sh builds every source it finds)
if [ -n "$(git -C "$top" status --porcelain -- . \
	':(exclude)Documentation/results' 2>/dev/null)" ]; then
	commit+=-dirty
fi

log() { echo "bench: $*" >&2; }

# The modules, built against the kernel's tree named by its path: that
# gives them a build directory of their own (build/kdir-*), apart from the
# one make check and make demo use for KVER.
kdir=$("$top/tools/testing/vm/kernels.sh" kdir "$kver")
mods=$("$top/tools/testing/build-modules.sh" "$kdir" 2>/dev/null)

# bench_vm OUT COMMAND RUN_ARGS...: one boot of $kver (tools/testing/vm/
# run.sh with RUN_ARGS) whose guest installs the modules, then runs
# COMMAND and writes into OUT (emptied first). The console goes to
# OUT/console.log, the guest's progress lines (bench: ...) to stderr. A VM
# that fails is named, and so is its console; the status is returned.
bench_vm() {
	local out=$1 cmd=$2 rc=0

	shift 2
	rm -rf "$out"
	mkdir -p "$out"
	"$top/tools/testing/vm/run.sh" -k "$kver" -o "$out" "$@" -- bash -c \
		"$top/tools/testing/vm/guest-install.sh $mods && $cmd" |
		grep --line-buffered '^bench:' >&2 || rc=${PIPESTATUS[0]}
	[ "$rc" = 0 ] || log "the VM failed ($rc); see $out/console.log"
	return "$rc"
}

# bench_publish NAME RESULT: build/bench/bench-NAME-$kver.json (and .md,
# if the report wrote one) copied to RESULT (and its .md), with the commit
# it ran on and the time the whole run took. Results of a tree with
# uncommitted changes stay in build/bench: figures in Documentation/ must
# name the code that made them.
bench_publish() {
	local from=$bench/bench-$1-$kver result=$2 took=$(($(date +%s) - start))
	local wrote=$result

	python3 - "$from.json" "$commit" <<-'EOF'
	import json, sys
	j = json.load(open(sys.argv[1]))
	j = {"commit": sys.argv[2], **{k: v for k, v in j.items() if k != "commit"}}
	json.dump(j, open(sys.argv[1], "w"), indent=1)
	EOF
	if [[ "$commit" == *-dirty || "$commit" == unknown ]] && [ -z "${BENCH_ALLOW_DIRTY:-}" ]; then
		log "the tree had uncommitted changes ($commit): results left in $from.json," \
			"not published to $result (commit first, or BENCH_ALLOW_DIRTY=1)"
		return 1
	fi
	mkdir -p "$(dirname "$result")"
	cp "$from.json" "$result"
	if [ -e "$from.md" ]; then
		cp "$from.md" "${result%.json}.md"
		wrote+=" and ${result%.json}.md"
	fi
	log "wrote $wrote ($((took / 60)) min $((took % 60)) s)"
}
