#!/usr/bin/env bash
# Tests of ci/summary.py, the counting behind ci/test.sh's last line:
# - CTest's own verdict, test by test, on real CTest runs of a crafted project: the counts equal
#   those CTest prints, and a fixture made to fail, an executable deleted, a tool moved out of PATH
#   each turn the summary red with a line naming the test;
# - the expected skips (a manifest like ci/expected-skips.txt): under CI=true an unexpected skip
#   fails with its reason and an entry that did not skip fails (unless it says "sometimes:");
#   outside CI both are printed;
# - `mpimon validate`'s JSON report run by run (runs not checked, not reachable or left out for a
#   component ompi_info does not list, are skips by name through the manifest), the Open MPI 5
#   stage (a stub ci/ompi5.sh), the Debian package stage (a stub ci/debian-package.sh), the gate's
#   exit codes and its timing counted as passed only when cells were decided (a stub mpimon gate);
# - a test script that skips after a check fails instead (cli/tests/test_lib.sh), and every test
#   script counts its checks (ci/check_test_scripts.py).
# Usage: summary_test.sh REPO MPIMON CMAKE CTEST
set -u
repo=$1 mpimon=$2 cmake=$3 ctest=$4
source "$repo/cli/tests/test_lib.sh"
unset CI MPIMON_SKIP_OMPI5 MPIMON_SKIP_DEBIAN_PACKAGE
# s ARGS...: ci/summary.py ARGS... on the state of the summary being made.
s() { /usr/bin/python3 "$repo/ci/summary.py" "$@"; }
# summary CODE...: runs CODE (calls of s) in a subshell on a fresh state, then the summary; prints
# everything and "rc=N", the summary's exit code.
summary() {
  (export MPIMON_SUMMARY=$(mktemp "$work/state.XXXXXX"); eval "$*" 2>&1; s print 2>&1; echo "rc=$?")
}

# --- A crafted CTest project: every way a test can end. The fixture's setup fails when
# SETUP_STATUS says so, tool.sh can be deleted after configuring, mpimon-fake-tool can be left out
# of PATH (the test then skips, as the project's scripts do for a missing Chromium or lstopo).
mkdir project tools
cat >project/CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.25)
project(crafted NONE)
enable_testing()
add_test(NAME ok COMMAND true)
add_test(NAME setup COMMAND sh -c "exit \${SETUP_STATUS:-0}")
set_tests_properties(setup PROPERTIES FIXTURES_SETUP fx)
add_test(NAME needs_setup COMMAND true)
set_tests_properties(needs_setup PROPERTIES FIXTURES_REQUIRED fx)
file(WRITE ${CMAKE_BINARY_DIR}/tool.sh "#!/bin/sh\nexit 0\n")
file(CHMOD ${CMAKE_BINARY_DIR}/tool.sh PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
add_test(NAME runs_tool_sh COMMAND ${CMAKE_BINARY_DIR}/tool.sh)
add_test(NAME needs_fake_tool COMMAND sh -c "command -v mpimon-fake-tool >/dev/null || { echo 'SKIP: mpimon-fake-tool not on PATH'; exit 77; }; mpimon-fake-tool")
add_test(NAME known_skip COMMAND sh -c "echo 'a line with <xml> & \"quotes\"'; echo 'SKIP: not on this machine'; exit 77")
set_tests_properties(needs_fake_tool known_skip PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME gtest_skip COMMAND sh -c "printf 'x_test.cpp:3: Skipped\\nTreeMatch not available here\\n[  SKIPPED ] A.B\\n'")
set_tests_properties(gtest_skip PROPERTIES SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
EOF
printf '#!/bin/sh\nexit 0\n' >tools/mpimon-fake-tool && chmod +x tools/mpimon-fake-tool
check && "$cmake" -S project -B crafted >configure.log 2>&1 || fail "configuring the crafted project: $(cat configure.log)"
cat >expected.txt <<'EOF'
# a comment, then the crafted project's one expected skip
main known_skip  it skips everywhere
main gtest_*  GoogleTest's skip
EOF
export MPIMON_EXPECTED_SKIPS=$work/expected.txt
# run_crafted CASE [ENV...]: ctest on the crafted project (tools/ on PATH unless PATH is given);
# CASE.xml is its JUnit report, CASE.log its output, CASE.rc its exit code.
run_crafted() {
  local case=$1
  shift
  (cd crafted && env PATH="$work/tools:$PATH" "$@" "$ctest" --output-junit "$work/$case.xml" >"$work/$case.log" 2>&1
   echo $? >"$work/$case.rc")
}
# ctest_counts LOG: "P passed, F failed, S skipped" from CTest's own printed verdict: "N tests
# failed out of M", and its list of the tests that did not run (skipped).
ctest_counts() {
  awk '/tests failed out of/ { f = $(NF - 5); m = $NF } /^The following tests did not run:/ { list = 1; next }
       list && /^[[:space:]]+[0-9]+ - / { s++; next } { list = 0 }
       END { printf "%d passed, %d failed, %d skipped\n", m - f - s, f, s }' "$1"
}
# check_counts CASE OUT: the summary's line equals CTest's own counts.
check_counts() { expect_contains "$2" "$(ctest_counts "$1.log")" "$1: the summary's counts are CTest's"; }

run_crafted green
out=$(CI=true summary s junit main green.xml "$(cat green.rc)")
expect_contains "$out" "5 passed, 0 failed, 2 skipped" "green: counts"
expect_contains "$out" "main: skipped (expected: GoogleTest's skip): gtest_skip: TreeMatch not available here" "green: GoogleTest's skip message"
expect_contains "$out" "rc=0" "green: passes under CI=true"
expect_contains "$out" "main: skipped (expected: it skips everywhere): known_skip: SKIP: not on this machine" \
  "green: the expected skip with both reasons (the output's XML escapes undone)"
check_counts green "$out"

# A fixture made to fail: its dependent did not run. JUnit calls it skipped, CTest calls it Not Run.
run_crafted fixture SETUP_STATUS=1
expect_eq "$(cat fixture.rc)" 8 "fixture: ctest's exit code"
check && grep -q 'skipped message="Fixture dependency failed"' fixture.xml ||
  fail "fixture: the JUnit report no longer calls the dependent skipped (the case this guards is gone): $(cat fixture.xml)"
out=$(summary s junit main fixture.xml "$(cat fixture.rc)")
expect_contains "$out" "3 passed, 2 failed, 2 skipped" "fixture: counts"
expect_contains "$out" "failed: main: needs_setup did not run: Fixture dependency failed" "fixture: the dependent is named"
expect_contains "$out" "failed: main: setup: failed" "fixture: the setup is named"
expect_contains "$out" "rc=1" "fixture: red"
check_counts fixture "$out"

# An executable deleted after configuring.
rm crafted/tool.sh
run_crafted deleted
out=$(summary s junit main deleted.xml "$(cat deleted.rc)")
expect_contains "$out" "4 passed, 1 failed, 2 skipped" "deleted: counts"
expect_contains "$out" "failed: main: runs_tool_sh did not run: Unable to find executable" "deleted: named"
expect_contains "$out" "rc=1" "deleted: red"
check_counts deleted "$out"
printf '#!/bin/sh\nexit 0\n' >crafted/tool.sh && chmod +x crafted/tool.sh

# A tool moved out of PATH: a skip the manifest does not expect. Under CI=true a failure with the
# test's own reason; outside CI a skip saying so.
run_crafted no_tool PATH=/usr/bin:/bin
out=$(CI=true summary s junit main no_tool.xml "$(cat no_tool.rc)")
expect_contains "$out" "failed: main: needs_fake_tool skipped, which ci/expected-skips.txt does not expect on the reference machine: SKIP: mpimon-fake-tool not on PATH" \
  "no tool, CI=true: named with its reason"
expect_contains "$out" "4 passed, 1 failed, 2 skipped" "no tool, CI=true: counts"
expect_contains "$out" "rc=1" "no tool, CI=true: red"
out=$(summary s junit main no_tool.xml "$(cat no_tool.rc)")
expect_contains "$out" "4 passed, 0 failed, 3 skipped" "no tool outside CI: counts"
expect_contains "$out" "main: skipped (not in ci/expected-skips.txt, a failure under CI=true): needs_fake_tool: SKIP: mpimon-fake-tool not on PATH" \
  "no tool outside CI: the reason"
expect_contains "$out" "rc=0" "no tool outside CI: not a failure"
check_counts no_tool "$out"

# A manifest entry that matched no skip: the list must follow the tests.
printf 'main known_skip  it skips everywhere\nmain gtest_skip  g\nmain gone.*  a test that was renamed\nsanitizer other  another stage\n' >stale.txt
out=$(MPIMON_EXPECTED_SKIPS=stale.txt CI=true summary s junit main green.xml 0)
expect_contains "$out" "failed: main: ci/expected-skips.txt expects gone.* to skip (a test that was renamed), it did not" \
  "stale entry, CI=true: named"
expect_contains "$out" "rc=1" "stale entry, CI=true: red"
check && grep -q "another stage" <<<"$out" && fail "stale entry: an entry of another stage was checked: $out"
out=$(MPIMON_EXPECTED_SKIPS=stale.txt summary s junit main green.xml 0)
expect_contains "$out" "main: note: ci/expected-skips.txt expects gone.* to skip" "stale entry outside CI: reported"
expect_contains "$out" "rc=0" "stale entry outside CI: not a failure"

# CTest failed but its report shows no failure, or it announces more tests than it lists; no report.
out=$(summary s junit main green.xml 8)
expect_contains "$out" "failed: main: ctest exit code 8" "a failing ctest with a clean report"
sed 's/tests="7"/tests="8"/' green.xml >short.xml
out=$(summary s junit main short.xml 0)
expect_contains "$out" "failed: main: short.xml announces 8 tests, lists 7" "a report missing a test"
out=$(summary s junit main missing.xml)
expect_contains "$out" "0 passed, 1 failed, 0 skipped" "a missing report is a failure, not zero tests"
printf '<?xml version="1.0"?>\n<testsuite name="x"\n\ttests="0"\n\tfailures="0"\n>\n</testsuite>\n' >empty.xml
out=$(summary s junit main empty.xml)
expect_contains "$out" "rc=1" "a run of no test fails"
out=$(summary s skipped fuzz off)
expect_contains "$out" "rc=1" "nothing but skips fails: nothing passed"
# A stage counted from its exit code: a failure repeats the end of its output at the end (CI keeps the end).
seq 1 40 | sed 's/^/line /' >stage.log
out=$(summary s status fuzz 0 stage.log)
expect_contains "$out" "1 passed, 0 failed" "a stage's exit code 0 passes"
check && ! grep -qF "line 40" <<<"$out" || fail "a stage that passed: its output not repeated"
out=$(summary s status fuzz 1 stage.log)
expect_contains "$out" "failed: fuzz: exit code 1; the end of stage.log:" "a stage's failure names its log"
expect_contains "$out" "    line 40" "a stage's failure repeats its last line"
check && ! grep -qF "line 25" <<<"$out" || fail "only the end of the stage's output is repeated"
out=$(summary s status fuzz 2)
expect_contains "$out" "failed: fuzz: exit code 2" "a stage's failure without a log"

# The real expected-skips list: every line is STAGE TEST REASON, for a stage ci/test.sh counts.
while read -r stage pattern reason; do
  [[ -z $stage || $stage == \#* ]] && continue
  check && [[ $stage =~ ^(main|sanitizer|ompi5|gate)$ ]] || fail "ci/expected-skips.txt: unknown stage '$stage'"
  check && [ -n "$reason" ] || fail "ci/expected-skips.txt: $pattern has no reason"
done <"$repo/ci/expected-skips.txt"

# The gate, one check per measure (stage gate, tests instructions and timing), through a stub
# `mpimon gate` that writes the report a real one writes and exits with the code asked for:
# GATE_instructions and GATE_timing are CODE or CODE:VERDICT,VERDICT,... (the timing cells).
cat >mpimon-gate-stub <<'STUB'
#!/usr/bin/env bash
while [ $# -gt 0 ]; do
  case $1 in --measure) measure=$2; shift ;; --json) json=$2; shift ;; esac
  shift
done
spec=GATE_$measure spec=${!spec}
verdicts=${spec#*:} cells=
[ "$verdicts" = "$spec" ] && verdicts=
for v in ${verdicts//,/ }; do cells+="${cells:+, }{\"op\": \"send\", \"verdict\": \"$v\"}"; done
printf '{"exit_code": %s, "instructions": [], "timing": [%s]}\n' "${spec%%:*}" "$cells" >"$json"
exit "${spec%%:*}"
STUB
chmod +x mpimon-gate-stub
# gate_run INSTRUCTIONS TIMING: `s gate` with the stub answering so.
gate_run() { GATE_instructions=$1 GATE_timing=$2 s gate "$work/mpimon-gate-stub" base.json "$work"; }
out=$(summary gate_run 0 0:pass,inconclusive,inconclusive)
expect_contains "$out" "2 passed, 0 failed, 0 skipped" "gate: both measures pass"
expect_contains "$out" "gate timing: passed (1 of 3 cells decided: no regression; 2 inconclusive)" \
  "gate: the timing passes with the number of cells decided"
# Every cell inconclusive: the timing decided nothing, a skip that the manifest must name.
out=$(CI=true summary gate_run 0 0:inconclusive,inconclusive)
expect_contains "$out" "failed: gate: timing skipped, which ci/expected-skips.txt does not expect on the reference machine: no cell decided: 2 of 2 inconclusive" \
  "gate: all cells inconclusive, CI=true, not in the manifest: a failure"
expect_contains "$out" "1 passed, 1 failed, 0 skipped" "gate: all cells inconclusive, CI=true: counts"
printf 'gate timing  sometimes: judged only on the CPU of the baseline\n' >gate-skips.txt
out=$(MPIMON_EXPECTED_SKIPS=gate-skips.txt CI=true summary gate_run 0 0:inconclusive,inconclusive)
expect_contains "$out" "1 passed, 0 failed, 1 skipped" "gate: all cells inconclusive, expected: a skip"
expect_contains "$out" "gate: skipped (expected: sometimes: judged only on the CPU of the baseline): timing: no cell decided" \
  "gate: all cells inconclusive, expected: the reason"
# The timing re-record (another CPU): a skip through the manifest too.
out=$(MPIMON_EXPECTED_SKIPS=gate-skips.txt CI=true summary gate_run 0 6)
expect_contains "$out" "gate: skipped (expected: sometimes: judged only on the CPU of the baseline): timing: re-record" \
  "gate: the timing re-record is an expected skip saying so"
expect_contains "$out" "rc=0" "gate: the timing re-record, expected: green"
out=$(CI=true summary gate_run 0 6)
expect_contains "$out" "failed: gate: timing skipped, which ci/expected-skips.txt does not expect" \
  "gate: the timing re-record not in the manifest, CI=true: a failure"
# A "sometimes:" entry that did not skip is a note; any other entry that did not skip fails under CI.
out=$(MPIMON_EXPECTED_SKIPS=gate-skips.txt CI=true summary gate_run 0 0:pass)
expect_contains "$out" "gate: note: ci/expected-skips.txt says timing may skip" "gate: a sometimes entry that did not skip: a note"
expect_contains "$out" "rc=0" "gate: a sometimes entry that did not skip: green"
printf 'gate timing  always\n' >gate-always.txt
out=$(MPIMON_EXPECTED_SKIPS=gate-always.txt CI=true summary gate_run 0 0:pass)
expect_contains "$out" "failed: gate: ci/expected-skips.txt expects timing to skip (always), it did not" \
  "gate: an entry that did not skip fails under CI"
# An instruction re-record, a regression, missing and unstable rows, an error: failures, named.
out=$(summary gate_run 6 8 \; gate_run 7 4 \; gate_run 3 1)
expect_contains "$out" "0 passed, 6 failed, 0 skipped" "gate exit codes"
expect_contains "$out" "failed: gate: instructions: re-record (exit code 6)" "gate: an instruction re-record fails"
expect_contains "$out" "failed: gate: instructions: missing (exit code 7)" "gate: missing"
expect_contains "$out" "failed: gate: timing: unstable (exit code 8)" "gate: unstable"
expect_contains "$out" "failed: gate: instructions: REGRESSION (mpimon gate exit code 3" "gate: regression in instructions"
expect_contains "$out" "failed: gate: timing: REGRESSION (mpimon gate exit code 4" "gate: regression in timing"
expect_contains "$out" "failed: gate: timing: mpimon gate exit code 1" "gate: an error"

# What `mpimon validate --json` reports, run by run under CTest's names: the real command's report
# (a launcher that fails makes its one run fail), and one of 119 runs made from it.
"$mpimon" validate --case p2p --np 1 --mode 1 --programs "$work" --launcher false --json real.json >/dev/null 2>&1
out=$(summary s validate v real.json 1)
expect_contains "$out" "failed: v: validation.p2p.mode1.np1: ERROR" "the real report's failing run, named"
expect_contains "$out" "0 passed, 1 failed, 0 skipped" "the real report's counts"
# validate_json FAILING: 96 exact, 21 showing a defect, 1 not reachable, FAILING (0 or 1) failing,
# the rest exact.
validate_json() {
  /usr/bin/python3 - "$1" real.json <<'PY'
import copy, json, sys
failing, report = int(sys.argv[1]), json.load(open(sys.argv[2]))
run = report["cases"][0]
def of(outcome, case, n):
    return [dict(copy.deepcopy(run), outcome=outcome, case=case, np=k + 1) for k in range(n)]
report["cases"] = (of("holds", "p2p", 97 - failing) + of("defect present", "defect.x", 21) +
                   of("not reachable", "mpit.flush_free", 1) + of("ERROR", "p2p.bad", failing))
print(json.dumps(report))
PY
}
validate_json 1 >validate.json
printf 'v validation.mpit.flush_free.*  not reachable here\n' >v-skips.txt
out=$(MPIMON_EXPECTED_SKIPS=v-skips.txt CI=true summary s validate v validate.json 1)
expect_contains "$out" "117 passed, 1 failed, 1 skipped" "validate: runs not checked are skips"
expect_contains "$out" "v: skipped (expected: not reachable here): validation.mpit.flush_free.mode1.np1: not reachable" \
  "validate: the run not checked, by name, through the manifest"
# A pinned crash whose runs gave no answer ("not decided") is a skip through the manifest too.
/usr/bin/python3 - real.json >undecided.json <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
report["cases"] = [dict(report["cases"][0], outcome="not decided", case="coll.distgraph_neighbor_alltoall", np=4)]
print(json.dumps(report))
PY
printf 'v validation.coll.distgraph_neighbor_alltoall.*  sometimes: no answer\n' >u-skips.txt
out=$(MPIMON_EXPECTED_SKIPS=u-skips.txt CI=true summary s validate v undecided.json 0)
expect_contains "$out" "0 passed, 0 failed, 1 skipped" "validate: a run not decided is a skip"
expect_contains "$out" "validation.coll.distgraph_neighbor_alltoall.mode1.np4: not decided" "validate: the run not decided, by name"
out=$(CI=true summary s validate v validate.json 1)
expect_contains "$out" "failed: v: validation.mpit.flush_free.mode1.np1 skipped, which ci/expected-skips.txt does not expect" \
  "validate: a run not checked that the manifest does not name fails under CI=true"
out=$(summary "printf '118 of 119 runs as expected\n' >old.json; s validate v old.json")
expect_contains "$out" "no validation results in old.json" "an unreadable report is named"
expect_contains "$out" "rc=1" "an unreadable report fails (and the command goes on to its summary)"
# Cases whose component ompi_info does not list (a stub ompi_info without osc/pt2pt): the real
# command reports them not checked, by name, and the manifest must name them.
mkdir -p fakebin
printf '#!/bin/sh\necho mca:pml:monitoring:version:\\"component:4.1.4\\"\necho mca:osc:rdma:version:\\"component:4.1.4\\"\n' \
  >fakebin/ompi_info
chmod +x fakebin/ompi_info
PATH=$work/fakebin:$PATH "$mpimon" validate --case 'rma.*.put.fence' --np 3 --mode 2 --programs "$work" --launcher false \
  --json left.json >left.txt 2>&1
expect_contains "$(cat left.txt)" "rma.pt2pt.put.fence" "validate: the case left out is listed"
printf 'v validation.rma.pt2pt.*  no osc/pt2pt\n' >left-skips.txt
out=$(MPIMON_EXPECTED_SKIPS=left-skips.txt CI=true summary s validate v left.json 1)
expect_contains "$out" "v: skipped (expected: no osc/pt2pt): validation.rma.pt2pt.put.fence.mode2.np3: not checked: needs osc:pt2pt, which ompi_info does not list" \
  "validate: a case left out for its component is an expected skip by name"
expect_contains "$out" "0 passed, 1 failed, 1 skipped" "validate: the case left out is counted"
out=$(CI=true summary s validate v left.json 1)
expect_contains "$out" "failed: v: validation.rma.pt2pt.put.fence.mode2.np3 skipped, which ci/expected-skips.txt does not expect" \
  "validate: a case left out that the manifest does not name fails under CI=true"

# The Open MPI 5 stage, a stub ci/ompi5.sh exiting STATUS after writing what the real one leaves in
# BUILD/ompi5 (RESULTS=yes: REPORT, a crafted project's run, as its CTest report, with CTEST_EXIT,
# by default that run's own exit code, in ctest.exit; validate's report with FAILING failing runs
# with VALIDATE_EXIT in validate.exit; an empty exit code leaves its file out).
stub() {
  local status=$1 results=$2 report=${3:-fixture} ctest_exit=${4-$(cat "${3:-fixture}.rc")} failing=${5:-1}
  local validate_exit=${6-1}
  mkdir -p build/ompi5
  cat >ompi5.sh <<STUB
#!/usr/bin/env bash
mkdir -p "$work/build/ompi5"
[ $status -eq 3 ] && echo "Debian 13's archive is not reachable" >"$work/build/ompi5/skipped.txt"
if [ "$results" = yes ]; then
  cp "$work/$report.xml" "$work/build/ompi5/ctest.xml"
  [ -n "$ctest_exit" ] && echo "$ctest_exit" >"$work/build/ompi5/ctest.exit"
  cp "$work/validate-$failing.json" "$work/build/ompi5/validate.json"
  [ -n "$validate_exit" ] && echo "$validate_exit" >"$work/build/ompi5/validate.exit"
fi
exit $status
STUB
  chmod +x ompi5.sh
}
validate_json 0 >validate-0.json
validate_json 1 >validate-1.json
printf 'ompi5 known_skip  it skips everywhere\nompi5 gtest_skip  g\nompi5 validation.mpit.flush_free.* n\n' >ompi5-skips.txt
stub 3 no
out=$(CI=true summary s ompi5 ./ompi5.sh build)
expect_contains "$out" "0 passed, 1 failed, 0 skipped" "CI=true: the stage is required"
expect_contains "$out" "required under CI=true but cannot run: Debian 13's archive is not reachable" "CI=true: the reason"
expect_contains "$out" "MPIMON_SKIP_OMPI5=1" "CI=true: the opt-out is named"
out=$(MPIMON_SKIP_OMPI5=1 CI=true summary s passed x \; s ompi5 ./ompi5.sh build)
expect_contains "$out" "1 passed, 0 failed, 1 skipped" "MPIMON_SKIP_OMPI5=1: skipped explicitly"
expect_contains "$out" "rc=0" "MPIMON_SKIP_OMPI5=1: not a failure"
out=$(summary s passed x \; s ompi5 ./ompi5.sh build)
expect_contains "$out" "1 passed, 0 failed, 1 skipped" "outside CI: skipped with the reason"
expect_contains "$out" "ompi5: skipped: Debian 13's archive is not reachable" "outside CI: the reason"
# ran_stage STUB ARGS...: the summary under CI=true of a stage that ran (stub STUB ARGS...).
ran_stage() { stub "$@"; MPIMON_EXPECTED_SKIPS=ompi5-skips.txt CI=true summary s ompi5 ./ompi5.sh build; }
# The stage ran: its CTest report (3 passed, 2 failed, 2 expected skips) and validate's report.
out=$(ran_stage 1 yes)
expect_contains "$out" "120 passed, 3 failed, 3 skipped" "ompi5 counts (3 + 117 passed, 2 + 1 failed, 2 + 1 skipped)"
expect_contains "$out" "failed: ompi5: needs_setup did not run: Fixture dependency failed" "ompi5: the test is named"
expect_contains "$out" "rc=1" "ompi5 failures fail the command"
# ctest's own exit code reaches the summary: ctest failed while its report shows no failure.
out=$(ran_stage 1 yes green 8 0 0)
expect_contains "$out" "failed: ompi5: ctest exit code 8" "ompi5: a failing ctest with a clean report is named"
expect_contains "$out" "rc=1" "ompi5: a failing ctest with a clean report fails the command"
out=$(ran_stage 0 yes green 0 0 0)
expect_contains "$out" "rc=0" "ompi5: a clean report, ctest and validate exit 0: green (the case above differs only by ctest's exit code)"
# The exit codes lost (not saved), or validate failing without a failing run: failures, named.
out=$(ran_stage 0 yes green "" 0 "")
expect_contains "$out" "failed: ompi5: no exit code saved in build/ompi5/ctest.exit for build/ompi5/ctest.xml" "ompi5: ctest's exit code lost"
expect_contains "$out" "failed: ompi5: no exit code saved in build/ompi5/validate.exit" "ompi5: validate's exit code lost"
out=$(ran_stage 1 yes green 0 0 2)
expect_contains "$out" "failed: ompi5: mpimon validate exit code 2" "ompi5: validate's exit code without a failing run"
expect_contains "$out" "rc=1" "ompi5: validate's exit code fails the command"
# It exits 0 but leaves no results (or only those of an earlier run, removed first): a failure.
stub 0 no
out=$(CI=true summary s ompi5 ./ompi5.sh build)
expect_contains "$out" "0 passed, 2 failed, 0 skipped" "exit 0 without results is not a pass"
stub 2 no
out=$(summary s ompi5 ./ompi5.sh build)
expect_contains "$out" "ci/ompi5.sh exit code 2" "another exit code is a failure"

# The Debian package stage: one check from the exit code; 3 (its root cannot be prepared) as above.
deb_stub() {
  printf '#!/usr/bin/env bash\nmkdir -p "%s/build/debian-package"\n[ %s -eq 3 ] && echo "no Debian mirror in /etc/apt" >"%s/build/debian-package/skipped.txt"\nexit %s\n' \
    "$work" "$1" "$work" "$1" >debian-package.sh
  chmod +x debian-package.sh
}
deb_stub 0
out=$(CI=true summary s debian-package ./debian-package.sh build)
expect_contains "$out" "1 passed, 0 failed, 0 skipped" "debian-package: done is one pass"
deb_stub 1
out=$(CI=true summary s passed x \; s debian-package ./debian-package.sh build)
expect_contains "$out" "failed: debian-package: exit code 1" "debian-package: a failed step is named"
expect_contains "$out" "rc=1" "debian-package: a failed step fails the command"
deb_stub 3
out=$(CI=true summary s passed x \; s debian-package ./debian-package.sh build)
expect_contains "$out" "1 passed, 1 failed, 0 skipped" "debian-package, CI=true: the stage is required"
expect_contains "$out" "required under CI=true but cannot run: no Debian mirror in /etc/apt" "debian-package, CI=true: the reason"
expect_contains "$out" "MPIMON_SKIP_DEBIAN_PACKAGE=1" "debian-package, CI=true: the opt-out is named"
out=$(MPIMON_SKIP_DEBIAN_PACKAGE=1 CI=true summary s passed x \; s debian-package ./debian-package.sh build)
expect_contains "$out" "1 passed, 0 failed, 1 skipped" "MPIMON_SKIP_DEBIAN_PACKAGE=1: skipped explicitly"
out=$(summary s passed x \; s debian-package ./debian-package.sh build)
expect_contains "$out" "debian-package: skipped: no Debian mirror in /etc/apt" "debian-package outside CI: the reason"
expect_contains "$out" "rc=0" "debian-package outside CI: a skip is not a failure"

# A test script's skip: decided before anything is checked; after a check, passed or failed, an
# expect_* or a plain condition counted by check, it is a failure.
# shellcheck disable=SC2016 # the scripts' own variables
for script in 'skip_test "no tool"' 'expect_eq 1 1 "a check"; skip_test "no tool"' \
  'expect_eq 1 2 "a failed check"; skip_test "no tool"' 'skip_part "a part"; finish t' \
  'expect_eq 1 2 "a failed check"; skip_part "a part"; finish t' \
  'check && [ 1 = 1 ] || fail "a plain check that passed"; skip_test "no tool"'; do
  rc=$(bash -c "source '$repo/cli/tests/test_lib.sh'; $script" >/dev/null 2>&1; echo $?)
  case $script in
    skip_test*) expect_eq "$rc" 77 "test_lib: [$script]" ;;
    'skip_part "a part"; finish t') expect_eq "$rc" 77 "test_lib: [$script]" ;;
    *) expect_eq "$rc" 1 "test_lib: [$script]" ;;
  esac
done

# A plain condition that calls fail without going through check is found (it would pass unseen
# before a skip), and --fix counts it.
printf '%s\n' 'source "$1/cli/tests/test_lib.sh"' '[ 1 = 1 ] || fail "a plain check"' \
  'if grep -q x <<<"y"; then fail "an if"; fi' 'skip_test "no tool"' >plain.sh
run /usr/bin/python3 "$repo/ci/check_test_scripts.py" plain.sh
expect_eq "$rc" 1 "a plain check: found"
expect_contains "$out" "plain.sh:2: a condition not counted (start it with check &&)" "a plain check: named"
expect_contains "$out" "plain.sh:3: a condition not counted" "a plain if: named"
expect_eq "$(bash plain.sh "$repo" >/dev/null 2>&1; echo $?)" 77 "a plain check before skip_test is not seen: skipped"
run /usr/bin/python3 "$repo/ci/check_test_scripts.py" --fix plain.sh
expect_eq "$(sed -n 2p plain.sh)" 'check && [ 1 = 1 ] || fail "a plain check"' "--fix counts it"
expect_eq "$(bash plain.sh "$repo" >/dev/null 2>&1; echo $?)" 1 "counted, the check before skip_test refuses the skip"
# Every test script of the repository counts its checks.
scripts=$(grep -l 'test_lib.sh' "$repo"/*/tests/*.sh)
run /usr/bin/python3 "$repo/ci/check_test_scripts.py" $scripts
expect_eq "$rc" 0 "the test scripts count every check: $out"

# ci/test.sh itself: CTest's exit code to the summary, the stages through it, the summary last.
expect_eq "$(tail -1 "$repo/ci/test.sh")" "summary print" "ci/test.sh ends with the summary"
for line in 'summary junit main "$build/ctest.xml" "$ctest_status"' \
  'summary junit sanitizer "$sanitized/ctest.xml" "$ctest_status"' \
  'summary gate "$build/cli/mpimon" "$repo/results/gate/baseline.json" "$build"' \
  'summary ompi5 "$repo/ci/ompi5.sh" "$build"' 'summary debian-package "$repo/ci/debian-package.sh" "$build"'; do
  expect_eq "$(grep -cF -- "$line" "$repo/ci/test.sh" | tr -d ' ')" 1 "ci/test.sh counts: $line"
done

finish "ci summary"
