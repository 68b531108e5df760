#!/usr/bin/env python3
"""The arrows between mpimon's targets, as CMake links them, against docs/architecture.md.

CMake's own view of every target's direct link dependencies (`cmake --graphviz`, run on a fresh
configure of the source tree into a scratch directory, or a given dot file) is compared with the
table under "## Every arrow" of the page: each row names a target (or several, or a glob such as
`mpimon_*_replay`) and every target or library it may link. An arrow CMake has and the page does not
is a failure (a dependency added without saying so), and so is an arrow the page lists for a
target CMake has but does not link (a stale page), unless the page marks it "(optional)".

The drawing under "## The libraries and what they depend on" gives each library a layer (the
names before the colon of a row, under "layer N") or puts it among the MPI code (under "MPI"): an
arrow from a layer to a higher one (an arrow that runs back up) is a failure, and so is MPI code
that reaches mpimon::harness by any path.

Usage: check_arrows.py PAGE (--dot FILE | --cmake CMAKE SOURCE [-DVAR=VALUE...])
Prints one line per difference; exits 1 when there is one."""

import fnmatch
import os
import re
import subprocess
import sys
import tempfile

# External libraries as the page names them (a dot label, or a regular expression on it).
EXTERNAL = [
    ("hdf5::hdf5", "HDF5"), ("PkgConfig::PHDF5", "parallel HDF5"), ("MPI::MPI_CXX", "MPI"),
    ("MPI::MPI_C", "MPI"), ("PkgConfig::HWLOC", "hwloc"), (r"re:.*/libscotch(err)?\.so$", "Scotch"),
    (r"re:.*/libmetis\.so$", "METIS"), ("dl", "dlopen"), ("Boost::headers", "Boost headers"),
    ("Boost::program_options", "Boost.Program_options"), ("nlohmann_json::nlohmann_json", "nlohmann-json"),
    ("GTest::gtest_main", "GoogleTest"), ("benchmark::benchmark", "Google Benchmark"),
    (r"re:.*/libsimgrid\.so$", "SimGrid"),
]
IGNORED = {"mpimon_warnings"}  # compiler warnings only, no code


def page_name(label):
    """`mpimon::base` for "mpimon_base\\n(mpimon::base)", the page's word for an external library."""
    alias = re.search(r"\((mpimon::[a-z_]+)\)$", label)
    if alias:
        return alias.group(1)
    for pattern, name in EXTERNAL:
        if pattern.startswith("re:") and re.match(pattern[3:], label) or pattern == label:
            return name
    return label


def cmake_arrows(dot):
    """{target: {linked}} for the project's targets (names starting with mpimon)."""
    labels = dict(re.findall(r'"(node\d+)" \[ label = "([^"]+)"', dot))
    arrows = {}
    for source, target in re.findall(r'"(node\d+)" -> "(node\d+)"', dot):
        a, b = labels[source].replace("\\n", "\n"), labels[target].replace("\\n", "\n")
        first = a.split("\n")[0]
        if not first.startswith("mpimon") or b.split("\n")[0] in IGNORED:
            continue
        if a == b:
            continue  # CMake draws a test executable's edge to itself (gtest_discover_tests)
        arrows.setdefault(page_name(a), set()).add(page_name(b))
    for name in re.findall(r'\[ label = "(mpimon[^"]*)"', dot):
        if name not in IGNORED:
            arrows.setdefault(page_name(name.replace("\\n", "\n")), set())
    return arrows


def page_arrows(path):
    """[(target patterns, {linked: optional})] from the table under "## Every arrow"."""
    rows, inside = [], False
    for line in open(path, encoding="utf-8"):
        if line.startswith("## "):
            inside = line.strip() == "## Every arrow"
            continue
        if not inside or not line.startswith("| `"):
            continue
        cells = line.split("|")
        targets = re.findall(r"`([^`]+)`", cells[1])
        linked = {m.group(1): bool(m.group(2)) for m in re.finditer(r"`([^`]+)`( \(optional\))?", cells[2])}
        rows.append((targets, linked))
    return rows


def page_layers(path):
    """({target: layer number}, {targets of the MPI code}) from the drawing of the layers."""
    layers, mpi, group, inside = {}, set(), None, False
    for line in open(path, encoding="utf-8"):
        if line.startswith("## "):
            inside = line.strip() == "## The libraries and what they depend on"
            continue
        head = re.match(r"^(layer (\d)|MPI)?\s*", line[:9])
        if not inside or len(line) < 10 or line[9] == " " or head.end() != 9:
            continue
        if head.group(1):
            group = int(head.group(2)) if head.group(2) else "MPI"
        description = line[9:].split(None, 1)[1] if len(line[9:].split(None, 1)) > 1 else ""
        for name in re.split(r":\s", description, 1)[0].split(","):
            name = name.strip()
            if re.fullmatch(r"mpimon[\w:]*", name):
                if group == "MPI":
                    mpi.add(name)
                elif group is not None:
                    layers[name] = group
    return layers, mpi


def check_layers(arrows, layers, mpi):
    problems = []
    for target, linked in sorted(arrows.items()):
        for name in sorted(linked):
            if target in layers and name in layers and layers[name] > layers[target]:
                problems.append(f"{target} -> {name}: runs back up (layer {layers[target]} to layer {layers[name]})")
    for target in sorted(mpi):
        seen, todo = set(), [target]
        while todo:
            for name in arrows.get(todo.pop(), ()):
                if name not in seen:
                    seen.add(name)
                    todo.append(name)
        if "mpimon::harness" in seen:
            problems.append(f"{target}: MPI code that reaches mpimon::harness")
    return problems


def compare(arrows, rows):
    problems = []
    for target, linked in sorted(arrows.items()):
        allowed = {}
        matched = False
        for patterns, names in rows:
            if any(fnmatch.fnmatchcase(target, p) for p in patterns):
                matched = True
                allowed.update(names)
        if not matched:
            problems.append(f"{target}: a target the page does not list (docs/architecture.md, Every arrow)")
            continue
        for name in sorted(linked - set(allowed)):
            problems.append(f"{target} -> {name}: an arrow not in the page")
        for name, optional in sorted(allowed.items()):
            if name not in linked and not optional:
                problems.append(f"{target} -> {name}: in the page, not linked (say it is optional, or remove it)")
    return problems


def graphviz(cmake, source, definitions):
    with tempfile.TemporaryDirectory(prefix="mpimon-arrows.") as scratch:
        dot = os.path.join(scratch, "arrows.dot")
        run = subprocess.run([cmake, "-S", source, "-B", os.path.join(scratch, "build"), f"--graphviz={dot}",
                              *definitions], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if run.returncode != 0:
            sys.exit(f"check_arrows.py: cmake failed:\n{run.stdout[-2000:]}")
        return open(dot).read()


def main(argv):
    if len(argv) < 4 or argv[2] not in ("--dot", "--cmake") or argv[2] == "--cmake" and len(argv) < 5:
        sys.exit(__doc__)
    page, mode = argv[1], argv[2]
    dot = open(argv[3]).read() if mode == "--dot" else graphviz(argv[3], argv[4], argv[5:])
    arrows = cmake_arrows(dot)
    problems = compare(arrows, page_arrows(page)) + check_layers(arrows, *page_layers(page))
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"{sum(len(v) for v in arrows.values())} arrows of {len(arrows)} targets, as docs/architecture.md lists them")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
