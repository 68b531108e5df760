#!/usr/bin/env bash
# Builds the libFuzzer targets of the readers of outside data (analysis/fuzz: .prof files, HDF5
# matrices, ledgers, paired-timings CSV, callgrind dumps, the gate's baseline JSON) with
# AddressSanitizer and UndefinedBehaviorSanitizer (Debian's clang 14, libFuzzer from
# libclang-rt-14-dev) and fuzzes them one after the other, DURATION seconds in all, split evenly
# (at least 1 s each).
#
# Usage: ci/fuzz.sh [DURATION]      (seconds, default 60)
#        MPIMON_FUZZ_TARGETS="ledger callgrind" ci/fuzz.sh 20   (only these targets)
#
#   build-fuzz/                   separate build tree (clang, -fsanitize=address,undefined)
#   build-fuzz/corpus/TARGET/     working corpus: the seeds of analysis/fuzz/corpus/TARGET plus
#                                 what libFuzzer finds; kept between runs so they add up (delete
#                                 it to start over). The seeds in the repository are never written to.
#   build-fuzz/crashes/TARGET/    reproducers of any crash, leak, UB report or timeout
#   build-fuzz/upstream/TARGET/   inputs on which libhdf5 itself crashes or hangs (ci/fuzz_triage.sh),
#                                 with their reports: a defect of Debian 12's libhdf5, not a failure
#                                 (docs/fuzzing.md)
#   build-fuzz/fuzz-TARGET.log    libFuzzer's output of the last run
#
# Every target runs even if an earlier one crashed; exits non-zero if any regression input
# (analysis/fuzz/regressions/TARGET) or any target crashes. Reproduce a crash with
#   build-fuzz/analysis/fuzz/mpimon_TARGET_fuzzer build-fuzz/crashes/TARGET/crash-<sha1>
# and keep the reproducer in analysis/fuzz/regressions/TARGET/ once the reader is fixed: CTest's
# unit.fuzz_regressions.TARGET replays it on every run.
set -euo pipefail
source "$(dirname "$0")/fuzz_triage.sh"

# The targets' temporary files in a directory of this run's own, removed whatever happens (a
# fuzzer that crashes or is stopped leaves its files behind).
TMPDIR=$(mktemp -d)
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT

duration=${1:-60}
[[ $duration =~ ^[0-9]+$ && $duration -gt 0 ]] || { echo "usage: $0 [SECONDS]" >&2; exit 2; }

root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-fuzz
fuzz_src=$root/analysis/fuzz
all_targets=(prof matrices ledger paired_csv callgrind gate_baseline)
read -r -a targets <<<"${MPIMON_FUZZ_TARGETS:-${all_targets[*]}}"
for t in "${targets[@]}"; do
  [[ " ${all_targets[*]} " == *" $t "* ]] || { echo "fuzz: unknown target '$t' (known: ${all_targets[*]})" >&2; exit 2; }
done
per_target=$((duration / ${#targets[@]}))
((per_target > 0)) || per_target=1

# Only the analysis library and the fuzzers are built; the MPI parts and tests are not needed.
# As many jobs as ci/common.sh uses (MPIMON_JOBS, default: every core).
mkdir -p "$build"
# Unity build (each target's sources compiled in batches), as the test command's other builds.
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD=ON \
  -DMPIMON_ENABLE_FUZZING=ON -DMPIMON_SANITIZER=address,undefined \
  -DMPIMON_ENABLE_TESTING=OFF -DMPIMON_ENABLE_MPI=OFF >"$build/configure.log" 2>&1 \
  || { cat "$build/configure.log" >&2; echo "fuzz: configure failed (clang missing? run ci/install-deps.sh)" >&2; exit 1; }
build_targets=()
for t in "${targets[@]}"; do build_targets+=("mpimon_${t}_fuzzer"); done
# The build's lines go to its log (shown on failure): CI keeps the end of a stage's output, the verdicts.
cmake --build "$build" --target "${build_targets[@]}" -j "${MPIMON_JOBS:-$(nproc)}" >"$build/build.log" 2>&1 \
  || { tail -n 60 "$build/build.log" >&2; echo "fuzz: build failed (libFuzzer runtime missing? run ci/install-deps.sh)" >&2; exit 1; }
echo "fuzz: built ${build_targets[*]} (log: $build/build.log)"

# Stack traces for UBSan too; ASan's defaults already stop at the first error and detect leaks.
# An impossible allocation returns NULL, as malloc does outside ASan: libhdf5 asks for sizes read
# from corrupted metadata (terabytes) and handles the failure (regressions/matrices/libhdf5-huge-allocation.h5).
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1:allocator_may_return_null=1}
# libhdf5's own leaks on corrupted files are not ours (the suppression names the HDF5 function
# under which they are allocated; the slow unwinder walks libhdf5's frames to reach it).
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$fuzz_src/lsan-libhdf5.supp:fast_unwind_on_malloc=0}

failed=()
total_runs=0 upstream_crashes=0
shopt -s nullglob
for t in "${targets[@]}"; do
  fuzzer=$build/analysis/fuzz/mpimon_${t}_fuzzer
  corpus=$build/corpus/$t
  crashes=$build/crashes/$t
  upstream=$build/upstream/$t
  log=$build/fuzz-$t.log
  mkdir -p "$corpus" "$crashes"
  cp -n "$fuzz_src/corpus/$t"/* "$corpus/"

  # Known crashers first: each must now run clean.
  regressions=("$fuzz_src/regressions/$t"/*)
  if ((${#regressions[@]})) && ! "$fuzzer" -timeout=10 -rss_limit_mb=2048 "${regressions[@]}" >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    echo "fuzz: $t: an input of analysis/fuzz/regressions/$t crashes again" >&2
    failed+=("$t")
    continue
  fi

  dict=()
  [[ -f $fuzz_src/$t.dict ]] && dict=(-dict="$fuzz_src/$t.dict")
  # One process (no -jobs/-workers): the machine has 2 cores and is shared. A fault of libhdf5's
  # own (triage) is set aside in $upstream/ and the fuzzing goes on for the time left; any other
  # crash stops the target and fails the run.
  deadline=$((SECONDS + per_target))
  target_runs=0 status=0
  while :; do
    left=$((deadline - SECONDS))
    ((left > 0)) || left=1
    status=0
    "$fuzzer" "$corpus" "${dict[@]}" -max_total_time="$left" -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$crashes/" -print_final_stats=1 >"$log" 2>&1 || status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
    target_runs=$((target_runs + ${runs:-0}))
    finished=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n1)
    ((status == 0)) && [[ -n $finished ]] && break
    artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n1)
    [[ -f $artifact ]] || break
    # Set aside only when the fault is libhdf5's own on these bytes (ci/fuzz_triage.sh): inside
    # libhdf5, in memory mpimon did not allocate, and where libhdf5 alone fails on them too.
    verdict=$(triage "$log" "$artifact")
    if [[ $verdict != upstream:* ]]; then
      echo "fuzz: $t: ${verdict#ours: }: ours" >&2
      break
    fi
    mkdir -p "$upstream"
    mv "$artifact" "$upstream/"
    cp "$log" "$upstream/$(basename "$artifact").log"
    upstream_crashes=$((upstream_crashes + 1))
    echo "fuzz: $t: a fault of libhdf5 after ${runs:-?} runs, not ours (${verdict#upstream: }; docs/fuzzing.md): set aside in $upstream/$(basename "$artifact")"
    ((SECONDS < deadline)) || { status=0; break; }
  done
  if ((status != 0)); then
    tail -n 40 "$log" >&2
    echo "fuzz: $t: CRASH after ${runs:-?} runs (libFuzzer exit $status); reproducers in $crashes/:" >&2
    ls -t "$crashes" >&2
    failed+=("$t")
    continue
  fi
  # Crashes inside libhdf5 are set aside, not counted: a target that ran nothing else judged nothing.
  if ((target_runs == 0)); then
    echo "fuzz: $t: no input ran to completion in ${per_target} s (crashes inside libhdf5 only): nothing checked" >&2
    failed+=("$t")
    continue
  fi
  total_runs=$((total_runs + target_runs))
  echo "fuzz: $t: $target_runs runs in ${per_target} s, no crash of ours (ASan+UBSan); $(ls "$corpus" | wc -l) files in $corpus"
done

if ((${#failed[@]})); then
  echo "fuzz: FAILED: ${failed[*]} (logs: $build/fuzz-TARGET.log)" >&2
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, $total_runs runs, ${per_target}s each, no crash of ours (ASan+UBSan)" \
  "$( ((upstream_crashes == 0)) || echo "; $upstream_crashes inside libhdf5 set aside in $build/upstream/")"
