#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The metric names er2bcctl metrics can print, one a line, sorted: the
# string literals of its sources (not its tests') that read as one. Read
# by test-vocabulary.sh (against Documentation/status.rst) and by
# tools/monitoring's check (against the dashboard and the alert rules).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
metric='(er2bc|tcp_rcvmgr)_[a-z0-9_]*[a-z0-9]'
grep -ohE "\"$metric\"" $(ls "$here"/*.c | grep -v '/test-') | tr -d '"' | sort -u
