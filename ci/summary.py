#!/usr/bin/python3
"""The counting behind ci/test.sh's last line, `N passed, N failed, N skipped`: every stage adds
what it ran, test by test, to a state file ($MPIMON_SUMMARY), and `print` ends the test command with
the counts and an exit code that is non-zero if anything failed or nothing passed. Nothing passes by
not running (docs/cli.md, "The test command's verdict").

    summary.py junit STAGE REPORT.xml [CTEST_EXIT]   a CTest run (ctest --output-junit), CTest's verdicts
    summary.py validate STAGE REPORT.json [EXIT]     `mpimon validate --json`, run by run
    summary.py gate MPIMON BASELINE DIR [GATE OPTIONS...]   the overhead gate, each measure on its own
    summary.py ompi5 SCRIPT BUILD                    ci/ompi5.sh validate and its reports
    summary.py debian-package SCRIPT BUILD           ci/debian-package.sh test, one check
    summary.py status STAGE EXIT [LOG]               a stage counted as one check from its exit code
                                                     (failed: LOG's last lines repeated at the end)
    summary.py failed STAGE REASON | skipped STAGE REASON   (skipped: an explicit opt-out, MPIMON_*)
    summary.py print                                 the failures, the counts; the exit code

Every skip of a test is expected by name in ci/expected-skips.txt ($MPIMON_EXPECTED_SKIPS): under
CI=true one that is not fails with the test's reason, and an entry of a stage that ran which matched
no skip fails too (the list follows the tests), unless its reason starts with "sometimes:" (a skip
that depends on the machine: the gate's timing is judged only on the CPU that recorded its baseline).
Outside CI both are printed and the skip stays a skip."""

import fnmatch
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
SKIPS = os.environ.get("MPIMON_EXPECTED_SKIPS") or os.path.join(HERE, "expected-skips.txt")
SOMETIMES = "sometimes:"


def in_ci():
    return os.environ.get("CI") == "true"


# --- The state: one JSON object a line, {"stage", "verdict": pass|fail|skip|ran, "test", "why"}.

def state_path():
    path = os.environ.get("MPIMON_SUMMARY")
    if not path:
        sys.exit("summary.py: MPIMON_SUMMARY (the state file of this test command) is not set")
    return path


def record(stage, verdict, test="", why=""):
    with open(state_path(), "a", encoding="utf-8") as f:
        f.write(json.dumps({"stage": stage, "verdict": verdict, "test": test, "why": why}) + "\n")


def records():
    try:
        with open(state_path(), encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        return []


def passed(stage, test=""):
    record(stage, "pass", test)


def failed(stage, reason, test=""):
    record(stage, "fail", test, reason)
    print(f"{stage}: FAILED: {reason}", file=sys.stderr)


def skipped(stage, reason):
    """An explicit opt-out (MPIMON_FUZZ_RUNS=0, MPIMON_SKIP_*=1): the person running asked for it."""
    record(stage, "skip", "", reason)
    print(f"{stage}: skipped: {reason}")


# --- The manifest of expected skips.

def manifest():
    """[(stage, pattern, reason)] of ci/expected-skips.txt: STAGE TEST-GLOB REASON, '#' a comment."""
    try:
        lines = open(SKIPS, encoding="utf-8").read().splitlines()
    except OSError:
        return []
    entries = []
    for line in lines:
        parts = line.split(None, 2)
        if not parts or parts[0].startswith("#"):
            continue
        entries.append((parts[0], parts[1] if len(parts) > 1 else "", parts[2].strip() if len(parts) > 2 else ""))
    return entries


def expected(stage, test):
    for entry in manifest():
        if entry[0] == stage and fnmatch.fnmatchcase(test, entry[1]):
            return entry
    return None


def skip(stage, test, why):
    """A test that skipped: expected (in the manifest) a skip; not expected, a skip with the reason
    outside CI and a failure under CI=true, where every skip of the reference machine is known."""
    entry = expected(stage, test)
    if entry:
        record(stage, "skip", test, why)
        print(f"{stage}: skipped (expected: {entry[2]}): {test}: {why}")
    elif in_ci():
        failed(stage, f"{test} skipped, which ci/expected-skips.txt does not expect on the reference machine: {why}",
               test)
    else:
        record(stage, "skip", test, why)
        print(f"{stage}: skipped (not in ci/expected-skips.txt, a failure under CI=true): {test}: {why}")


def stale_entries(done):
    """The manifest's entries of the stages that ran which matched no skip of theirs."""
    stages = {r["stage"] for r in done if r["verdict"] == "ran"}
    skips = [(r["stage"], r["test"]) for r in done if r["verdict"] == "skip" and r["test"]]
    for stage, pattern, reason in manifest():
        if stage in stages and not any(s == stage and fnmatch.fnmatchcase(t, pattern) for s, t in skips):
            yield stage, pattern, reason


# --- CTest's JUnit report.

def why_skipped(output):
    """GoogleTest's skip message (the line after "FILE:LINE: Skipped"), else the last line of the
    output that speaks of a skip, else its last line."""
    lines = [line.strip() for line in output.splitlines()]
    for i, line in enumerate(lines):
        if line.endswith(": Skipped"):
            following = [x for x in lines[i + 1:] if x]
            if following:
                return following[0]
    spoken = [x for x in lines if "skip" in x.lower()]
    if spoken:
        return spoken[-1]
    nonblank = [x for x in lines if x]
    return nonblank[-1] if nonblank else ""


def junit(stage, path, ctest_exit=0):
    """A CTest run's report, test by test from CTest's own status: passed (run), failed (fail: a
    failure or a timeout), skipped (notrun with SKIP_RETURN_CODE or SKIP_REGULAR_EXPRESSION, or
    disabled), failed for every other test that did not run (its executable missing, a fixture it
    requires failed, a required file missing). A missing or unreadable report is a failure of the
    stage, not zero tests; so is a non-zero exit code of ctest without a failed test."""
    try:
        suite = ET.parse(path).getroot()
        announced = int(suite.get("tests"))
    except (OSError, ET.ParseError, TypeError, ValueError):
        failed(stage, f"no test results in {path}")
        return
    cases = suite.findall("testcase")
    if not cases:
        failed(stage, f"no test results in {path}")
        return
    record(stage, "ran")
    counts = {"pass": 0, "fail": 0, "skip": 0}
    for case in cases:
        name, status = case.get("name", ""), case.get("status", "")
        marker = case.find("skipped")
        if marker is None:
            marker = case.find("failure")
        message = marker.get("message", "") if marker is not None else ""
        why = why_skipped(case.findtext("system-out") or "")
        if status == "run":
            counts["pass"] += 1
            passed(stage, name)
        elif status == "fail":
            counts["fail"] += 1
            failed(stage, f"{name}: failed", name)
        elif status == "disabled":
            counts["skip"] += 1
            skip(stage, name, "disabled (DISABLED property)")
        elif status == "notrun" and message.startswith("SKIP_"):
            counts["skip"] += 1
            skip(stage, name, why or message)
        elif status == "notrun":
            counts["fail"] += 1
            failed(stage, f"{name} did not run: {message}" + (f" ({why})" if why else ""), name)
        else:
            counts["fail"] += 1
            failed(stage, f"{name}: unknown CTest status '{status}'", name)
    if len(cases) != announced:
        failed(stage, f"{path} announces {announced} tests, lists {len(cases)}")
    if ctest_exit != 0 and counts["fail"] == 0:
        failed(stage, f"ctest exit code {ctest_exit}")
    print(f"{stage}: CTest: {counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped")


# --- mpimon validate's JSON report.

EXPECTED_OUTCOMES = {"holds", "defect present"}
NOT_CHECKED = {"not reachable", "not checked", "not decided"}


def validate(stage, path, exit_code=0):
    """Each run of `mpimon validate --json` under its CTest name (validation.CASE.modeM.npN): exact
    and known-defect runs pass, runs not checked (not reachable on this MPI library, left out for a
    component it lacks, or a pinned crash whose runs gave no answer: not decided) are skips through
    the manifest, the others fail. A non-zero exit code with no failing run is a failure."""
    try:
        cases = json.load(open(path, encoding="utf-8"))["cases"]
    except (OSError, ValueError, KeyError, TypeError):
        failed(stage, f"no validation results in {path}")
        return
    if not cases:
        failed(stage, f"no validation results in {path}")
        return
    record(stage, "ran")
    counts = {"pass": 0, "fail": 0, "skip": 0}
    for c in cases:
        name = f"validation.{c['case']}.mode{c['pml_monitoring_enable']}.np{c['np']}"
        if c["outcome"] in EXPECTED_OUTCOMES:
            counts["pass"] += 1
            passed(stage, name)
        elif c["outcome"] in NOT_CHECKED:
            counts["skip"] += 1
            skip(stage, name, f"{c['outcome']}: {c['summary']}")
        else:
            counts["fail"] += 1
            failed(stage, f"{name}: {c['outcome']}: {c['summary']}", name)
    if exit_code != 0 and counts["fail"] == 0:
        failed(stage, f"mpimon validate exit code {exit_code}")
    print(f"{stage}: mpimon validate: {counts['pass']} passed, {counts['fail']} failed, {counts['skip']} not checked")


# --- The stages that run a program.

GATE_FAILURES = {
    3: "REGRESSION (mpimon gate exit code 3, docs/gate.md)",
    4: "REGRESSION (mpimon gate exit code 4, docs/gate.md)",
    5: "REGRESSION (mpimon gate exit code 5, docs/gate.md)",
    7: "missing (exit code 7): an operation or cell is in only one of the baseline and the run (docs/gate.md)",
    8: "unstable (exit code 8): two callgrind runs of one build counted differently (docs/gate.md)",
}


def gate_measure(measure, status, report):
    """One measure's `mpimon gate --measure MEASURE` exit code, one check under stage "gate" and
    test MEASURE. The timing passes only when cells were decided: a run whose cells are all
    inconclusive, or a re-record (a baseline from another CPU or Open MPI, judged only where it
    was recorded), is a skip through the manifest."""
    stage = "gate"
    record(stage, "ran")
    if status == 0 and measure == "timing":
        try:
            cells = json.load(open(report, encoding="utf-8"))["timing"]
        except (OSError, ValueError, KeyError, TypeError):
            failed(stage, f"timing: no cells in {report}", measure)
            return
        decided = [c for c in cells if c.get("verdict") == "pass"]
        if decided:
            passed(stage, measure)
            print(f"gate timing: passed ({len(decided)} of {len(cells)} cells decided: no regression; "
                  f"{len(cells) - len(decided)} inconclusive)")
        else:
            skip(stage, measure, f"no cell decided: {len(cells)} of {len(cells)} inconclusive (interval too wide on this "
                                 "machine; docs/gate.md)")
    elif status == 0:
        passed(stage, measure)
        print(f"gate {measure}: passed")
    elif status in GATE_FAILURES:
        failed(stage, f"{measure}: {GATE_FAILURES[status]}", measure)
    elif status == 6 and measure == "timing":
        skip(stage, measure, "re-record: results/gate/baseline.json's timing is from another CPU or Open MPI "
                             "(judged only where it was recorded; docs/gate.md)")
    elif status == 6:
        failed(stage, "instructions: re-record (exit code 6): the baseline's instruction counts are from another "
                      "Open MPI build, valgrind or libraries than this machine's; the reference machine must match "
                      "it (docs/gate.md)", measure)
    else:
        failed(stage, f"{measure}: mpimon gate exit code {status} (1 error, 2 usage; docs/gate.md)", measure)


def gate(mpimon, baseline, directory, *options):
    """The overhead regression gate (docs/gate.md), each measure run and counted on its own, reports
    in DIR/gate-MEASURE.{json,xml}: run apart, neither verdict can hide the other's."""
    for measure in ("instructions", "timing"):
        report = os.path.join(directory, f"gate-{measure}.json")
        if os.path.exists(report):
            os.remove(report)
        status = subprocess.call([mpimon, "gate", "--measure", measure, "--baseline", baseline, "--json", report,
                                  "--junit", os.path.join(directory, f"gate-{measure}.xml"), *options])
        sys.stdout.flush()
        gate_measure(measure, status, report)


def cannot_run(stage, variable, reason):
    """A stage whose script exited 3 (its root cannot be prepared here): a skip only when asked for
    (VARIABLE=1) or outside CI; under CI=true the stage is required and it is a failure."""
    if os.environ.get(variable) == "1":
        skipped(stage, f"{variable}=1 (this machine cannot host its root)")
    elif in_ci():
        failed(stage, f"required under CI=true but cannot run: {reason} (set {variable}=1 to skip it explicitly)")
    else:
        skipped(stage, reason)


def read_text(path, default=""):
    try:
        return open(path, encoding="utf-8").read().strip()
    except OSError:
        return default


def saved_exit_code(stage, report, path):
    """The exit code a stage script saved in PATH for the command that wrote REPORT. A REPORT
    without a number in PATH has lost its command's verdict: a failure (then 0 is returned, so that
    it is counted once). No REPORT: 0 (the missing report is counted a failure where it is read)."""
    text = read_text(path)
    if text.isdigit():
        return int(text)
    if os.path.exists(report):
        failed(stage, f"no exit code saved in {path} for {report}")
    return 0


def ompi5(script, build):
    """The Open MPI 5.0 stage (ci/ompi5.sh validate): its CTest report and mpimon validate's runs,
    each with its command's own exit code, under stage "ompi5"."""
    out = os.path.join(build, "ompi5")
    for name in ("ctest.xml", "ctest.exit", "validate.json", "validate.exit", "skipped.txt"):
        if os.path.exists(os.path.join(out, name)):  # results of an earlier run must not be counted
            os.remove(os.path.join(out, name))
    status = subprocess.call([script, "validate"])
    sys.stdout.flush()
    if status in (0, 1):
        ctest_xml, validate_json = os.path.join(out, "ctest.xml"), os.path.join(out, "validate.json")
        junit("ompi5", ctest_xml, saved_exit_code("ompi5", ctest_xml, os.path.join(out, "ctest.exit")))
        validate("ompi5", validate_json, saved_exit_code("ompi5", validate_json, os.path.join(out, "validate.exit")))
    elif status == 3:
        cannot_run("ompi5", "MPIMON_SKIP_OMPI5", read_text(os.path.join(out, "skipped.txt"), "no reason saved"))
    else:
        failed("ompi5", f"ci/ompi5.sh exit code {status} (logs in {out})")


def debian_package(script, build):
    """The Debian package installed into a clean Debian 12 root, the main job run there, one check."""
    out = os.path.join(build, "debian-package")
    if os.path.exists(os.path.join(out, "skipped.txt")):
        os.remove(os.path.join(out, "skipped.txt"))
    status = subprocess.call([script, "test"])
    sys.stdout.flush()
    if status == 3:
        cannot_run("debian-package", "MPIMON_SKIP_DEBIAN_PACKAGE",
                   read_text(os.path.join(out, "skipped.txt"), "no reason saved"))
    else:
        status_check("debian-package", status)


def status_check(stage, status, log=None):
    """A failure carries the end of the stage's output: CI keeps the end of the whole command's, where
    print_summary repeats it, and a stage's own lines may have been cut from the middle."""
    if status == 0:
        passed(stage)
    elif log:
        tail = read_text(log, "(no output saved)").splitlines()[-15:]
        failed(stage, f"exit code {status}; the end of {log}:\n" + "\n".join("    " + line for line in tail))
    else:
        failed(stage, f"exit code {status}")


def print_summary():
    """The failures, then `N passed, N failed, N skipped`; 1 if anything failed or nothing passed."""
    for stage, pattern, reason in stale_entries(records()):
        if reason.startswith(SOMETIMES):
            print(f"{stage}: note: ci/expected-skips.txt says {pattern} may skip ({reason}), it did not")
        elif in_ci():
            failed(stage, f"ci/expected-skips.txt expects {pattern} to skip ({reason}), it did not: update the list")
        else:
            print(f"{stage}: note: ci/expected-skips.txt expects {pattern} to skip ({reason}), it did not")
    done = records()
    counts = {v: sum(1 for r in done if r["verdict"] == v) for v in ("pass", "fail", "skip")}
    for r in done:
        if r["verdict"] == "fail":
            print(f"failed: {r['stage']}: {r['why']}")
    print(f"{counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped")
    return 0 if counts["fail"] == 0 and counts["pass"] > 0 else 1


def number(text):
    if not re.fullmatch(r"[0-9]+", text):
        sys.exit(f"summary.py: '{text}' is not an exit code")
    return int(text)


def main(argv):
    commands = {
        "junit": (lambda stage, path, code="0": junit(stage, path, number(code)), 2, 3),
        "validate": (lambda stage, path, code="0": validate(stage, path, number(code)), 2, 3),
        "gate": (gate, 3, None),
        "ompi5": (ompi5, 2, 2),
        "debian-package": (debian_package, 2, 2),
        "status": (lambda stage, code, log=None: status_check(stage, number(code), log), 2, 3),
        "passed": (passed, 1, 2),
        "failed": (failed, 2, 2),
        "skipped": (skipped, 2, 2),
        "print": (print_summary, 0, 0),
    }
    if not argv or argv[0] not in commands:
        sys.exit(__doc__)
    function, least, most = commands[argv[0]]
    args = argv[1:]
    if len(args) < least or (most is not None and len(args) > most):
        sys.exit(f"summary.py {argv[0]}: wrong number of arguments\n{__doc__}")
    return function(*args) or 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
