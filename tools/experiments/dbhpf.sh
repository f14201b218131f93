#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Seed 000's DBHPF scenario (Table 5, Fig. 11-12): TCP and UDP, each with no
# control, the existing method (mode static) and eR2BC. [--full]: 320 s a run
# in real time instead of the 4x-compressed default.
exec "$(dirname "$0")/gateway-scenario.sh" dbhpf "$@"
