#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Seed 000's tracking scenario (Table 6, Fig. 13-14): random cross traffic,
# eR2BC, TCP and UDP. [--full]: 320 s a run in real time instead of the
# 4x-compressed default.
exec "$(dirname "$0")/gateway-scenario.sh" tracking "$@"
