#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs each libFuzzer target (make fuzz) for SECONDS from its seed corpus
# in fuzz/corpus/TARGET/, new inputs in a scratch directory. A crash, a
# leak, a timeout or a sanitizer report fails the run, and the input that
# caused it is left in fuzz/corpus/TARGET/ (crash-*, leak-*, timeout-*):
# commit it with the fix, and it is a seed from then on.
#
#   fuzz/run.sh [SECONDS]	(default 30)
set -u
cd "$(dirname "$0")" || exit 1
secs=${1:-30}
fail=0
for t in wire conf json; do
	work=$(mktemp -d)
	echo "fuzz-$t: $secs s from $(ls "corpus/$t" | wc -l) seeds"
	./"fuzz-$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 \
		-print_final_stats=1 -close_fd_mask=2 -artifact_prefix="corpus/$t/" \
		"$work" "corpus/$t" >"$work.log" 2>&1
	rc=$?
	grep -E '^stat::(number_of_executed_units|new_units_added)|^#[0-9]+.*DONE' "$work.log" |
		sed "s/^/fuzz-$t: /"
	if [ $rc != 0 ]; then
		grep -E 'ERROR|SUMMARY|Test unit written|==[0-9]+==' "$work.log" | head -20
		echo "fuzz-$t: FAILED (exit $rc); the input is in $(pwd)/corpus/$t/"
		fail=1
	fi
	rm -rf "$work" "$work.log"
done
exit $fail
