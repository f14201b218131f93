#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make lint: checkpatch (--strict, as netdev runs it) on the project's
# kernel and plugin sources, sparse (C=2) on the modules against each
# Debian kernel, and no file of a module calling back one that calls it
# (deps-check.py). Any finding fails.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tools/testing/vm/common.sh"
cd "$top"

# checkpatch and its data files (CAMELCASE is ignored: outside a kernel
# tree checkpatch takes the kernel's own Qdisc and Qdisc_ops for new names), from Debian's linux-source (once)
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12) || die "linux-source-6.12 is not installed"
cp_dir=$ER2BC_CACHE/checkpatch/$srcver
if [ ! -x "$cp_dir/scripts/checkpatch.pl" ]; then
	mkdir -p "$cp_dir"
	tar -xJf /usr/src/linux-source-6.12.tar.xz -C "$cp_dir" --strip-components=1 \
		--wildcards '*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch' || die "cannot extract checkpatch"
fi

fail=0
# what the kernel's YNL generator writes (nl_gen.[ch]) is kept as it
# writes it: ynl-gen.sh --check below compares it with the generator's
files=$(git ls-files -co --exclude-standard -- 'sch_er2bc/*.[ch]' 'tcp_rcvmgr/*.[ch]' \
	'include/*.h' 'tools/tc/*.[ch]' | sort -u | xargs grep -L '^/\* YNL-GEN kernel')
echo "checkpatch --strict: $(echo "$files" | wc -w) files"
if ! "$cp_dir/scripts/checkpatch.pl" --no-tree --strict --terse --show-types \
	--ignore CAMELCASE -f $files; then
	fail=1
fi

# the rst documents parse without a warning (a malformed table renders as
# an error block, a broken link as nothing)
if ! /usr/bin/python3 - "$top"/Documentation/*.rst <<'EOF'; then
import sys
import docutils.core
import docutils.utils

bad = 0
for path in sys.argv[1:]:
    try:
        docutils.core.publish_string(open(path).read(), source_path=path, writer_name="null",
                                     settings_overrides={"halt_level": 2, "report_level": 5})
    except docutils.utils.SystemMessage as e:
        print(f"rst: {e}")
        bad = 1
print(f"rst: {len(sys.argv) - 1} documents" + (" with warnings" if bad else ", clean"))
sys.exit(bad)
EOF
	fail=1
fi

# the families' uapi headers, policies and commands are what their YNL
# specs generate
"$top/tools/testing/ynl-gen.sh" --check || fail=1

for k in 6.1 6.12; do
	out=$("$top/tools/testing/build-modules.sh" "$k" C=2 W=1 2>&1 >/dev/null)
	findings=$(echo "$out" | grep -E '(warning|error):')
	if [ -n "$findings" ]; then
		echo "sparse ($k):"
		echo "$findings"
		fail=1
	else
		echo "sparse ($k): clean"
	fi
done

# each module's files call one another one way (Documentation/design.rst),
# read from the objects the last build left (the tools': deps-check.py
# --tools, after they are built: make lint, and make check's host tests)
"$top/tools/testing/deps-check.py" "$top/build/6.12" || fail=1
exit $fail
