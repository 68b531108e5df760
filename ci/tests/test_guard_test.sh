#!/usr/bin/env bash
# The HDF5 error-stack guard (cmake/test_guard.cmake) at work on a real CTest run: in a crafted
# project that uses it, a test printing libhdf5's own error stack (H5Fopen of a missing file through
# ctypes, unsilenced) after 4 KiB of output (more than the 1 KiB ctest keeps of a passing test) and
# exiting 0 fails, with CTest's reason; a quiet test passes; the same noisy test in a project without
# the guard passes (what happened to every passing test before the guard).
# Usage: test_guard_test.sh REPO CMAKE CTEST
set -u
repo=$1 cmake=$2 ctest=$3
source "$repo/cli/tests/test_lib.sh"
python=/usr/bin/python3
# The real error stack needs Debian's serial libhdf5 (libhdf5-dev, ci/install-deps.sh): decided first.
"$python" -c "import ctypes.util, sys; sys.exit(not ctypes.util.find_library('hdf5_serial'))" 2>/dev/null ||
  skip_test "libhdf5_serial not found by python3's ctypes (libhdf5-dev, ci/install-deps.sh)"

cat >noisy.py <<'PY'
import ctypes, ctypes.util
print("x" * 4096)
hdf5 = ctypes.CDLL(ctypes.util.find_library("hdf5_serial"))
hdf5.H5Fopen.restype = ctypes.c_int64
hdf5.H5Fopen(b"/nonexistent/mpimon-guard-test.h5", 0, 0)
PY
# project DIR GUARD: a crafted project, with (GUARD=yes) or without the guard.
project() {
  mkdir -p "$1"
  {
    echo 'cmake_minimum_required(VERSION 3.25)'
    echo 'project(crafted NONE)'
    echo 'enable_testing()'
    [ "$2" = yes ] && echo "include($repo/cmake/test_guard.cmake)" && echo 'mpimon_guard_tests()'
    echo "add_test(NAME noisy COMMAND $python $work/noisy.py)"
    echo 'add_test(NAME quiet COMMAND true)'
  } >"$1/CMakeLists.txt"
  check && "$cmake" -S "$1" -B "$1/build" >"$1/configure.log" 2>&1 || fail "configuring $1: $(cat "$1/configure.log")"
  (cd "$1/build" && "$ctest" --output-junit "$work/$1.xml" >"$work/$1.log" 2>&1; echo $? >"$work/$1.rc")
}
project guarded yes
project unguarded no
check && grep -q "HDF5-DIAG: Error detected in HDF5" guarded.xml ||
  fail "the noisy test did not print libhdf5's error stack: $(cat guarded.log)"
expect_eq "$(cat guarded.rc)" 8 "guarded: ctest fails"
expect_contains "$(cat guarded.log)" "noisy (Failed)" "guarded: the noisy test fails"
expect_contains "$(cat guarded.log)" "1 tests failed out of 2" "guarded: only the noisy test fails"
expect_contains "$(cat guarded.xml)" "Error regular expression found in output. Regex=[HDF5-DIAG]" \
  "guarded: CTest says why"
expect_eq "$(cat unguarded.rc)" 0 "unguarded: the noisy test passes (the case the guard exists for)"
finish test_guard
