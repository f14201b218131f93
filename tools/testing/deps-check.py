#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Which file of a module calls which, from the built objects: a module's
files must call one another one way only (Documentation/design.rst).
The same for the tools' programs, and between their directories: only
tools/lib is shared, and it calls none of them.

  deps-check.py BUILD_DIR	the modules, built under BUILD_DIR
  deps-check.py --tools		the tools, built in place (make tools)

For each module in the repository's Kbuild files (MODULE-y := a.o b.o ...),
reads the objects under BUILD_DIR/<module dir>/ with nm: file a depends on
file b when a leaves undefined a global symbol that b defines (a function,
a variable, a tracepoint). Inline functions and macros from headers are
not seen: they call nothing of another file that the objects would not
show. Prints TAP, one line per module: ok when no file depends, directly
or through others, on a file that depends on it; else the cycles. A
module listed in CYCLES_KNOWN is reported "# TODO" (TAP: a failure
expected, not counted) with its cycles, until the change that removes them.
"""
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# modules whose files still call each other (reported, not failed)
CYCLES_KNOWN = set()
# the tools' directories, their objects built in place (make tools); the
# test harnesses and the daemon's mock kernel (kern-mock.c, a stand-in for
# kern.c) are left out
TOOLS = ("lib", "er2bcctl", "abwd")
TOOL_SKIP = re.compile(r"^(test-.*|kern-mock|fuzz-.*)\.o$")


def kbuild_dirs():
    """the repository's directories that have a Kbuild of their own"""
    return [d for d in sorted(os.listdir(TOP)) if os.path.isfile(os.path.join(TOP, d, "Kbuild"))]


def modules():
    """(directory, module, [object names]) from each module's Kbuild"""
    for d in kbuild_dirs():
        kbuild = os.path.join(TOP, d, "Kbuild")
        text = open(kbuild).read().replace("\\\n", " ")
        # obj-m (outside a tree) or obj-$(CONFIG_...) (the form a module's
        # Kbuild has in a kernel tree)
        mods = re.findall(r"^obj-(?:m|\$\(CONFIG_\w+\))\s*[:+]?=\s*(\S+)\.o\s*$", text, re.M)
        for mod in mods:
            if mod.endswith("_kunit"):
                continue  # the tests, which call what they test
            objs = []
            for m in re.finditer(rf"^{mod}-y\s*[:+]?=\s*(.*)$", text, re.M):
                objs += [o[:-2] for o in m.group(1).split() if o.endswith(".o")]
            if len(objs) > 1:
                yield d, mod, objs


def symbols(path):
    """the global symbols @path defines, and those it leaves undefined"""
    out = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "U":
            undefined.add(f[1])
        elif len(f) == 3 and f[1] in "TDBRGSVW":
            defined.add(f[2])
    return defined, undefined


def file_edges(syms):
    """{file: the files whose symbols it uses}, from {file: (defined, undefined)}"""
    owner = {s: o for o, (defd, _) in syms.items() for s in defd}
    return {o: {owner[s] for s in und if s in owner and owner[s] != o}
            for o, (_, und) in syms.items()}


def cycle_names(found):
    """the cycles cycles() found, as 'a.c, b.c; ...'"""
    return "; ".join(", ".join(f"{o}.c" for o in c) for c in found)


def cycles(edges):
    """the strongly connected components of more than one file (Tarjan)"""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    if sys.argv[1] == "--tools":
        n, failed = check_tools(0)
        print(f"1..{n}")
        return 1 if failed else 0
    build = sys.argv[1]
    n = failed = 0
    for d, mod, objs in modules():
        n += 1
        name = f"{d}/{mod}"
        syms = {}
        for o in objs:
            path = os.path.join(build, d, o + ".o")
            if not os.path.isfile(path):
                print(f"not ok {n} - {name}: {path} is not built")
                failed += 1
                break
            syms[o] = symbols(path)
        else:
            edges = file_edges(syms)
            found = cycles(edges)
            calls = "; ".join(f"{o}.c -> " + ", ".join(f"{w}.c" for w in sorted(edges[o]))
                              for o in sorted(edges) if edges[o])
            if not found:
                print(f"ok {n} - {name}: no file calls back a file that calls it")
                print(f"# {calls}")
            elif name in CYCLES_KNOWN:
                print(f"not ok {n} - {name}: files that call each other # TODO "
                      + cycle_names(found))
            else:
                print(f"not ok {n} - {name}: files that call each other: "
                      + cycle_names(found))
                print(f"# {calls}")
                failed += 1
    kbuilds = len(kbuild_dirs())
    if n < kbuilds:
        # (a Kbuild this script no longer reads is a failure, not a pass)
        n += 1
        print(f"not ok {n} - a module in each of the {kbuilds} directories with a Kbuild; "
              f"{n - 1} found")
        failed += 1
    print(f"1..{n}")
    return 1 if failed else 0


def check_tools(n):
    """each tool's files one way; tool directories one way, to tools/lib only"""
    failed = 0
    syms = {}
    for d in TOOLS:
        path = os.path.join(TOP, "tools", d)
        objs = sorted(o for o in os.listdir(path) if o.endswith(".o") and not TOOL_SKIP.match(o))
        n += 1
        if not objs:
            print(f"not ok {n} - tools/{d}: no objects (make tools)")
            failed += 1
            continue
        local = {o[:-2]: symbols(os.path.join(path, o)) for o in objs}
        found = cycles(file_edges(local))
        if found:
            print(f"not ok {n} - tools/{d}: files that call each other: " + cycle_names(found))
            failed += 1
        else:
            print(f"ok {n} - tools/{d}: no file calls back a file that calls it")
        for o, (defd, und) in local.items():
            syms[(d, o)] = (defd, und)
    # a symbol a file leaves undefined comes from its own directory if
    # that defines it, else from tools/lib, else from whichever does
    defined = {d: set() for d in TOOLS}
    for (d, _), (defd, _) in syms.items():
        defined[d] |= defd
    dirs = {d: set() for d in TOOLS}
    for (d, _), (_, und) in syms.items():
        for s in und - defined[d]:
            if s in defined["lib"]:
                dirs[d].add("lib")
            else:
                dirs[d] |= {o for o in TOOLS if s in defined[o]}
    # and none builds another's sources (a pattern rule on ../er2bcctl/%.c)
    for d in TOOLS:
        mk = open(os.path.join(TOP, "tools", d, "Makefile")).read()
        dirs[d] |= {t for t in re.findall(r"\.\./(\w+)/", mk) if t in TOOLS and t != d}
    n += 1
    bad = [f"{d} -> {', '.join(sorted(t))}" for d, t in sorted(dirs.items())
           if t - {"lib"} or (d == "lib" and t)]
    if bad:
        print(f"not ok {n} - tools: a directory calls another than tools/lib: " + "; ".join(bad))
        failed += 1
    else:
        print(f"ok {n} - tools: each directory calls tools/lib only")
    print("# " + "; ".join(f"{d} -> {', '.join(sorted(t)) or 'none'}" for d, t in sorted(dirs.items())))
    return n, failed


if __name__ == "__main__":
    sys.exit(main())
