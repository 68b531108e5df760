#!/usr/bin/env bash
# The benchmark scripts' shared argument loop (bench/common/options.sh): values and flags land in
# their variables in the order given, and each script's help, unknown argument and missing value
# behave as written here (by hand), before anything is measured.
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
failures=0
expect() {  # DESCRIPTION EXPECTED ACTUAL
  if [ "$2" != "$3" ]; then
    echo "FAIL: $1: expected [$2], got [$3]"
    failures=$((failures + 1))
  fi
}

# What a command printed (both streams) and its exit status, on one line.
outcome() {
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  echo "$out rc=$rc"
}

# parse_options on a table of one flag and one value option, in a subshell per call.
parsed() {
  bash -c 'source "$0/bench/common/options.sh"
    quick=0 reps=5 build=default
    bench_options=("--quick = quick=1 reps=2" "--build build a directory" "--reps reps a number")
    parse_options "$@"
    echo "quick=$quick reps=$reps build=$build"' "$repo" "$@" 2>&1
  echo "rc=$?"
}
expect "no arguments" "quick=0 reps=5 build=default rc=0" "$(parsed | paste -sd' ')"
expect "a value and a flag" "quick=1 reps=2 build=/x y rc=0" "$(parsed --build '/x y' --quick | paste -sd' ')"
expect "a flag's assignment, then a value" "quick=1 reps=7 build=default rc=0" "$(parsed --quick --reps 7 | paste -sd' ')"
expect "a value, then a flag's assignment" "quick=1 reps=2 build=default rc=0" "$(parsed --reps 7 --quick | paste -sd' ')"

# Each script: its help (first line), an unknown argument, a missing value, and a value taken
# (a build directory that does not exist: the script stops at its first missing program).
for script in bench/collect/run.sh bench/merge/run.sh bench/merge/parallel.sh; do
  name=$(basename "$script")
  out=$(bash "$repo/$script" --help 2>&1)
  expect "$script --help exit" 0 $?
  case $script in
    bench/collect/run.sh) first="Online-collection benchmark (it reports; it never fails on a missed target). Two measurements on" ;;
    bench/merge/run.sh) first="Merge benchmark (it reports; it never fails on a missed target). On synthetic Open MPI dumps it" ;;
    *) first="The parallel merge against the serial one and against \`cat\`, side by side in one run, on" ;;
  esac
  expect "$script --help" "$first" "$(head -1 <<<"$out")"
  expect "$script -h" "$out" "$(bash "$repo/$script" -h 2>&1)"
  expect "$script --bogus" "$name: unknown argument '--bogus' (see --help) rc=2" \
    "$(outcome bash "$repo/$script" --bogus)"
  expect "$script --build" "$name: --build needs a directory rc=2" "$(outcome bash "$repo/$script" --build)"
  err=$(bash "$repo/$script" --build /nonexistent/mpimon-build 2>&1)
  expect "$script --build DIR exit" 1 $?
  [[ $err == *"/nonexistent/mpimon-build/"*" is missing"* ]] || expect "$script --build DIR" "... is missing" "$err"
done
expect "run.sh --reps" "run.sh: --reps must be a positive integer, not 'x' rc=2" \
  "$(outcome bash "$repo/bench/collect/run.sh" --reps x)"
expect "parallel.sh --np" "parallel.sh: --np needs a list rc=2" "$(outcome bash "$repo/bench/merge/parallel.sh" --np)"

[ $failures = 0 ] && echo "all checks passed"
exit $((failures > 0))
