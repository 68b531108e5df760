#!/usr/bin/env bash
# The main job: install what is missing, build, and run a monitored MPI program end to end:
# mpirun with Open MPI's monitoring on, the per-rank dumps merged into one HDF5 file, its
# summary printed, and the matrix exported for TreeMatch. Output goes to build/demo/.
source "$(dirname "$0")/common.sh"

step "dependencies"
"$repo/ci/install-deps.sh"
step "build ($build)"
configure_and_build "$build"

demo=$build/demo
rm -rf "$demo" && mkdir -p "$demo/prof"
np=${MPIMON_DEMO_NP:-4}
step "run: mpirun -np $np with pml_monitoring_enable 2, dumps to $demo/prof/ring.RANK.prof"
mpirun -np "$np" --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 \
  --mca pml_monitoring_filename "$demo/prof/ring" "$build/validation/mpimon-demo-ring"
# Open MPI writes no dump, silently, when monitoring was not really on: check.
for ((r = 0; r < np; r++)); do
  [ -s "$demo/prof/ring.$r.prof" ] || { echo "no dump for rank $r: monitoring did not run" >&2; exit 1; }
done

step "merge: mpimon-merge -o $demo/ring.h5 $demo/prof/ring.*.prof"
"$build/cli/mpimon-merge" -o "$demo/ring.h5" "$demo"/prof/ring.*.prof
step "show: mpimon show $demo/ring.h5"
"$build/cli/mpimon" show "$demo/ring.h5" --top 5
step "export: mpimon export treematch $demo/ring.h5 (bytes, external + internal)"
"$build/cli/mpimon" export treematch "$demo/ring.h5" -o "$demo/ring.treematch"
cat "$demo/ring.treematch"
echo
echo "main: done; files in $demo"
