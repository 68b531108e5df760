# Sourced by ci/test.sh (and its test, ci/tests/summary_test.sh): counts what every stage ran, so
# that the test command ends with one line `N passed, N failed, N skipped` and nothing passes by
# not running. Stages go on after a failure; the summary decides the exit code.
passed=0 failed=0 skipped=0
failed_stages=()

# The tests that may skip on the reference machines, by stage, with the reason (ci/expected-skips.txt).
expected_skips=${MPIMON_EXPECTED_SKIPS:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/expected-skips.txt}
declare -A expected_skip_seen=()

# junit_cases FILE: one line per test case of a CTest JUnit report (ctest --output-junit),
#   STATUS US NAME US CTEST'S MESSAGE US WHY (separated by the unit separator, \x1f)
# WHY is GoogleTest's skip message (the line after "FILE:LINE: Skipped"), else the last line of the
# test's output that speaks of a skip, else its last line.
# STATUS is CTest's: run, fail, notrun (a skip, or a test that could not start), disabled.
junit_cases() {
  awk '
    function attr(line, key) {
      if (!match(line, key "=\"[^\"]*\"")) return ""
      return substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 3)
    }
    function text(s) {
      gsub(/&lt;/, "<", s); gsub(/&gt;/, ">", s); gsub(/&quot;/, "\"", s); gsub(/&apos;/, "\047", s)
      gsub(/&amp;/, "\\&", s); gsub(/\t/, " ", s); sub(/^[ ]+/, "", s); sub(/[ ]+$/, "", s)
      return s
    }
    /<testcase / { name = attr($0, "name"); status = attr($0, "status"); message = why = last = gtest_why = ""; gtest = 0; next }
    /^[ \t]*<(skipped|failure) message=/ && !out { message = attr($0, "message"); next }
    /<system-out>/ { out = 1; sub(/.*<system-out>/, "") }
    out {
      line = $0
      if (sub(/<\/system-out>.*/, "", line)) out = 0
      if (gtest) { if (line ~ /[^ \t]/) { gtest_why = line; gtest = 0 } }
      else if (tolower(line) ~ /skip/) why = line
      if (line ~ /: Skipped$/) gtest = 1
      if (line ~ /[^ \t]/) last = line
      if (out) next
    }
    /<\/testcase>/ { printf "%s\037%s\037%s\037%s\n", status, name, text(message), text(gtest_why != "" ? gtest_why : why != "" ? why : last) }
  ' "$1"
}

# expected_skip STAGE TEST: whether TEST may skip in STAGE; sets expected_reason to the manifest's
# reason (not run in a subshell: it records which entries matched).
# Each line of the manifest: STAGE TEST-PATTERN (a shell glob) REASON; # starts a comment.
expected_skip() {
  local stage pattern reason
  [ -r "$expected_skips" ] || return 1
  while read -r stage pattern reason; do
    [[ -z $stage || $stage == \#* ]] && continue
    # shellcheck disable=SC2053 # the pattern is a glob on purpose
    if [ "$stage" = "$1" ] && [[ $2 == $pattern ]]; then
      expected_skip_seen["$stage $pattern"]=1
      expected_reason=$reason
      return 0
    fi
  done <"$expected_skips"
  return 1
}

# count_skip STAGE TEST WHY: a test that skipped. Expected (in the manifest) it is a skip; not
# expected, it is a skip with the reason outside CI and a failure under CI=true, where every skip
# of the reference machine is known.
count_skip() {
  local stage=$1 test=$2 why=$3
  if expected_skip "$stage" "$test"; then
    skipped=$((skipped + 1))
    echo "$stage: skipped (expected: $expected_reason): $test: $why"
  elif [ "${CI:-}" = true ]; then
    count_failed "$stage" "$test skipped, which ci/expected-skips.txt does not expect on the reference machine: $why"
  else
    skipped=$((skipped + 1))
    echo "$stage: skipped (not in ci/expected-skips.txt, a failure under CI=true): $test: $why"
  fi
}

# check_expected_skips STAGE: every manifest entry of STAGE that matched no skip is reported (the
# test now runs, or was renamed: the list must follow), and under CI=true it is a failure.
check_expected_skips() {
  local stage pattern reason
  [ -r "$expected_skips" ] || return 0
  while read -r stage pattern reason; do
    [[ -z $stage || $stage == \#* || $stage != "$1" ]] && continue
    [ -n "${expected_skip_seen["$stage $pattern"]:-}" ] && continue
    if [ "${CI:-}" = true ]; then
      count_failed "$stage" "ci/expected-skips.txt expects $pattern to skip ($reason), it did not: update the list"
    else
      echo "$stage: note: ci/expected-skips.txt expects $pattern to skip ($reason), it did not"
    fi
  done <"$expected_skips"
}

# count_junit STAGE FILE [CTEST_EXIT_CODE]: adds the results of a CTest run written with
# --output-junit FILE, test by test from CTest's own status: passed (run), failed (fail: a failure
# or a timeout), skipped (notrun with SKIP_RETURN_CODE or SKIP_REGULAR_EXPRESSION, or disabled),
# and failed for every other test that did not run (its executable missing, a fixture it requires
# failed, a required file missing): the counts are CTest's. A missing or unreadable report is a
# failure of the stage, not zero tests; so is a non-zero exit code of ctest without a failed test.
count_junit() {
  local stage=$1 file=$2 ctest_status=${3:-0} cases status name message why
  local run=0 fails=0 skips=0 total header
  cases=$(junit_cases "$file" 2>/dev/null)
  header=$(sed -n 's/^[[:space:]]*tests="\([0-9]*\)".*/\1/p' "$file" 2>/dev/null | head -1)
  if [ -z "$cases" ] || [ -z "$header" ]; then
    count_failed "$stage" "no test results in $file"
    return
  fi
  while IFS=$'\x1f' read -r status name message why; do
    case $status in
      run) run=$((run + 1)) ;;
      fail) fails=$((fails + 1)); count_failed "$stage" "$name: failed" ;;
      disabled) skips=$((skips + 1)); count_skip "$stage" "$name" "disabled (DISABLED property)" ;;
      notrun)
        if [[ $message == SKIP_* ]]; then
          skips=$((skips + 1)); count_skip "$stage" "$name" "${why:-$message}"
        else
          fails=$((fails + 1)); count_failed "$stage" "$name did not run: $message${why:+ ($why)}"
        fi
        ;;
      *) fails=$((fails + 1)); count_failed "$stage" "$name: unknown CTest status '$status'" ;;
    esac
  done <<<"$cases"
  passed=$((passed + run))
  total=$((run + fails + skips))
  [ "$total" -eq "$header" ] || count_failed "$stage" "$file announces $header tests, lists $total"
  if [ "$ctest_status" -ne 0 ] && [ "$fails" -eq 0 ]; then count_failed "$stage" "ctest exit code $ctest_status"; fi
  check_expected_skips "$stage"
  echo "$stage: CTest: $run passed, $fails failed, $skips skipped"
}

# count_validate STAGE FILE [VALIDATE_EXIT_CODE]: adds the last line of `mpimon validate`,
#   "N runs: X exact, Y showing a known defect of the MPI library[: ids][, U not checked (...)], Z failing"
# (exact and known-defect runs are as expected, failing ones are not; runs not checked, whose subject
# the MPI library cannot reach, are skips). A non-zero exit code with no failing run is a failure.
count_validate() {
  local stage=$1 file=$2 validate_status=${3:-0} line total failing unchecked
  line=$(grep -E '^[0-9]+ runs: .*, [0-9]+ failing$' "$file" 2>/dev/null | tail -1 || true)
  total=${line%% runs:*}
  failing=${line##*, }
  failing=${failing%% failing}
  unchecked=$(sed -n 's/.*, \([0-9][0-9]*\) not checked (.*/\1/p' <<<"$line")
  unchecked=${unchecked:-0}
  if [ -z "$line" ] || [ "$total" -eq 0 ]; then
    count_failed "$stage" "no verdict line in $file"
    return
  fi
  passed=$((passed + total - failing - unchecked))
  failed=$((failed + failing))
  skipped=$((skipped + unchecked))
  ((failing == 0)) || failed_stages+=("$stage ($failing not as expected)")
  if [ "$validate_status" -ne 0 ] && [ "$failing" -eq 0 ]; then
    count_failed "$stage" "mpimon validate exit code $validate_status"
  fi
  echo "$stage: $((total - failing - unchecked)) passed, $failing failed, $unchecked not checked (skipped)"
}

# One check that is a whole stage (the gate, the fuzzing run).
count_passed() { passed=$((passed + 1)); }
count_failed() { failed=$((failed + 1)); failed_stages+=("$1: $2"); echo "$1: FAILED: $2" >&2; }
count_skipped() { skipped=$((skipped + 1)); echo "$1: skipped: $2"; }

# count_status STAGE STATUS: a stage counted as one check from its exit code.
count_status() {
  if [ "$2" -eq 0 ]; then count_passed; else count_failed "$1" "exit code $2"; fi
}

# gate_stage MPIMON BASELINE DIR [GATE OPTIONS...]: the overhead regression gate (docs/gate.md),
# each measure run and counted on its own, reports in DIR/gate-MEASURE.{json,xml}. The instruction
# measure is deterministic and must pass on the reference machine (the same Debian packages give
# the same build fingerprint). The timing measure is judged only on the machine (CPU model and
# count, Open MPI) that recorded the baseline: elsewhere it says re-record (exit 6), a skip with
# that reason. Run apart, neither verdict can hide the other's.
gate_stage() {
  local mpimon=$1 baseline=$2 dir=$3 measure status
  shift 3
  for measure in instructions timing; do
    status=0
    "$mpimon" gate --measure "$measure" --baseline "$baseline" --json "$dir/gate-$measure.json" \
      --junit "$dir/gate-$measure.xml" "$@" || status=$?
    count_gate "$measure" "$status"
  done
}

# count_gate MEASURE STATUS: one measure's `mpimon gate --measure MEASURE` exit code, one check.
count_gate() {
  local stage="gate $1"
  case $2 in
    0) count_passed; echo "$stage: passed" ;;
    3 | 4 | 5) count_failed "$stage" "REGRESSION (mpimon gate exit code $2, docs/gate.md)" ;;
    6)
      if [ "$1" = timing ]; then
        count_skipped "$stage" "re-record: results/gate/baseline.json's timing is from another CPU or Open MPI (judged only where it was recorded; docs/gate.md)"
      else
        count_failed "$stage" "re-record (exit code 6): the baseline's instruction counts are from another Open MPI build, valgrind or libraries than this machine's; the reference machine must match it (docs/gate.md)"
      fi
      ;;
    7) count_failed "$stage" "missing (exit code 7): an operation or cell is in only one of the baseline and the run (docs/gate.md)" ;;
    8) count_failed "$stage" "unstable (exit code 8): two callgrind runs of one build counted differently (docs/gate.md)" ;;
    *) count_failed "$stage" "mpimon gate exit code $2 (1 error, 2 usage; docs/gate.md)" ;;
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

# read_exit_code STAGE REPORT FILE: sets exit_code to the exit code a stage script saved in FILE
# for the command that wrote REPORT. A REPORT without a number in FILE has lost its command's
# verdict: a failure (then exit_code is 0, so that it is counted once). No REPORT: 0 (the missing
# report is counted a failure where it is read).
read_exit_code() {
  exit_code=$(cat "$3" 2>/dev/null || true)
  [[ $exit_code =~ ^[0-9]+$ ]] && return
  [ -e "$2" ] && count_failed "$1" "no exit code saved in $3 for $2"
  exit_code=0
}

# ompi5_stage SCRIPT BUILD: runs the Open MPI 5.0 stage (ci/ompi5.sh validate) and counts it; the
# Open MPI 5 column of docs/defects.md rests on it.
ompi5_stage() {
  local script=$1 out=$2/ompi5 status=0
  # Results of an earlier run must not be counted for this one.
  rm -f "$out/ctest.xml" "$out/ctest.exit" "$out/validate.txt" "$out/validate.exit" "$out/skipped.txt"
  "$script" validate || status=$?
  case $status in
    0 | 1)
      # Each report is counted with its command's own exit code (ctest's: a failing ctest whose
      # report shows no failure is still a failure).
      read_exit_code ompi5 "$out/ctest.xml" "$out/ctest.exit"
      count_junit ompi5 "$out/ctest.xml" "$exit_code"
      read_exit_code "ompi5 validate" "$out/validate.txt" "$out/validate.exit"
      count_validate "ompi5 validate" "$out/validate.txt" "$exit_code"
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
