#!/usr/bin/env python3
"""Checks that every CTest test launching N > 1 MPI processes reserves N processors.

CTest's PROCESSORS property is what keeps `ctest -j` from running two large launches at once
(a test asking more than the parallel level runs alone). A test's process count is read from
its command line (`--np N`, `-np N`, `-n N`, `-N N`) and, for tests labelled `mpi`, from its name
(`.npN`); tests that launch from a script state their largest count with PROCESSORS themselves.

Usage: check_processors.py BUILD_DIR    (runs `ctest --show-only=json-v1` there)
       check_processors.py --json FILE  (a saved `ctest --show-only=json-v1` output)
Exit: 0 all reserve enough, 1 some do not (each printed), 2 usage or unreadable input.
"""

import json
import re
import subprocess
import sys

NP_OPTIONS = {"--np", "-np", "-n", "-N"}
NAME_NP = re.compile(r"\.np(\d+)(?:\.|$)")


def launched_processes(test):
    """The largest process count the test's command line or name states, 0 if none."""
    largest = 0
    command = test.get("command") or []
    for option, value in zip(command, command[1:]):
        if option in NP_OPTIONS and value.isdigit():
            largest = max(largest, int(value))
    match = NAME_NP.search(test.get("name", ""))
    if match and "mpi" in property_value(test, "LABELS", []):
        largest = max(largest, int(match.group(1)))
    return largest


def property_value(test, name, default):
    for prop in test.get("properties") or []:
        if prop.get("name") == name:
            return prop.get("value")
    return default


def reserved_processors(test):
    return int(property_value(test, "PROCESSORS", 1))


def main(argv):
    if len(argv) == 3 and argv[1] == "--json":
        try:
            with open(argv[2], encoding="utf-8") as f:
                listing = json.load(f)
        except (OSError, ValueError) as e:
            print(f"error: {argv[2]}: {e}", file=sys.stderr)
            return 2
    elif len(argv) == 2 and not argv[1].startswith("-"):
        run = subprocess.run(["ctest", "--show-only=json-v1"], cwd=argv[1], capture_output=True, text=True)
        if run.returncode != 0:
            print(f"error: {argv[1]}: ctest --show-only failed: {run.stderr.strip()}", file=sys.stderr)
            return 2
        listing = json.loads(run.stdout)
    else:
        print(__doc__.strip().split("\n\n")[2], file=sys.stderr)
        return 2
    short = []
    tests = listing.get("tests", [])
    for test in tests:
        np = launched_processes(test)
        if np > 1 and reserved_processors(test) < np:
            short.append(f"{test['name']}: launches {np} processes, PROCESSORS {reserved_processors(test)}")
    for line in short:
        print(line)
    print(f"{len(tests)} tests, {len(short)} reserving fewer processors than they launch")
    return 1 if short else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
