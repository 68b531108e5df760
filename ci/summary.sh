# Sourced by ci/test.sh (and its test, ci/tests/summary_test.sh): counts what every stage ran, so
# that the test command ends with one line `N passed, N failed, N skipped` and nothing passes by
# not running. Stages go on after a failure; the summary decides the exit code.
passed=0 failed=0 skipped=0
failed_stages=()

# count_junit STAGE FILE: adds the results of a CTest run written with --output-junit FILE.
# A missing or unreadable report is a failure of the stage, not zero tests.
count_junit() {
  local stage=$1 file=$2 tests failures skips
  tests=$(sed -n 's/^[[:space:]]*tests="\([0-9]*\)".*/\1/p' "$file" 2>/dev/null | head -1)
  failures=$(sed -n 's/^[[:space:]]*failures="\([0-9]*\)".*/\1/p' "$file" 2>/dev/null | head -1)
  skips=$(sed -n 's/^[[:space:]]*skipped="\([0-9]*\)".*/\1/p' "$file" 2>/dev/null | head -1)
  if [ -z "$tests" ] || [ -z "$failures" ] || [ -z "$skips" ] || [ "$tests" -eq 0 ]; then
    count_failed "$stage" "no test results in $file"
    return
  fi
  passed=$((passed + tests - failures - skips))
  failed=$((failed + failures))
  skipped=$((skipped + skips))
  ((failures == 0)) || failed_stages+=("$stage ($failures failed)")
  echo "$stage: $((tests - failures - skips)) passed, $failures failed, $skips skipped"
}

# count_validate STAGE FILE: adds the last line of `mpimon validate`,
#   "N runs: X exact, Y showing a known defect of the MPI library[: ids], Z failing"
# (exact and known-defect runs are as expected, failing ones are not).
count_validate() {
  local stage=$1 file=$2 line total failing
  line=$(grep -E '^[0-9]+ runs: .*, [0-9]+ failing$' "$file" 2>/dev/null | tail -1 || true)
  total=${line%% runs:*}
  failing=${line##*, }
  failing=${failing%% failing}
  if [ -z "$line" ] || [ "$total" -eq 0 ]; then
    count_failed "$stage" "no verdict line in $file"
    return
  fi
  passed=$((passed + total - failing))
  failed=$((failed + failing))
  ((failing == 0)) || failed_stages+=("$stage ($failing not as expected)")
  echo "$stage: $((total - failing)) passed, $failing failed"
}

# One check that is a whole stage (the gate, the fuzzing run).
count_passed() { passed=$((passed + 1)); }
count_failed() { failed=$((failed + 1)); failed_stages+=("$1: $2"); echo "$1: FAILED: $2" >&2; }
count_skipped() { skipped=$((skipped + 1)); echo "$1: skipped: $2"; }

# count_status STAGE STATUS: a stage counted as one check from its exit code.
count_status() {
  if [ "$2" -eq 0 ]; then count_passed; else count_failed "$1" "exit code $2"; fi
}

# count_gate STATUS: `mpimon gate`'s exit code (docs/gate.md). 6 (the baseline is from another
# build or CPU, so nothing of it could be judged) is a skip with the reason, since a fresh machine
# cannot share this repository's baseline; every other non-zero code is a failure.
count_gate() {
  case $1 in
    0) count_passed ;;
    6) count_skipped "gate" "results/gate/baseline.json is from another build or CPU: re-record it here (docs/gate.md)" ;;
    *) count_failed "gate" "mpimon gate exit code $1 (3-5 regression, 7 missing, 8 unstable, 1-2 error; docs/gate.md)" ;;
  esac
}

# count_cannot_run STAGE SKIP_VARIABLE REASON: a stage whose script exited 3, its root cannot be
# prepared here. That is a skip only when asked for (SKIP_VARIABLE=1) or outside CI; under CI=true
# the stage is required and it is a failure with the reason.
count_cannot_run() {
  local stage=$1 variable=$2 reason=$3
  if [ "${!variable:-0}" = 1 ]; then
    count_skipped "$stage" "$variable=1 (this machine cannot host its root)"
  elif [ "${CI:-}" = true ]; then
    count_failed "$stage" "required under CI=true but cannot run: $reason (set $variable=1 to skip it explicitly)"
  else
    count_skipped "$stage" "$reason"
  fi
}

# ompi5_stage SCRIPT BUILD: runs the Open MPI 5.0 stage (ci/ompi5.sh validate) and counts it; the
# Open MPI 5 column of docs/defects.md rests on it.
ompi5_stage() {
  local script=$1 out=$2/ompi5 status=0
  # Results of an earlier run must not be counted for this one.
  rm -f "$out/ctest.xml" "$out/validate.txt" "$out/skipped.txt"
  "$script" validate || status=$?
  case $status in
    0 | 1)
      count_junit "ompi5 ctest" "$out/ctest.xml"
      count_validate "ompi5 validate" "$out/validate.txt"
      # A failed step before the tests (root, build) leaves no results: counted above as failures.
      ;;
    3) count_cannot_run "ompi5" MPIMON_SKIP_OMPI5 "$(cat "$out/skipped.txt" 2>/dev/null || echo "no reason saved")" ;;
    *) count_failed "ompi5" "ci/ompi5.sh exit code $status (logs in $out)" ;;
  esac
}

# debian_package_stage SCRIPT BUILD: the Debian package installed into a clean Debian 12 root and
# the main job run there (ci/debian-package.sh test), one check.
debian_package_stage() {
  local script=$1 out=$2/debian-package status=0
  rm -f "$out/skipped.txt"
  "$script" test || status=$?
  case $status in
    3) count_cannot_run "debian-package" MPIMON_SKIP_DEBIAN_PACKAGE "$(cat "$out/skipped.txt" 2>/dev/null || echo "no reason saved")" ;;
    *) count_status "debian-package" "$status" ;;
  esac
}

# print_summary: the last line of the test command; returns 1 if anything failed or nothing ran.
print_summary() {
  local stage
  for stage in "${failed_stages[@]}"; do echo "failed: $stage"; done
  echo "$passed passed, $failed failed, $skipped skipped"
  ((failed == 0 && passed > 0))
}
