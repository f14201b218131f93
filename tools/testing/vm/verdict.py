#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge what a guest recorded (guest-suite.sh) against the manifest.

  verdict.py judge --kver K --out DIR --rc N [--out DIR --rc N ...]
                   [--manifest F] [--filter T]
  verdict.py list  --kver K [--manifest F] [--filter T]

Each --out is a guest's directory and --rc its exit status: a kernel's
suites may be shared out between guests (check.sh), each guest's own
checks (harness) count once per guest, and a suite that ran in two guests
fails.

judge prints one line per result, `PASS|FAIL|SKIP name[: case][ # why]`,
and last `# suites: ...`. Everything a guest can get wrong is a FAIL with
its reason on the line: a non-zero exit of the guest, a run that did not
reach its end, a test without a TAP plan or with another number of results
than its plan, a suite the manifest expects that did not run or ran a different
number of cases, a suite the manifest does not list, and a skip the
manifest does not allow.

list prints the manifest's suites for a kernel that the filter selects
(all of them without a filter), one a line; exit 1 if there are none.
A filter is a substring of the suites' names, or SUITE:CASE[,CASE]: those
cases of the suites SUITE names (selftests/lib.sh, tests_run): a suite
that says it ran only those is judged by the results they report rather
than the manifest's count; one without cases runs whole and is counted.

The manifest (tools/testing/manifest) has three kinds of lines:
  suite KERNELS NAME CASES          NAME must report exactly CASES results
  skip  KERNELS NAME CASE REASON    a skip allowed, CASE and REASON globs
  like  KERNEL AS NAME...           KERNEL runs the suites of AS that the
                                    globs NAME match, with AS's counts and
                                    skips
KERNELS is a comma-separated list of 6.1, 6.12, debug, kcsan, or `all`:
6.1, 6.12 and debug (not kcsan, nor trixie-bpo, which make check also
boots: their suites come from `like` lines). REASON
matches what the test printed after `# SKIP`. CASE `ALL` (and only it)
allows the whole program to skip (`1..0 # SKIP REASON`, exit 4).

selftests/lib.sh prints a test's plan at its end, for the checks that ran:
a test that stops early has a plan that agrees with its results, and only
the manifest's count catches it. A test killed by its timeout prints no
plan at all.
"""
import argparse
import fnmatch
import os
import re
import shlex
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFEST = os.path.join(HERE, "..", "manifest")
# the guest's own checks (guest-suite.sh), always run whatever the filter
HARNESS = "harness"
# what selftests/lib.sh's tests_run prints when it runs only the cases of TESTS
CASES_ONLY = "# tests_run: only "


# what `all` means: the kernels make check boots (kcsan, make check-kcsan,
# has its suites from a `like` line)
ALL = {"6.1", "6.12", "debug"}


def kernels_of(field):
    return ALL if field == "all" else set(field.split(","))


def read_manifest(path, kver, seen=()):
    """{suite: cases} and [(name, case, reason)] for kver (seen: the
    kernels whose `like` led here)."""
    suites, skips, likes = {}, [], []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            words = shlex.split(line, comments=True)
            if not words:
                continue
            where = f"{path}:{n}"
            if words[0] == "suite" and len(words) == 4:
                ks, name, cases = words[1:]
                if not cases.isdigit():
                    sys.exit(f"{where}: the case count '{cases}' is not a number")
                if kver in kernels_of(ks):
                    if name in suites:
                        sys.exit(f"{where}: {name} listed twice for {kver}")
                    suites[name] = int(cases)
            elif words[0] == "skip" and len(words) == 5:
                if kver in kernels_of(words[1]):
                    skips.append(tuple(words[2:]))
            elif words[0] == "like" and len(words) >= 4:
                if words[1] == "all" or "," in words[1]:
                    sys.exit(f"{where}: like names one kernel, not '{words[1]}'")
                if words[1] == kver:
                    likes.append((where, words[2], words[3:]))
            else:
                sys.exit(f"{where}: expected 'suite KERNELS NAME CASES', "
                         f"'skip KERNELS NAME CASE REASON' or 'like KERNEL AS NAME...'")
    for where, like, globs in likes:
        if like == kver or like in seen:
            sys.exit(f"{where}: {kver} cannot run like {like}: a loop of like lines")
        theirs, their_skips = read_manifest(path, like, seen + (kver,))
        for g in globs:
            names = [s for s in theirs if s != HARNESS and fnmatch.fnmatchcase(s, g)]
            if not names:
                sys.exit(f"{where}: no suite of {like} matches '{g}'")
            for name in names:
                if name in suites:
                    sys.exit(f"{where}: {name} listed twice for {kver}")
                suites[name] = theirs[name]
                skips += [sk for sk in their_skips if fnmatch.fnmatchcase(name, sk[0])]
    return suites, skips


def selected(suites, filt):
    return [s for s in suites if s == HARNESS or not filt or filt in s]


class Verdict:
    def __init__(self, kver, skips):
        self.kver, self.skips = kver, skips
        self.lines = []
        self.counts = {}
        self.skipped_all = set()
        # suites that ran only the cases a filter named (selftests/lib.sh)
        self.cases_only = set()

    def allowed(self, suite, case, why, whole):
        """A skip the manifest allows: a case's, or with CASE ALL the whole program's."""
        return any(fnmatch.fnmatchcase(suite, s) and fnmatch.fnmatchcase(why, r) and
                   (c == "ALL" if whole else c != "ALL" and fnmatch.fnmatchcase(case, c))
                   for s, c, r in self.skips)

    def add(self, status, suite, case=None, why=None, count=True):
        """One result of suite; a skip the manifest does not allow fails."""
        name = suite + (f": {case}" if case is not None else "")
        if status == "SKIP" and not self.allowed(suite, case or "", why or "", not count):
            status, why = "FAIL", f"skipped, and the manifest allows no such skip on {self.kver}: {why}"
        self.lines.append(f"{status} {name}" + (f" # {why}" if why else ""))
        if case is not None and count:
            self.counts[suite] = self.counts.get(suite, 0) + 1

    def fail(self, what, why):
        self.lines.append(f"FAIL {what} # {why}")


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return None


TAP_RESULT = re.compile(r"^(not ok|ok) (\d+) - (.*)$")
TAP_PLAN = re.compile(r"^1\.\.(\d+)(?:\s*#\s*SKIP\s*(.*))?$")


def judge_selftest(v, name, log, rc, stuck=None):
    """A kselftest's TAP log and exit status; STUCK, what its processes
    waited in 10 s before its timeout (guest-suite.sh, stuck_snapshot)."""
    if rc is None:
        v.fail(name, "no exit status: the guest stopped while it ran")
        return
    plan, skip_all, n, failed = None, None, 0, False
    for line in log.splitlines():
        if line.startswith(CASES_ONLY):
            v.cases_only.add(name)
            continue
        m = TAP_PLAN.match(line)
        if m:
            if plan is not None:
                v.fail(name, "two TAP plans")
            plan, skip_all = int(m.group(1)), m.group(2)
            continue
        m = TAP_RESULT.match(line)
        if not m:
            continue
        n += 1
        desc, _, why = m.group(3).partition(" # ")
        if m.group(1) == "not ok":
            failed = True
            v.add("FAIL", name, desc, why or None)
        elif why.startswith("SKIP"):
            v.add("SKIP", name, desc, why[4:].strip())
        else:
            v.add("PASS", name, desc, why or None)
    if rc == 124:
        where = "; ".join(line.strip() for line in (stuck or "").splitlines()
                          if line.strip())
        v.fail(name, f"timed out (settings' timeout) after {n} results" +
               (f"; still running: {where}" if where else ""))
    elif plan is None:
        v.fail(name, f"no TAP plan (exit {rc}, {n} results)")
    elif plan == 0 and n == 0 and rc == 4:
        # skip_all: the whole program skipped, which the manifest must allow
        v.add("SKIP", name, "(the whole program)", skip_all or "", count=False)
        v.skipped_all.add(name)
    elif plan != n:
        v.fail(name, f"TAP plan 1..{plan} but {n} results (exit {rc})")
    elif rc not in (0, 1, 4):
        v.fail(name, f"exit status {rc}")
    elif rc == 1 and not failed:
        v.fail(name, "exit status 1 with no failed check")


KTAP_PLAN = re.compile(r"^    1\.\.(\d+)$")
KTAP_CASE = re.compile(r"^    (not ok|ok) \d+ (\S+)(.*)$")
KTAP_SUITE = re.compile(r"^(not ok|ok) \d+ (\S+)")


def judge_kunit(v, suite, ktap):
    name = f"kunit/{suite}"
    plan, n, suite_ok = None, 0, None
    for line in ktap.splitlines():
        m = KTAP_PLAN.match(line)
        if m:
            plan = int(m.group(1))
            continue
        m = KTAP_CASE.match(line)
        if m:
            n += 1
            rest = m.group(3)
            if m.group(1) == "not ok":
                v.add("FAIL", name, m.group(2))
            elif "# SKIP" in rest:
                v.add("SKIP", name, m.group(2), rest.split("# SKIP", 1)[1].strip())
            else:
                v.add("PASS", name, m.group(2))
            continue
        m = KTAP_SUITE.match(line)
        if m and m.group(2) == suite:
            suite_ok = m.group(1) == "ok"
    if plan is None:
        v.fail(name, f"no KTAP plan ({n} cases)")
    elif plan != n:
        v.fail(name, f"KTAP plan 1..{plan} but {n} cases")
    if suite_ok is False and not any(line.startswith(f"FAIL {name}:") for line in v.lines):
        v.fail(name, "the suite failed with no failed case (its init or exit)")
    elif suite_ok is None:
        v.fail(name, "no result line for the suite")


def judge_guest(v, args, suites, wanted, out, rc, which, seen):
    """One guest's directory: its exit, its own checks, what it ran."""
    if rc == 125:
        v.fail("guest", f"{which}did not finish: a panic, or the time limit (see console.log)")
    elif rc == 127:
        v.fail("guest", f"{which}exit 127: a command was not found")
    elif rc != 0:
        v.fail("guest", f"{which}exit status {rc}")
    if read(os.path.join(out, "suite-done")) is None:
        v.fail("guest", f"{which}the suites did not run to their end (no suite-done)")

    harness = read(os.path.join(out, "harness"))
    if harness is None:
        v.fail(HARNESS, f"{which}no record of the guest's own checks (harness)")
    else:
        for line in harness.splitlines():
            status, _, what = line.partition(" ")
            if status not in ("PASS", "FAIL") or not what:
                v.fail(HARNESS, f"{which}unparsable line: {line!r}")
            else:
                v.add(status, HARNESS, which + what)

    def once(name):
        """False, with a failure, for a suite another guest ran too"""
        if name in seen:
            v.fail(name, f"{which}ran in two guests ({seen[name]} too)")
            return False
        seen[name] = out
        return True

    kdir = os.path.join(out, "kunit")
    if os.path.isdir(kdir):
        for f in sorted(os.listdir(kdir)):
            path = os.path.join(kdir, f)
            if f.endswith(".load"):
                rc = (read(path) or "").strip()
                if rc != "0":
                    v.fail(f"kunit/{f[:-5]}", f"modprobe failed (exit {rc or '?'})")
            elif f.endswith(".ktap"):
                suite = f[:-5]
                if (f"kunit/{suite}" in wanted or (
                        f"kunit/{suite}" not in suites and
                        (not args.filter or args.filter in f"kunit/{suite}"))) and \
                        once(f"kunit/{suite}"):
                    judge_kunit(v, suite, read(path) or "")

    sdir = os.path.join(out, "selftests")
    if os.path.isdir(sdir):
        for d in sorted(os.listdir(sdir)):
            for f in sorted(os.listdir(os.path.join(sdir, d))):
                if not f.endswith(".log"):
                    continue
                name = f"{d}/{f[:-4]}"
                if args.filter and args.filter not in name or not once(name):
                    continue
                rc = read(os.path.join(sdir, d, f[:-4] + ".rc"))
                judge_selftest(v, name, read(os.path.join(sdir, d, f)) or "",
                               int(rc) if rc and rc.strip().lstrip("-").isdigit() else None,
                               read(os.path.join(sdir, d, f[:-4] + ".stuck")))


def judge(args):
    suites, skips = read_manifest(args.manifest, args.kver)
    wanted = set(selected(suites, args.filter))
    v = Verdict(args.kver, skips)
    if len(args.out) != len(args.rc):
        sys.exit("verdict.py: one --rc for each --out")
    seen = {}
    for i, (out, rc) in enumerate(zip(args.out, args.rc)):
        which = f"guest {i + 1}: " if len(args.out) > 1 else ""
        judge_guest(v, args, suites, wanted, out, rc, which, seen)
    # the guest's own checks, once per guest
    if HARNESS in suites:
        suites[HARNESS] *= len(args.out)

    # what ran against what the manifest expects
    skipped_all = v.skipped_all
    ran = set(v.counts) | skipped_all
    missing = []
    for s in sorted(wanted):
        if s in skipped_all:
            continue
        got = v.counts.get(s, 0)
        if s not in ran:
            missing.append(s)
            v.fail(s, f"did not run: the manifest expects {suites[s]} cases on {args.kver}")
        elif got != suites[s] and s not in v.cases_only:
            # (a suite that ran only the cases asked for: as many results
            # as they report; one without cases ran whole and must match)
            missing.append(s)
            v.fail(s, f"reported {got} cases, the manifest expects {suites[s]} on {args.kver}")
    unlisted = sorted(ran - set(suites))
    for s in unlisted:
        v.fail(s, f"not in the manifest for {args.kver} (tools/testing/manifest)")
    for line in v.lines:
        print(line)
    print(f"# suites: {len(wanted) - len(missing)} of {len(wanted)} expected ran as listed"
          + (f"; unlisted: {' '.join(unlisted)}" if unlisted else ""))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("mode", choices=("judge", "list"))
    p.add_argument("--kver", required=True)
    p.add_argument("--manifest", default=os.environ.get("ER2BC_MANIFEST", MANIFEST))
    p.add_argument("--filter", default="")
    p.add_argument("--out", action="append")
    p.add_argument("--rc", type=int, action="append")
    args = p.parse_args()
    # SUITE:CASE[,CASE]: the suites SUITE names, only those cases run
    args.filter, _, args.cases = args.filter.partition(":")
    if args.mode == "list":
        names = [s for s in selected(read_manifest(args.manifest, args.kver)[0], args.filter)
                 if s != HARNESS]
        print("\n".join(names))
        sys.exit(0 if names else 1)
    if args.out is None or args.rc is None:
        p.error("judge needs --out and --rc")
    judge(args)


if __name__ == "__main__":
    main()
