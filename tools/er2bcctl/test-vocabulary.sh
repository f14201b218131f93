#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Documentation/status.rst's vocabulary against the code: every metric
# name er2bcctl metrics can print (a string literal of its sources) is in
# the vocabulary's tables, and every metric name the tables give is one
# it prints. A metric renamed or added on one side only fails here.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
doc=$here/../../Documentation/status.rst
n=0 failed=0

metric='(er2bc|tcp_rcvmgr)_[a-z0-9_]*[a-z0-9]'
code=$(grep -ohE "\"$metric\"" $(ls "$here"/*.c | grep -v '/test-') | tr -d '"' | sort -u)
# (the section from its title on; a name in double back-quotes, its
# labels after it or not; the prefixes the conventions name end in _)
words=$(awk '/^Vocabulary$/ { on = 1 } on' "$doc" |
	grep -oE "\`\`$metric(\`\`|\\{)" | sed 's/^``//; s/``$//; s/{$//' | sort -u)

n=$((n + 1))
if [ "$(echo "$code" | wc -l)" -lt 40 ] || [ "$(echo "$words" | wc -l)" -lt 40 ]; then
	echo "not ok $n - the metric names were read from the code and from status.rst" \
		"($(echo "$code" | wc -l) and $(echo "$words" | wc -l))"
	failed=$((failed + 1))
else
	echo "ok $n - the metric names were read from the code and from status.rst"
fi
n=$((n + 1))
missing=$(comm -23 <(echo "$code") <(echo "$words") | tr '\n' ' ')
if [ -n "$missing" ]; then
	echo "not ok $n - every metric er2bcctl prints is in status.rst's vocabulary: missing $missing"
	failed=$((failed + 1))
else
	echo "ok $n - every metric er2bcctl prints is in status.rst's vocabulary"
fi
n=$((n + 1))
extra=$(comm -13 <(echo "$code") <(echo "$words") | tr '\n' ' ')
if [ -n "$extra" ]; then
	echo "not ok $n - every metric status.rst's vocabulary names is one er2bcctl prints: not printed $extra"
	failed=$((failed + 1))
else
	echo "ok $n - every metric status.rst's vocabulary names is one er2bcctl prints"
fi
echo "1..$n"
[ $failed = 0 ]
