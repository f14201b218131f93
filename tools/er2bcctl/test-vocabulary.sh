#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Documentation/status.rst's vocabulary against the code: every metric
# name er2bcctl metrics can print (metric-names.sh) is in the
# vocabulary's tables, and every metric name the tables give is one it
# prints. A metric renamed or added on one side only fails here.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
doc=$here/../../Documentation/status.rst
n=0 failed=0

# check DESCRIPTION [WHY]: one TAP line, not ok when WHY says what is wrong
check() {
	n=$((n + 1))
	if [ -n "${2:-}" ]; then
		echo "not ok $n - $1: $2"
		failed=$((failed + 1))
	else
		echo "ok $n - $1"
	fi
}

metric='(er2bc|tcp_rcvmgr)_[a-z0-9_]*[a-z0-9]'
code=$("$here/metric-names.sh")
# (the section from its title on; a name in double back-quotes, its
# labels after it or not; the prefixes the conventions name end in _)
words=$(awk '/^Vocabulary$/ { on = 1 } on' "$doc" |
	grep -oE "\`\`$metric(\`\`|\\{)" | sed 's/^``//; s/``$//; s/{$//' | sort -u)

ncode=$(echo "$code" | wc -l) nwords=$(echo "$words" | wc -l)
check "the metric names were read from the code and from status.rst" \
	"$([ "$ncode" -lt 40 ] || [ "$nwords" -lt 40 ] && echo "only $ncode and $nwords")"
missing=$(comm -23 <(echo "$code") <(echo "$words") | tr '\n' ' ')
check "every metric er2bcctl prints is in status.rst's vocabulary" "${missing:+missing $missing}"
extra=$(comm -13 <(echo "$code") <(echo "$words") | tr '\n' ' ')
check "every metric status.rst's vocabulary names is one er2bcctl prints" \
	"${extra:+not printed $extra}"
echo "1..$n"
[ $failed = 0 ]
