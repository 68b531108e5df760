#!/usr/bin/env bash
# Fuzzing of the readers of outside data (analysis/fuzz: .prof files, HDF5 matrices, ledgers,
# paired-timings CSV, callgrind dumps, the gate's baseline JSON), built with AddressSanitizer and
# UndefinedBehaviorSanitizer (Debian's clang 14, libFuzzer from libclang-rt-14-dev). Two uses
# (docs/fuzzing.md):
#
#   ci/fuzz.sh [--runs N]          the check (ci/test.sh's fuzz stage): it decides, it does not
#                                  search, so the same commit gets the same verdict. Per target:
#                                  1. every committed input (analysis/fuzz/corpus/TARGET and
#                                     regressions/TARGET) runs once, and must run clean;
#                                  2. a bounded run: N inputs (default $MPIMON_FUZZ_RUNS, else 1000)
#                                     mutated from the committed corpus with a fixed seed, from
#                                     nothing kept by an earlier run (no corpus directory: what it
#                                     finds lives in memory only), run where its addresses repeat
#                                     (see run_fixed below). No wall clock decides how much runs;
#                                     the per-input timeout only catches hangs.
#   ci/fuzz.sh --explore SECONDS   the search: fresh inputs for SECONDS in all, split between the
#                                  targets, a random seed, the working corpus build-fuzz/corpus/TARGET/
#                                  kept so that runs add up (delete it to start over). What it finds
#                                  is triaged by hand into analysis/fuzz/regressions/TARGET/ with
#                                  the fix, which the check then replays.
#
#   MPIMON_FUZZ_TARGETS="ledger callgrind" ci/fuzz.sh ...   only these targets
#
#   build-fuzz/                   separate build tree (clang, -fsanitize=address,undefined)
#   build-fuzz/crashes/TARGET/    reproducers of any crash, leak, UB report, out-of-memory or hang
#   build-fuzz/upstream/TARGET/   inputs on which libhdf5 itself fails (ci/fuzz_triage.sh), with
#                                 their reports: a defect of Debian 12's libhdf5, set aside, not a
#                                 failure (docs/fuzzing.md)
#   build-fuzz/fuzz-TARGET.log    libFuzzer's output of the last run
#
# A fault found by mutation (a crash, an out-of-memory, a hang) is triaged (ci/fuzz_triage.sh):
# libhdf5's own is set aside and the search goes on (the check: with the next seed, for the runs
# left); ours fails the target. Every target runs even if an earlier one failed; the exit code is
# non-zero if any target failed. Reproduce with
#   build-fuzz/analysis/fuzz/mpimon_TARGET_fuzzer build-fuzz/crashes/TARGET/crash-<sha1>
set -euo pipefail
source "$(dirname "$0")/fuzz_triage.sh"
# Globs sorted the same way on every machine: the order in which the seeds are given is part of
# what a seed reproduces.
export LC_ALL=C

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
}

mode=check runs=${MPIMON_FUZZ_RUNS:-1000} seconds=0
while (($#)); do
  case $1 in
    --runs) runs=${2:-}; shift 2 || { echo "fuzz: --runs needs a number" >&2; exit 2; } ;;
    --explore) mode=explore seconds=${2:-}; shift 2 || { echo "fuzz: --explore needs a number of seconds" >&2; exit 2; } ;;
    -h | --help) usage; exit 0 ;;
    *) echo "fuzz: unknown argument '$1' (ci/fuzz.sh --help)" >&2; exit 2 ;;
  esac
done
[[ $runs =~ ^[0-9]+$ && $runs -gt 0 ]] || { echo "fuzz: --runs (MPIMON_FUZZ_RUNS) must be a positive number, not '$runs'" >&2; exit 2; }
if [[ $mode == explore ]]; then
  [[ $seconds =~ ^[0-9]+$ && $seconds -gt 0 ]] || { echo "fuzz: --explore needs a positive number of seconds, not '$seconds'" >&2; exit 2; }
fi

# The targets' temporary files in a directory of this run's own, removed whatever happens (a
# fuzzer that crashes or is stopped leaves its files behind); its name is as long on every machine
# (run_fixed).
TMPDIR=$(mktemp -d /tmp/mpimon-fuzz.XXXXXXXX)
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT

root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-fuzz
fuzz_src=$root/analysis/fuzz
all_targets=(prof matrices ledger paired_csv callgrind gate_baseline)
read -r -a targets <<<"${MPIMON_FUZZ_TARGETS:-${all_targets[*]}}"
for t in "${targets[@]}"; do
  [[ " ${all_targets[*]} " == *" $t "* ]] || { echo "fuzz: unknown target '$t' (known: ${all_targets[*]})" >&2; exit 2; }
done

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
  || { tail -n 60 "$build/build.log" >&2; echo "fuzz: build failed with clang: the compiler's lines above (a missing libFuzzer runtime shows as an undefined LLVMFuzzerRunDriver or -fsanitize=fuzzer: run ci/install-deps.sh)" >&2; exit 1; }
echo "fuzz: built ${build_targets[*]} (log: $build/build.log)"

# Stack traces for UBSan too; ASan's defaults already stop at the first error and detect leaks.
# An impossible allocation returns NULL, as malloc does outside ASan: libhdf5 asks for sizes read
# from corrupted metadata (terabytes) and handles the failure (regressions/matrices/libhdf5-huge-allocation.h5).
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1:allocator_may_return_null=1}
# libhdf5's own leaks on corrupted files are not ours (the suppression names the HDF5 function
# under which they are allocated; the slow unwinder walks libhdf5's frames to reach it).
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$fuzz_src/lsan-libhdf5.supp:fast_unwind_on_malloc=0}

# The limits every input is held to: a hang is an input still running after 60 s (inputs take
# milliseconds: a catch for endless loops, with room for a loaded machine, not a clock deciding
# how much runs); more than 2 GiB in one allocation or in all is an out-of-memory.
limits=(-timeout=60 -rss_limit_mb=2048 -malloc_limit_mb=2048)

failed=()
upstream_faults=0
shopt -s nullglob

# set_aside TARGET LOG ARTIFACT: triage a fault libFuzzer reported; 0 when it is libhdf5's own (the
# input and its report moved to build-fuzz/upstream/TARGET/), 1 when it is ours.
set_aside() {
  local t=$1 log=$2 artifact=$3 verdict upstream=$build/upstream/$1
  verdict=$(triage "$log" "$artifact")
  if [[ $verdict != upstream:* ]]; then
    echo "fuzz: $t: ${verdict#ours: }: ours" >&2
    return 1
  fi
  mkdir -p "$upstream"
  mv "$artifact" "$upstream/"
  cp "$log" "$upstream/$(basename "$artifact").log"
  upstream_faults=$((upstream_faults + 1))
  echo "fuzz: $t: a fault of libhdf5, not ours (${verdict#upstream: }; docs/fuzzing.md): set aside in $upstream/$(basename "$artifact")"
}

# fuzz_until_done TARGET LOG CRASHES ARGS...: runs the fuzzer with ARGS (plus -seed=, set by the
# caller through $seed) until it ends without a fault, or with one of ours (returns 1). A fault of
# libhdf5's is set aside and the fuzzer runs again: in the check with the next seed and the runs
# left, in the search for the time left. Sets $done_runs and $stats (libFuzzer's last DONE line).
fuzz_until_done() {
  local t=$1 log=$2 crashes=$3 status left_runs left_seconds runs_now artifact
  shift 3
  done_runs=0 stats=""
  while :; do
    local budget=()
    if [[ $mode == check ]]; then
      left_runs=$((runs - done_runs))
      ((left_runs > 0)) || return 0
      budget=(-runs="$left_runs" -seed="$seed")
    else
      left_seconds=$((deadline - SECONDS))
      ((left_seconds > 0)) || return 0
      budget=(-max_total_time="$left_seconds")
    fi
    status=0
    if [[ $mode == check ]]; then
      run_fixed "$@" "${budget[@]}" "${limits[@]}" -reload=0 -artifact_prefix=a/ -print_final_stats=1 \
        >"$log" 2>&1 || status=$?
    else
      "$fuzzer" "$@" "${budget[@]}" "${limits[@]}" -reload=0 -artifact_prefix="$crashes/" -print_final_stats=1 \
        >"$log" 2>&1 || status=$?
    fi
    runs_now=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
    done_runs=$((done_runs + ${runs_now:-0}))
    # Coverage, features and corpus: what the same seed reproduces (exec/s and rss vary).
    stats=$(sed -n 's/^#[0-9]*[[:space:]]*DONE[[:space:]]*\(cov: [0-9]* ft: [0-9]* corp: [^ ]*\).*/\1/p' "$log" | tail -n1)
    ((status == 0)) && return 0
    artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n1)
    if [[ $mode == check && -n $artifact ]]; then  # written in the fixed directory: kept with the others
      mv "$stage/$artifact" "$crashes/" && artifact=$crashes/$(basename "$artifact")
    fi
    if [[ ! -f $artifact ]]; then
      tail -n 40 "$log" >&2
      echo "fuzz: $t: libFuzzer exit $status without a reproducer" >&2
      return 1
    fi
    set_aside "$t" "$log" "$artifact" || {
      tail -n 40 "$log" >&2
      echo "fuzz: $t: FAULT after ${runs_now:-?} runs (libFuzzer exit $status); reproducer $artifact" >&2
      return 1
    }
    # A fault libhdf5 alone has on an input counts as a run of it, so that the runs left go down.
    ((runs_now > 0)) || done_runs=$((done_runs + 1))
    seed=$((seed + 1))
  done
}

# run_fixed ARGS...: the check's fuzzer ($fuzzer) with ARGS, where its addresses are the same on
# every run and machine. libFuzzer feeds the operands of the code's comparisons back into its
# mutations, and some are addresses (std::string compares its buffer's with one on the stack): with
# randomised addresses, 1 run in 6 of the same seed found other inputs; without (setarch -R), a
# longer environment moved the stack and the prof target found others. So: no randomisation, an
# empty environment but the sanitizers' options, and every path in the arguments and the
# environment relative to, or inside, $stage, whose name has the same length everywhere
# ($TMPDIR/fixed): the fuzzer is ./f, the dictionary d, the seeds' list s, artifacts in a/, the
# target's temporary files in t/.
stage=$TMPDIR/fixed
run_fixed() {
  (cd "$stage" && env -i PATH=/usr/bin:/bin LC_ALL=C TMPDIR="$stage/t" ASAN_OPTIONS="$ASAN_OPTIONS" \
    UBSAN_OPTIONS="$UBSAN_OPTIONS" LSAN_OPTIONS=suppressions="$stage/l:fast_unwind_on_malloc=0" setarch -R ./f "$@")
}
if [[ $mode == check ]]; then
  mkdir -p "$stage/a" "$stage/t"
  cp "$fuzz_src/lsan-libhdf5.supp" "$stage/l"
  setarch -R true 2>/dev/null ||
    { echo "fuzz: setarch -R fails here: without it the check's runs would not repeat" >&2; exit 1; }
  echo "fuzz: the check: committed inputs replayed, then $runs runs per target from seed 1 (ci/fuzz.sh --help)"
else
  per_target=$((seconds / ${#targets[@]}))
  ((per_target > 0)) || per_target=1
  echo "fuzz: the search: ${per_target} s per target, random seeds, working corpora in $build/corpus/"
fi

for t in "${targets[@]}"; do
  fuzzer=$build/analysis/fuzz/mpimon_${t}_fuzzer
  crashes=$build/crashes/$t
  log=$build/fuzz-$t.log
  mkdir -p "$crashes"
  dict=()
  [[ -f $fuzz_src/$t.dict ]] && dict=(-dict="$fuzz_src/$t.dict")

  # Every committed input first, once each: each must run clean.
  committed=("$fuzz_src/corpus/$t"/* "$fuzz_src/regressions/$t"/*)
  if ! "$fuzzer" "${limits[@]}" "${committed[@]}" >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    echo "fuzz: $t: an input of analysis/fuzz/corpus/$t or regressions/$t fails again" >&2
    failed+=("$t")
    continue
  fi

  # One process (no -jobs/-workers): the machine has 2 cores and is shared.
  if [[ $mode == check ]]; then
    # The seeds in a fixed order (libFuzzer sorts them by size only), as a list: no corpus
    # directory is read or written, so nothing carries over from one run to the next.
    seed_files=("$fuzz_src/corpus/$t"/*)
    (IFS=, && printf '%s' "${seed_files[*]}") >"$stage/s"
    ln -sfn "$fuzzer" "$stage/f"
    dict=()
    [[ -f $fuzz_src/$t.dict ]] && ln -sfn "$fuzz_src/$t.dict" "$stage/d" && dict=(-dict=d)
    seed=1
    fuzz_until_done "$t" "$log" "$crashes" "${dict[@]}" -seed_inputs=@s || { failed+=("$t"); continue; }
    seeds_used="seed 1"
    ((seed == 1)) || seeds_used="seeds 1 to $seed"
    echo "fuzz: $t: ${#committed[@]} committed inputs clean; $done_runs runs from $seeds_used: ${stats:-?}; no fault of ours (ASan+UBSan)"
  else
    corpus=$build/corpus/$t
    mkdir -p "$corpus"
    cp -n "$fuzz_src/corpus/$t"/* "$corpus/"
    deadline=$((SECONDS + per_target))
    fuzz_until_done "$t" "$log" "$crashes" "$corpus" "${dict[@]}" || { failed+=("$t"); continue; }
    echo "fuzz: $t: $done_runs runs in ${per_target} s: ${stats:-?}; no fault of ours; $(ls "$corpus" | wc -l) files in $corpus"
  fi
  # Faults inside libhdf5 are set aside, not counted: a target that ran nothing else judged nothing.
  if ((done_runs == 0)); then
    echo "fuzz: $t: no input ran to completion (faults inside libhdf5 only): nothing checked" >&2
    failed+=("$t")
  fi
done

if ((${#failed[@]})); then
  echo "fuzz: FAILED: ${failed[*]} (logs: $build/fuzz-TARGET.log)" >&2
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, no fault of ours (ASan+UBSan)" \
  "$( ((upstream_faults == 0)) || echo "; $upstream_faults inside libhdf5 set aside in $build/upstream/")"
