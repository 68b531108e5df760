#!/usr/bin/env bash
# Tests of ci/ompi5.sh that need no root, network nor chroot: its help, the mirror it derives from
# apt sources (fixtures written here, in both formats), and the "cannot run" exit code.
# Usage: ompi5_script_test.sh REPO
set -u
script=$1/ci/ompi5.sh
source "$1/cli/tests/test_lib.sh"

check && out=$(bash "$script" --help) || fail "--help exits non-zero"
check && grep -q "Exit codes" <<<"$out" || fail "--help does not document the exit codes"

# deb822: the security stanza comes first and must be passed over.
mkdir -p "$work/apt1/sources.list.d"
printf 'Types: deb\nURIs: http://security.invalid/debian-security\nSuites: x-security\n\nTypes: deb\nURIs: http://main.invalid/debian\nSuites: x x-updates\n' \
  >"$work/apt1/sources.list.d/debian.sources"
expect_eq "$(MPIMON_APT_DIR=$work/apt1 bash "$script" mirror)" "http://main.invalid/debian" "deb822 sources"

# One-line format, with an option block and a trailing slash.
mkdir -p "$work/apt2/sources.list.d"
printf 'deb http://security.invalid/debian-security x-security main\ndeb [arch=amd64] http://one.invalid/debian/ x main\n' \
  >"$work/apt2/sources.list"
expect_eq "$(MPIMON_APT_DIR=$work/apt2 bash "$script" mirror)" "http://one.invalid/debian" "sources.list"

# No source at all: a clear error, no guess.
mkdir -p "$work/apt3"
check && MPIMON_APT_DIR=$work/apt3 bash "$script" mirror >/dev/null 2>"$work/err" && fail "no sources: exit code 0"
check && grep -q "no Debian mirror" "$work/err" || fail "no sources: message: $(cat "$work/err")"

# Skipped on request: exit code 3 and the reason saved for ci/test.sh.
MPIMON_SKIP_OMPI5=1 MPIMON_BUILD_DIR=$work/build bash "$script" validate >/dev/null 2>&1
expect_eq "$?" 3 "MPIMON_SKIP_OMPI5=1 exit code"
expect_eq "$(cat "$work/build/ompi5/skipped.txt" 2>/dev/null)" "MPIMON_SKIP_OMPI5=1" "skip reason"

bash "$script" bogus >/dev/null 2>&1
expect_eq "$?" 2 "unknown argument"

finish "ompi5 script"
