#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The tests that need no kernel module: the tools' unit and loop tests, the
# estimator's fuzzers from their seed corpora, the file dependency check,
# the harness's own test, make install into a directory, the
# documentation's figures, the experiments' report and counting, and the
# soak's report. make
# check runs them before the guests; make check-host runs them alone (the inner loop
# of a change to tools/). Each test's log goes to REPORT/host-NAME.log; a
# line per failure, then `host: N passed, N failed`; exits non-zero if one
# failed.
#
#   host-tests.sh REPORT
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
report=${1:?usage: host-tests.sh REPORT}
mkdir -p "$report"

host_test() {
	case $1 in
	tools/abwd-fuzz) make -s -C "$top/tools/abwd" fuzz-check ;;
	# (after the tools' checks, which built them)
	tools-deps) "$top/tools/testing/deps-check.py" --tools ;;
	tools/*) make -s -C "$top/$1" check ;;
	harness) "$top/tools/testing/test-check.sh" ;;
	install) "$top/tools/packaging/test-install.sh" ;;
	doc-figures) "$top/tools/testing/doc-figures.py" ;;
	experiments) "$top/tools/experiments/test-report.py" ;;
	counting) "$top/tools/experiments/test-counting.py" ;;
	soak-report) "$top/tools/testing/vm/test-soak-report.py" ;;
	esac
}

pass=0 fail=0
: >"$report/host.log"
for name in tools/er2bcctl tools/monitoring tools/abwd tools/abwd-fuzz tools-deps harness install doc-figures \
	experiments counting soak-report; do
	log=$report/host-${name//\//-}.log
	if host_test "$name" >"$log" 2>&1; then
		pass=$((pass + 1))
	else
		echo "# host: $name failed (log: $log)"
		# (the failed cases with their detail first: a CI log shows
		# only the tail of what this prints)
		grep -A 8 '^not ok' "$log" | head -n 40
		echo "# ... the log's end:"
		tail -n 20 "$log"
		echo "FAIL host $name$(grep -m 3 "^not ok" "$log" | sed "s/^/; /" | tr -d "\n")"
		fail=$((fail + 1))
	fi
	cat "$log" >>"$report/host.log"
done
echo "host: $pass passed, $fail failed"
[ "$fail" = 0 ]
