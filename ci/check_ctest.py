#!/usr/bin/env python3
"""Checks every CTest registration of a build against a rule.

processors: every test launching N > 1 MPI processes reserves N processors. CTest's PROCESSORS
  property is what keeps `ctest -j` from running two large launches at once (a test asking more
  than the parallel level runs alone). A test's process count is read from its command line
  (`--np N`, `-np N`, `-n N`, `-N N`) and, for tests labelled `mpi`, from its name (`.npN`); tests
  that launch from a script state their largest count with PROCESSORS themselves.
hdf5-guard: every test fails when its output carries HDF5's error stack: its FAIL_REGULAR_EXPRESSION
  holds HDF5-DIAG (cmake/test_guard.cmake), so that a passing test printing it is not missed.

Usage: check_ctest.py RULE BUILD_DIR    (runs `ctest --show-only=json-v1` there)
       check_ctest.py RULE --json FILE  (a saved `ctest --show-only=json-v1` output)
Exit: 0 every test follows the rule, 1 some do not (each printed), 2 usage or unreadable input.
"""

import json
import re
import subprocess
import sys

NP_OPTIONS = {"--np", "-np", "-n", "-N"}
NAME_NP = re.compile(r"\.np(\d+)(?:\.|$)")
GUARD = "HDF5-DIAG"


def property_value(test, name, default):
    for prop in test.get("properties") or []:
        if prop.get("name") == name:
            return prop.get("value")
    return default


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


def processors(test):
    """Why the test breaks the processors rule, or None."""
    np, reserved = launched_processes(test), int(property_value(test, "PROCESSORS", 1))
    return f"launches {np} processes, PROCESSORS {reserved}" if np > 1 and reserved < np else None


def hdf5_guard(test):
    """Why the test breaks the hdf5-guard rule, or None."""
    regexes = property_value(test, "FAIL_REGULAR_EXPRESSION", [])
    # Said without the guarded word itself: this output is a test's, guarded too.
    return None if GUARD in regexes else f"no FAIL_REGULAR_EXPRESSION for HDF5's error stack (its regexes: {regexes})"


RULES = {"processors": (processors, "reserving fewer processors than they launch"),
         "hdf5-guard": (hdf5_guard, "that would pass with HDF5's error stack in their output")}


def listing(argv):
    if len(argv) == 2 and argv[0] == "--json":
        with open(argv[1], encoding="utf-8") as f:
            return json.load(f)
    run = subprocess.run(["ctest", "--show-only=json-v1"], cwd=argv[0], capture_output=True, text=True)
    if run.returncode != 0:
        raise OSError(f"{argv[0]}: ctest --show-only failed: {run.stderr.strip()}")
    return json.loads(run.stdout)


def main(argv):
    if len(argv) not in (3, 4) or argv[1] not in RULES or (len(argv) == 4) != (argv[2] == "--json"):
        print(next(p for p in __doc__.split("\n\n") if p.startswith("Usage")), file=sys.stderr)
        return 2
    try:
        tests = listing(argv[2:]).get("tests", [])
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    rule, what = RULES[argv[1]]
    broken = [(test["name"], rule(test)) for test in tests if rule(test)]
    for name, why in broken:
        print(f"{name}: {why}")
    print(f"{len(tests)} tests, {len(broken)} {what}")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
