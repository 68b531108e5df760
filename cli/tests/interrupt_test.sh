#!/usr/bin/env bash
# Stopping mpimon while it works (Ctrl-C, kill) leaves nothing behind, one command of each family:
# bench, record, collect, validate, merge, plot, place, simulate (two simulations at once). A launch's mpirun runs in its own process
# group, which mpimon stops before it dies of the signal it was sent (with a grace period of 10 s
# for mpirun to take its ranks down); the scratch directories and temporary files (in $TMPDIR,
# here a directory of the test's own, and next to the output files) are removed.
# Usage: interrupt_test.sh MPIMON MPIMON_MERGE MPIMON_SYNTH_DUMPS
# ($MPIMON_COLLECT_LIBRARY: libmpimon-collect.so)
set -u
mpimon=$1 merge=$2 synth=$3
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"
# Job control: a background job of a script otherwise starts with SIGINT ignored.
set -m
export TMPDIR=$work/tmp
mkdir -p "$TMPDIR" in

# A sleep long enough to outlive the test unless it is killed; its argument marks it as ours.
marker="$((600 + $$ % 100)).$$"
sleeps() { pgrep -fc "^sleep $marker\$"; }
sleeps_are() { [ "$(sleeps)" -eq "$1" ]; }
exists() { compgen -G "$1" >/dev/null; }

# stop NAME SIGNAL READY KEEP -- COMMAND...: runs COMMAND in the background, with its outputs in
# out_NAME/; once READY (a command) succeeds (bounded wait), sends SIGNAL to mpimon alone and
# checks its exit status, that no sleep of ours runs on, and that $TMPDIR and out_NAME/ are empty
# but for a file named KEEP ("": none).
stop() {
  local name=$1 signal=$2 ready=$3 keep=$4
  shift 5
  mkdir -p "out_$name"
  "$@" >"$name.log" 2>&1 &
  local pid=$! rc
  for _ in $(seq 150); do
    eval "$ready" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  if check && ! eval "$ready"; then
    fail "$name: never got to the point of interruption: $(tail -5 "$name.log")"
    kill -KILL "$pid" 2>/dev/null
    wait "$pid"
  else
    kill -s "$signal" "$pid"
    wait "$pid"
    rc=$?
    expect_eq "$rc" "$((128 + $(kill -l "$signal")))" "$name, SIG$signal: mpimon's exit status"
  fi
  for _ in $(seq 75); do
    sleeps_are 0 && break
    sleep 0.2
  done
  check && sleeps_are 0 || { fail "$name: processes left running"; pkill -KILL -f "^sleep $marker\$"; }
  local left exclude=()
  [ -n "$keep" ] && exclude=(! -path "out_$name/$keep")
  left=$(find "$TMPDIR" "out_$name" -mindepth 1 "${exclude[@]}" | head)
  expect_eq "$left" "" "$name: nothing left in \$TMPDIR or next to the output"
  rm -rf "${TMPDIR:?}"/* "out_$name"
}

# A launcher, a plotting interpreter: they sleep where a real one would work.
printf '#!/bin/sh\n[ "$1" = --version ] && { echo fake 1.0; exit 0; }\nexec sleep %s\n' "$marker" >in/launcher
printf 'exec sleep %s\n' "$marker" >in/plot.sh
chmod +x in/launcher

# bench: both signals, during a launch (the ranks are sleeps). The results file, if begun, stays
# for --resume.
for signal in TERM INT; do
  stop "bench_$signal" "$signal" "sleeps_are 2" r.h5 -- \
    "$mpimon" bench app --np 2 --pairs 1 -o "out_bench_$signal/r.h5" -- sleep "$marker"
done
# record: the private dump directory next to the output goes too.
stop record INT "sleeps_are 2" "" -- "$mpimon" record --np 2 -o out_record/r.h5 -- sleep "$marker"
# collect: the application under libmpimon-collect.so.
stop collect INT "sleeps_are 2" "" -- "$mpimon" collect --np 2 -o out_collect/c.h5 -- sleep "$marker"
# validate: its scratch directory, while a case runs (under the fake launcher).
stop validate INT "sleeps_are 1" "" -- \
  "$mpimon" validate --case p2p --launcher "$work/in/launcher" --json out_validate/v.json
# plot: the table handed to the plotting script, while the script runs.
stop plot INT "sleeps_are 1" "" -- "$mpimon" plot collective --op bcast --algorithm 1 --np 4 --count 8 \
  -o out_plot/fig --python /bin/sh --script "$work/in/plot.sh"
# merge: the output's temporary, while the merge waits for an input that never comes (a FIFO).
check && "$synth" --pattern stencil --ranks 4 -o in/run >/dev/null || fail "mpimon-synth-dumps failed"
rm in/run.3.prof && mkfifo in/run.3.prof
stop merge INT "exists 'out_merge/m.h5.tmp-*'" "" -- "$merge" in/run.0.prof in/run.1.prof in/run.2.prof \
  in/run.3.prof -o out_merge/m.h5
# place: TreeMatch's files, while it maps 4096 ranks (in a child process mpimon stops first).
check && "$merge" -q in/run.0.prof in/run.1.prof in/run.2.prof -o in/small.h5 || fail "mpimon-merge failed"
# Whether TreeMatch can run is decided as place_test.sh does (the library installed or not); where it
# is, place --method treematch failing is a failure, not a reason to skip.
library=$(treematch_library)
if [ -z "$library" ]; then
  skip_part "place: TreeMatch (Open MPI 4.1's mca_topo_treematch.so) not installed"
else
  run "$mpimon" place in/small.h5 --topology 1x1x4 --method treematch
  expect_eq "$rc" 0 "place --method treematch with $library ($err)"
  mkdir in/big
  check && "$synth" --pattern stencil --ranks 4096 --collectives no --histograms no -o in/big/run >/dev/null &&
    "$merge" -q in/big -o in/big.h5 || fail "the 4096-rank file could not be made"
  stop place INT "exists '$TMPDIR/mpimon-place-*'" "" -- \
    "$mpimon" place in/big.h5 --topology 64x4x16 --method treematch --json out_place/p.json
fi
# simulate --jobs 2: both simulations (the fake launcher as smpirun) stopped, their scratch directories
# removed; the platform and hostfiles written beside the results before the first run stay.
for r in $(seq 0 3); do echo "rank $r=node$((r / 2)) slot=0:$((r % 2))"; done >in/packed.rf
for r in $(seq 0 3); do echo "rank $r=node$((r % 2)) slot=0:$((r / 2))"; done >in/cyclic.rf
simulate=("$mpimon" simulate --topology 2x1x2 --rankfile in/packed.rf --rankfile in/cyclic.rf --np 4 --no-traffic)
run "${simulate[@]}" --smpirun /bin/true -o in/probe.h5 -- /bin/true
if [ "$rc" -ne 9 ] && grep -q "cannot read the platform with SimGrid" <<<"$err"; then
  skip_part "simulate: SimGrid's platform reader cannot run here ($err)"
else
  # Anything else than exit 9 (a simulation failed) is simulate's failure, not a reason to skip.
  expect_eq "$rc" 9 "simulate with a launcher that prints no simulated time ($err)"
  stop simulate INT "sleeps_are 2" "s.*" -- "${simulate[@]}" --jobs 2 --smpirun "$work/in/launcher" \
    -o out_simulate/s.h5 -- /bin/true
fi
finish interrupt
