# Sourced by the CLI test scripts: a scratch directory removed on exit, and the assertion helpers.
# Each assertion records a failure and goes on, so one run reports every difference;
# `finish NAME` prints the verdict and exits 1 if anything failed, else 77 (CTest's
# SKIP_RETURN_CODE for these tests) if a part could not run for a missing prerequisite
# (`skip_part REASON`): a test that did not check everything is reported as skipped, never passed.
# `skip_test REASON` skips the whole test (77) and is refused once anything was checked (`check`
# counts every check, passed or failed): a skip is decided before the first assertion, so a check
# already made can never end as a skip.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failures=0 checks=0
skipped_parts=()

# check: counts one check. Every check goes through it, so that skip_test sees the ones that passed:
# the expect_* below, and every plain condition that calls fail, which starts with it:
#   check && [ -s out.h5 ] || fail "no output"
#   if check && grep -qi nan <<<"$out"; then fail "NaN printed: $out"; fi
# (ci/check_test_scripts.py, run by cli.ci_summary, finds a condition that does not).
check() { checks=$((checks + 1)); }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
expect_eq() { check && [ "$1" == "$2" ] || fail "$3: expected [$2], got [$1]"; }
expect_contains() { check && grep -qF -- "$2" <<<"$1" || fail "$3: [$2] not found in: $1"; }
# expect_near ACTUAL EXPECTED TOLERANCE WHAT
expect_near() {
  check && awk -v a="$1" -v e="$2" -v t="$3" 'BEGIN { d = a - e; if (d < 0) d = -d; exit !(a != "" && d <= t) }' ||
    fail "$4: expected $2 ± $3, got [$1]"
}

skip_part() { echo "SKIPPED PART: $*"; skipped_parts+=("$*"); }
skip_test() {
  if ((checks + failures > 0)); then
    echo "FAIL: skipped after $checks check(s) and $failures failure(s) ($*): a skip is decided before anything is checked"
    exit 1
  fi
  echo "SKIP: $*"
  exit 77
}

# run CMD...: sets out (stdout), err (stderr) and rc (exit code)
run() {
  out=$("$@" 2>"$work/stderr")
  rc=$?
  err=$(cat "$work/stderr")
}

# expect_ring_dumps DIR WHAT: the demo ring (validation/programs/demo_ring.cpp) at np 4 sends 10 halo
# messages of 4096 doubles from each rank r to r+1 mod 4: every rank's dump in DIR, and Open MPI's
# own dump lines ("E RANK PEER BYTES bytes COUNT msgs sent") hold exactly those 4 pairs.
expect_ring_dumps() {
  for r in 0 1 2 3; do check && [ -s "$1/mpimon-demo-ring.$r.prof" ] || fail "$2: no dump of rank $r"; done
  expect_eq "$(cat "$1"/mpimon-demo-ring.*.prof | awk -F'\t' '$1 == "E" { print $2, $3, $4, $5 }' | sort | tr '\n' ';')" \
    "0 1 327680 bytes 10 msgs sent;1 2 327680 bytes 10 msgs sent;2 3 327680 bytes 10 msgs sent;3 0 327680 bytes 10 msgs sent;" \
    "$2: the ranks' dumps hold the ring's messages, and only them"
}

# treematch_library: the TreeMatch library mpimon place uses (Open MPI 4.1's mca_topo_treematch.so,
# or MPIMON_TREEMATCH_LIB), printed; nothing when it is not installed. Whether TreeMatch can run is
# decided by it, before anything is checked: where it is installed, a failing TreeMatch is a failure.
treematch_library() {
  local candidate
  if [ -n "${MPIMON_TREEMATCH_LIB:-}" ]; then
    echo "$MPIMON_TREEMATCH_LIB"
    return
  fi
  for candidate in /usr/lib/*/openmpi/lib/openmpi3/mca_topo_treematch.so /usr/lib64/openmpi/lib/openmpi/mca_topo_treematch.so; do
    [ -e "$candidate" ] && { echo "$candidate"; return; }
  done
}

# finish NAME: the verdict line, and the exit code
finish() {
  if [ "$failures" -ne 0 ]; then
    echo "$1: $failures failure(s)"
    exit 1
  fi
  if [ "${#skipped_parts[@]}" -ne 0 ]; then
    echo "$1: skipped: everything else passed, but not checked: ${skipped_parts[*]}"
    exit 77
  fi
  echo "$1: ok"
  exit 0
}
