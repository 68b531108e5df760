#!/usr/bin/env bash
# Tests of ci/summary.sh, the counting behind ci/test.sh's last line, with stub stages: CTest's
# JUnit reports, `mpimon validate`'s verdict line, the Open MPI 5 stage (a stub ci/ompi5.sh)
# skipped, required under CI=true, opted out, run, or run without results, and the Debian package
# stage (a stub ci/debian-package.sh) likewise.
# Usage: summary_test.sh REPO MPIMON
set -u
repo=$1 mpimon=$2
source "$repo/cli/tests/test_lib.sh"

# A JUnit report as CTest 3.25 writes it (attributes one a line).
junit() {
  printf '<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="x"\n\ttests="%s"\n\tfailures="%s"\n\tdisabled="0"\n\tskipped="%s"\n\thostname=""\n\t>\n</testsuite>\n' "$1" "$2" "$3"
}
# What \`mpimon validate\` ends with: the real command's own last line (MPIMON is this build's
# mpimon; a launcher that fails makes its one run fail), with the counts of a run of 119.
validate_line=$("$mpimon" validate --case p2p --np 1 --mode 1 --programs "$work" --launcher false 2>/dev/null | tail -1)
validate_text() {
  sed -E 's/^1 runs: 0 exact, 0 showing (a known defect of the MPI library), 1 failing$/119 runs: 97 exact, 21 showing \1: x (21), 1 failing/' <<<"$validate_line"
}
# A stub ci/ompi5.sh: exits with STATUS after writing what the real one leaves in BUILD/ompi5.
stub() {
  local status=$1 results=$2
  cat >"$work/ompi5.sh" <<STUB
#!/usr/bin/env bash
mkdir -p "$work/build/ompi5"
[ $status -eq 3 ] && echo "Debian 13's archive is not reachable" >"$work/build/ompi5/skipped.txt"
if [ "$results" = yes ]; then
  printf '%s' '$(junit 10 1 2)' >"$work/build/ompi5/ctest.xml"
  printf '%s\n' '$(validate_text)' >"$work/build/ompi5/validate.txt"
fi
exit $status
STUB
  chmod +x "$work/ompi5.sh"
}

junit 20 2 3 >a.xml
junit 5 0 1 >b.xml
out=$(source "$repo/ci/summary.sh"; count_junit a a.xml >/dev/null; count_junit b b.xml >/dev/null; count_status gate 0
      count_status fuzz 1 2>/dev/null; count_skipped x y >/dev/null; print_summary; echo "rc=$?")
expect_eq "$(tail -2 <<<"$out" | head -1)" "20 passed, 3 failed, 5 skipped" "two builds, the gate and the fuzzing"
expect_contains "$out" "failed: fuzz: exit code 1" "the failed stage is named"
expect_contains "$out" "rc=1" "a failure makes the command fail"

out=$(source "$repo/ci/summary.sh"; count_junit a missing.xml 2>&1; print_summary; echo "rc=$?")
expect_contains "$out" "0 passed, 1 failed, 0 skipped" "a missing report is a failure, not zero tests"
junit 0 0 0 >empty.xml
out=$(source "$repo/ci/summary.sh"; count_junit a empty.xml 2>&1; print_summary; echo "rc=$?")
expect_contains "$out" "rc=1" "a run of no test fails"
out=$(source "$repo/ci/summary.sh"; count_skipped fuzz off; print_summary; echo "rc=$?")
expect_contains "$out" "rc=1" "nothing but skips fails: nothing passed"

# The gate: 6 (baseline from elsewhere) is a visible skip, 7 (missing) and 8 (unstable) fail.
out=$(source "$repo/ci/summary.sh"; count_gate 0; count_gate 6; count_gate 7 2>/dev/null; count_gate 8 2>/dev/null
      count_gate 3 2>/dev/null; print_summary)
expect_contains "$out" "1 passed, 3 failed, 1 skipped" "gate exit codes"
expect_contains "$out" "gate: skipped: results/gate/baseline.json is from another build or CPU" "gate re-record reason"

# The Open MPI 5 stage cannot be prepared (exit 3).
stub 3 no
out=$(unset MPIMON_SKIP_OMPI5; CI=true; source "$repo/ci/summary.sh"; ompi5_stage "$work/ompi5.sh" "$work/build" 2>&1
      print_summary; echo "rc=$?")
expect_contains "$out" "0 passed, 1 failed, 0 skipped" "CI=true: the stage is required"
expect_contains "$out" "required under CI=true but cannot run: Debian 13's archive is not reachable" "CI=true: the reason"
expect_contains "$out" "MPIMON_SKIP_OMPI5=1" "CI=true: the opt-out is named"
out=$(MPIMON_SKIP_OMPI5=1 CI=true; source "$repo/ci/summary.sh"; count_passed; ompi5_stage "$work/ompi5.sh" "$work/build" 2>&1
      print_summary; echo "rc=$?")
expect_contains "$out" "1 passed, 0 failed, 1 skipped" "MPIMON_SKIP_OMPI5=1: skipped explicitly"
expect_contains "$out" "rc=0" "MPIMON_SKIP_OMPI5=1: not a failure"
out=$(unset MPIMON_SKIP_OMPI5 CI; source "$repo/ci/summary.sh"; count_passed; ompi5_stage "$work/ompi5.sh" "$work/build" 2>&1
      print_summary; echo "rc=$?")
expect_contains "$out" "1 passed, 0 failed, 1 skipped" "outside CI: skipped with the reason"
expect_contains "$out" "ompi5: skipped: Debian 13's archive is not reachable" "outside CI: the reason"

# The stage ran: its CTest report and validate's verdict line are counted.
stub 1 yes
out=$(CI=true; source "$repo/ci/summary.sh"; ompi5_stage "$work/ompi5.sh" "$work/build" 2>&1; print_summary; echo "rc=$?")
expect_contains "$validate_line" "1 runs: 0 exact, 0 showing a known defect of the MPI library, 1 failing" "mpimon validate's last line"
expect_contains "$out" "125 passed, 2 failed, 2 skipped" "ompi5 counts (7 + 118 passed, 1 + 1 failed, 2 skipped)"
expect_contains "$out" "rc=1" "ompi5 failures fail the command"
# A verdict line that is not the real one (an older format) is no verdict: a failure, not a stop.
out=$(source "$repo/ci/summary.sh"; printf '118 of 119 runs as expected\n' >old.txt; count_validate v old.txt 2>&1
      print_summary; echo "rc=$?")
expect_contains "$out" "no verdict line in old.txt" "an unknown verdict line is named"
expect_contains "$out" "rc=1" "an unknown verdict line fails (and the command goes on to its summary)"
# It exits 0 but leaves no results (or only those of an earlier run, removed first): a failure.
stub 0 no
out=$(CI=true; source "$repo/ci/summary.sh"; ompi5_stage "$work/ompi5.sh" "$work/build" 2>&1; print_summary; echo "rc=$?")
expect_contains "$out" "0 passed, 2 failed, 0 skipped" "exit 0 without results is not a pass"
stub 2 no
out=$(source "$repo/ci/summary.sh"; ompi5_stage "$work/ompi5.sh" "$work/build" 2>&1; print_summary; echo "rc=$?")
expect_contains "$out" "ci/ompi5.sh exit code 2" "another exit code is a failure"

# The Debian package stage: one check from the exit code; 3 (its root cannot be prepared) as above.
deb_stub() {
  printf '#!/usr/bin/env bash\nmkdir -p "%s/build/debian-package"\n[ %s -eq 3 ] && echo "no Debian mirror in /etc/apt" >"%s/build/debian-package/skipped.txt"\nexit %s\n' \
    "$work" "$1" "$work" "$1" >"$work/debian-package.sh"
  chmod +x "$work/debian-package.sh"
}
deb_stub 0
out=$(CI=true; source "$repo/ci/summary.sh"; debian_package_stage "$work/debian-package.sh" "$work/build" 2>&1; print_summary; echo "rc=$?")
expect_contains "$out" "1 passed, 0 failed, 0 skipped" "debian-package: done is one pass"
deb_stub 1
out=$(CI=true; source "$repo/ci/summary.sh"; count_passed; debian_package_stage "$work/debian-package.sh" "$work/build" 2>&1
      print_summary; echo "rc=$?")
expect_contains "$out" "failed: debian-package: exit code 1" "debian-package: a failed step is named"
expect_contains "$out" "rc=1" "debian-package: a failed step fails the command"
deb_stub 3
out=$(unset MPIMON_SKIP_DEBIAN_PACKAGE; CI=true; source "$repo/ci/summary.sh"; count_passed
      debian_package_stage "$work/debian-package.sh" "$work/build" 2>&1; print_summary; echo "rc=$?")
expect_contains "$out" "1 passed, 1 failed, 0 skipped" "debian-package, CI=true: the stage is required"
expect_contains "$out" "required under CI=true but cannot run: no Debian mirror in /etc/apt" "debian-package, CI=true: the reason"
expect_contains "$out" "MPIMON_SKIP_DEBIAN_PACKAGE=1" "debian-package, CI=true: the opt-out is named"
out=$(MPIMON_SKIP_DEBIAN_PACKAGE=1 CI=true; source "$repo/ci/summary.sh"; count_passed
      debian_package_stage "$work/debian-package.sh" "$work/build" 2>&1; print_summary; echo "rc=$?")
expect_contains "$out" "1 passed, 0 failed, 1 skipped" "MPIMON_SKIP_DEBIAN_PACKAGE=1: skipped explicitly"
out=$(unset MPIMON_SKIP_DEBIAN_PACKAGE CI; source "$repo/ci/summary.sh"; count_passed
      debian_package_stage "$work/debian-package.sh" "$work/build" 2>&1; print_summary; echo "rc=$?")
expect_contains "$out" "debian-package: skipped: no Debian mirror in /etc/apt" "debian-package outside CI: the reason"
expect_contains "$out" "rc=0" "debian-package outside CI: a skip is not a failure"

# ci/test.sh itself ends with the summary and hands the stages to ompi5_stage and debian_package_stage.
expect_eq "$(tail -1 "$repo/ci/test.sh")" "print_summary" "ci/test.sh ends with the summary"
grep -q '^ompi5_stage "$repo/ci/ompi5.sh"' "$repo/ci/test.sh" || fail "ci/test.sh does not run ci/ompi5.sh through ompi5_stage"
grep -q '^debian_package_stage "$repo/ci/debian-package.sh"' "$repo/ci/test.sh" ||
  fail "ci/test.sh does not run ci/debian-package.sh through debian_package_stage"

finish "ci summary"
