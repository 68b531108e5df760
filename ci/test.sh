#!/usr/bin/env bash
# Every test: install what is missing, build, run the whole CTest suite (unit, CLI, validation
# under mpiexec); the overhead regression gate; the README's other setup commands as written
# (ci/readme_setup.sh: the main job, the build by hand); then, in a second build (made during the
# tests, in the background) with AddressSanitizer and
# UndefinedBehaviorSanitizer, the tests that need no MPI and run a program of that build; then the
# fuzzers' check of the readers (ci/fuzz.sh: every committed corpus and regression input replayed,
# and a bounded run from a fixed seed: it decides, it does not search, so the same commit gets the
# same verdict; the search is ci/fuzz.sh --explore SECONDS, run by hand, docs/fuzzing.md).
# MPIMON_FUZZ_RUNS (default 1000) sets the runs per target, 0 skips the stage (counted as skipped).
# Then the validation suite again against Open MPI 5.0 in a Debian 13 chroot (ci/ompi5.sh). Under
# CI=true that stage is required: if it cannot run here, the test command fails with the reason.
# MPIMON_SKIP_OMPI5=1 skips it explicitly (counted as skipped), for machines that cannot host it.
# Then the Debian package, installed into a clean Debian 12 root, runs the main job there
# (ci/debian-package.sh); required under CI=true likewise, MPIMON_SKIP_DEBIAN_PACKAGE=1 skips it.
#
# Every stage runs even if an earlier one failed; the last line counts everything that ran:
#   N passed, N failed, N skipped
# (CTest's own verdict per test of both builds, the gate's two measures, the fuzzing, the Open MPI 5
# stage and the Debian package), and the exit code is non-zero if anything failed or nothing passed.
# A test CTest could not run (executable missing, a required fixture failed) is a failure. Every
# skip is expected by name in ci/expected-skips.txt: under CI=true one that is not, or an entry that
# did not skip, fails the run (docs/cli.md, "The test command's verdict").
source "$(dirname "$0")/common.sh"
# The counts of every stage, kept in a state file of this run (ci/summary.py).
export MPIMON_SUMMARY=$build/summary.jsonl
mkdir -p "$build" && rm -f "$MPIMON_SUMMARY"
summary() { /usr/bin/python3 "$repo/ci/summary.py" "$@"; }

step "dependencies"
"$repo/ci/install-deps.sh"

# The two Debian roots (debootstrap and apt: the network and the disk more than the processors) are
# prepared in the background while the builds below use the processors, and the sanitizer build
# while the tests run; each is waited for where it is needed, its output printed then. An
# interrupted test command stops them (the roots clean up; a job started with setsid, in a
# process group of its own, is stopped whole: a build's compilers too).
declare -A background_pid=()
start_background() {  # start_background NAME COMMAND...: output in $build/NAME.log
  "${@:2}" >"$build/$1.log" 2>&1 &
  background_pid[$1]=$!
}
wait_background() {  # wait_background NAME: its output, and its exit code
  local status=0
  wait "${background_pid[$1]}" || status=$?
  unset "background_pid[$1]"
  cat "$build/$1.log"
  return $status
}
trap 'for pid in "${background_pid[@]}"; do kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done' EXIT
start_background ompi5-root "$repo/ci/ompi5.sh" root
start_background debian12-root "$repo/ci/debian-package.sh" prepare

step "build ($build)"
# The main job's build (ci_build, ci/common.sh): after bash ci/main.sh nothing is compiled again.
ci_build ||
  { summary failed build "the build failed"; summary print; exit 1; }
# The Debian 13 root before the tests: cli.cluster_ompi5 (main tests) runs Open MPI 5 from it across
# emulated nodes. A root that cannot be made shows there as a skip with the reason (a failure under
# CI=true) and in the ompi5 stage below.
step "the Debian 13 root with Open MPI 5 (ci/ompi5.sh root, since the dependencies, in the background)"
wait_background ompi5-root || echo "ci/ompi5.sh root failed: counted by the ompi5 stage"
# The sanitizer build (its stage below) in the background during the tests, at nice 19: the MPI
# tests run one at a time (each reserves its ranks as PROCESSORS, ctest -j 2 runs it alone) and
# leave about a core idle (68 validation tests: 25 s of CPU in 53 s). Waited for after the tests,
# before the gate and the main job, whose timings it would disturb.
sanitized=${build}-sanitize
rm -f "$sanitized/ctest.xml"
# -O1: half the compile time of -O2 under the sanitizers, and what they are usually run with.
start_background sanitizer-build setsid nice -n 19 bash -c 'source "$1/ci/common.sh" &&
  build_flags="-O1 -g1 -DNDEBUG" unity_build=ON configure_and_build "$2" -DMPIMON_ENABLE_MPI=OFF \
    -DMPIMON_SANITIZER=address,undefined' sanitizer-build "$repo" "$sanitized"
step "tests"
rm -f "$build/ctest.xml"
ctest_status=0
(cd "$build" && ctest -j "$jobs" --output-on-failure --timeout 600 --output-junit "$build/ctest.xml" |
  tee "$build/ctest.log") || ctest_status=$?
summary junit main "$build/ctest.xml" "$ctest_status"
step "sanitizer build ($sanitized: address,undefined, without MPI; since the tests, in the background at nice 19)"
sanitizer_built=yes
wait_background sanitizer-build || sanitizer_built=no

# The overhead regression gate against this repository's baseline (docs/gate.md), each measure
# counted on its own: the instruction counts must match (every other verdict fails); the timing is
# judged where the baseline was recorded, elsewhere it is a skip saying re-record. Reports next
# to the build.
step "overhead regression gate (mpimon gate)"
summary gate "$build/cli/mpimon" "$repo/results/gate/baseline.json" "$build"

# The README's two commands: the test command is this one; the main command and "Building by hand"
# run here as written (ci/readme_setup.sh), on the build above (nothing compiled again).
# The README's lines build in ./build: with MPIMON_BUILD_DIR elsewhere they would build a second tree.
step "the README's setup blocks as written: bash ci/main.sh, the build by hand (ci/readme_setup.sh)"
if [ "$build" != "$repo/build" ]; then
  summary skipped readme-setup "MPIMON_BUILD_DIR=$build: the README's commands build in ./build"
else
  readme_status=0
  "$repo/ci/readme_setup.sh" 2>&1 | tee "$build/readme-setup.log" || readme_status=${PIPESTATUS[0]}
  summary status readme-setup "$readme_status" "$build/readme-setup.log"
fi

step "sanitizer tests ($sanitized): address,undefined, tests without MPI"
if [ $sanitizer_built = yes ]; then
  ctest_status=0
  # Not the tests labelled repository: they run no program of this build (scripts, docs, the CTest
  # registrations), and the main build runs them.
  (cd "$sanitized" && ctest -j "$jobs" --output-on-failure -L "unit|cli" -LE repository \
    --output-junit "$sanitized/ctest.xml") ||
    ctest_status=$?
  summary junit sanitizer "$sanitized/ctest.xml" "$ctest_status"
else
  summary failed "sanitizer build" "the build failed"
fi

fuzz_runs=${MPIMON_FUZZ_RUNS:-1000}
if [ "$fuzz_runs" != 0 ]; then
  step "the fuzzers' check: committed inputs, then $fuzz_runs runs per target from a fixed seed"
  fuzz_status=0
  "$repo/ci/fuzz.sh" --runs "$fuzz_runs" 2>&1 | tee "$build/fuzz.log" || fuzz_status=${PIPESTATUS[0]}
  summary status fuzz "$fuzz_status" "$build/fuzz.log"
else
  summary skipped fuzz "MPIMON_FUZZ_RUNS=0"
fi

step "validation against Open MPI 5.0 (Debian 13 chroot): ci/ompi5.sh validate"
summary ompi5 "$repo/ci/ompi5.sh" "$build"

step "the clean Debian 12 root (ci/debian-package.sh prepare, since the dependencies, in the background)"
wait_background debian12-root || echo "ci/debian-package.sh prepare failed: counted by the Debian package stage"
step "the Debian package in a clean Debian 12 root: ci/debian-package.sh test"
summary debian-package "$repo/ci/debian-package.sh" "$build"

step "summary"
echo "time per step (minutes:seconds):"
print_step_times
summary print
