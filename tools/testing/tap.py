# SPDX-License-Identifier: GPL-2.0
"""TAP for the host tests written in Python: ok() for each check, done()
last (the plan, a count of failures, the exit status)."""
import sys

_n = _failed = 0


def ok(cond, what):
    """one check: `ok N - what` or `not ok N - what`"""
    global _n, _failed
    _n += 1
    print(f"{'ok' if cond else 'not ok'} {_n} - {what}")
    _failed += not cond


def done():
    print(f"1..{_n}")
    if _failed:
        print(f"# {_failed} of {_n} failed")
    sys.exit(1 if _failed else 0)
