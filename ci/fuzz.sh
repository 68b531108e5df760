#!/usr/bin/env bash
# Builds the .prof reader's libFuzzer target with AddressSanitizer and UndefinedBehaviorSanitizer
# (Debian's clang 14, libFuzzer from libclang-rt-14-dev) and fuzzes it for DURATION seconds.
#
# Usage: ci/fuzz.sh [DURATION]      (seconds, default 60)
#
#   build-fuzz/            separate build tree (clang, -fsanitize=address,undefined)
#   build-fuzz/corpus/     working corpus: the seeds of analysis/fuzz/corpus plus what libFuzzer
#                          finds; kept between runs so they add up (delete it to start over).
#                          The seeds in the repository are never written to.
#   build-fuzz/crashes/    reproducers of any crash, leak, UB report or timeout
#   build-fuzz/fuzz.log    libFuzzer's output of the last run
#
# Exits non-zero if a regression input or the fuzzer crashes. Reproduce a crash with
#   build-fuzz/analysis/fuzz/mpimon_prof_fuzzer build-fuzz/crashes/crash-<sha1>
set -euo pipefail

duration=${1:-60}
[[ $duration =~ ^[0-9]+$ && $duration -gt 0 ]] || { echo "usage: $0 [SECONDS]" >&2; exit 2; }

root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-fuzz
fuzz_src=$root/analysis/fuzz
fuzzer=$build/analysis/fuzz/mpimon_prof_fuzzer

# Only the analysis library and the fuzzer are built; the MPI parts and tests are not needed.
# -j1: the machine is shared with other builds.
mkdir -p "$build"
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DMPIMON_ENABLE_FUZZING=ON -DMPIMON_SANITIZER=address,undefined \
  -DMPIMON_ENABLE_TESTING=OFF -DMPIMON_ENABLE_MPI=OFF >"$build/configure.log" 2>&1 \
  || { cat "$build/configure.log" >&2; echo "fuzz: configure failed (clang missing? run ci/install-deps.sh)" >&2; exit 1; }
cmake --build "$build" --target mpimon_prof_fuzzer -j1 \
  || { echo "fuzz: build failed (libFuzzer runtime missing? run ci/install-deps.sh)" >&2; exit 1; }

mkdir -p "$build/corpus" "$build/crashes"
cp -n "$fuzz_src"/corpus/* "$build/corpus/"

# Stack traces for UBSan too; ASan's defaults already stop at the first error and detect leaks.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}

# Known crashers first: each must now run clean.
shopt -s nullglob
regressions=("$fuzz_src"/regressions/*)
if ((${#regressions[@]})); then
  "$fuzzer" -timeout=10 -rss_limit_mb=2048 "${regressions[@]}" \
    || { echo "fuzz: a regression input in analysis/fuzz/regressions crashes again" >&2; exit 1; }
fi

# One process (no -jobs/-workers): the machine has 2 cores and is shared.
set +e
"$fuzzer" "$build/corpus" -dict="$fuzz_src/prof.dict" -max_total_time="$duration" -timeout=10 \
  -rss_limit_mb=2048 -artifact_prefix="$build/crashes/" -print_final_stats=1 2>&1 | tee "$build/fuzz.log"
status=${PIPESTATUS[0]}
set -e

runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/fuzz.log" | tail -n1)
secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$build/fuzz.log" | tail -n1)
final=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$build/fuzz.log" | tail -n1 || true)
if ((status != 0)) || [[ -z $secs ]]; then
  echo "fuzz: CRASH after ${runs:-?} runs (libFuzzer exit $status); reproducers in $build/crashes/:" >&2
  ls -t "$build/crashes" >&2
  exit 1
fi
echo "fuzz: ${final:+$final; }$(ls "$build/corpus" | wc -l) files in $build/corpus"
echo "fuzz: $runs runs in $secs s, no crash (ASan+UBSan)"
