#!/usr/bin/env bash
# Tests of ci/debian-package.sh that need no root, network nor chroot: its help, the mirror (the
# one of ci/chroot.sh, shared with ci/ompi5.sh), the "cannot run" exit code, the usage errors, and a
# build directory that is not one.
# Usage: debian_package_script_test.sh REPO
set -u
script=$1/ci/debian-package.sh
source "$1/cli/tests/test_lib.sh"

check && out=$(bash "$script" --help) || fail "--help exits non-zero"
check && grep -q "Exit codes" <<<"$out" || fail "--help does not document the exit codes"
check && grep -q "apt-get install ./mpimon_VERSION_amd64.deb" <<<"$out" || fail "--help does not say how the package is installed"

# The mirror is ci/chroot.sh's, parsed as cli.ompi5_script tests; here its override and its error.
expect_eq "$(MPIMON_DEBIAN_MIRROR=http://set.invalid/debian bash "$script" mirror)" "http://set.invalid/debian" "MPIMON_DEBIAN_MIRROR"
mkdir -p "$work/noapt"
check && MPIMON_APT_DIR=$work/noapt bash "$script" mirror >/dev/null 2>"$work/err" && fail "no sources: exit code 0"
check && grep -q "debian-package: no Debian mirror" "$work/err" || fail "no sources: message: $(cat "$work/err")"

# Skipped on request: exit code 3 and the reason saved for ci/test.sh, before anything is built.
mkdir -p "$work/build" && touch "$work/build/CMakeCache.txt"
MPIMON_SKIP_DEBIAN_PACKAGE=1 MPIMON_BUILD_DIR=$work/build bash "$script" test >/dev/null 2>&1
expect_eq "$?" 3 "MPIMON_SKIP_DEBIAN_PACKAGE=1 exit code"
expect_eq "$(cat "$work/build/debian-package/skipped.txt" 2>/dev/null)" "MPIMON_SKIP_DEBIAN_PACKAGE=1" "skip reason"

# A directory that is not a configured build: named, exit 1, nothing made.
MPIMON_BUILD_DIR=$work/empty bash "$script" build >/dev/null 2>"$work/err"
expect_eq "$?" 1 "not a build directory: exit code"
check && grep -q "$work/empty is not a configured build directory" "$work/err" || fail "not a build directory: message: $(cat "$work/err")"
check && [ -e "$work/empty" ] && fail "not a build directory: $work/empty made"

bash "$script" bogus >/dev/null 2>"$work/err"
expect_eq "$?" 2 "unknown argument"
check && grep -q "unknown argument 'bogus'" "$work/err" || fail "unknown argument: message: $(cat "$work/err")"

finish "debian-package script"
