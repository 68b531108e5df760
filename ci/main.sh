#!/usr/bin/env bash
# The main job: install what is missing, build, then
#   1. measure what monitoring costs on this machine: a quick overhead sweep (np 2, 4 sizes,
#      3 launch pairs per arm, about a minute) with its paired analysis, and its figures;
#   2. the same pairs on an application workload (CG-like, medium class): the columns of RR-9038's Table 1;
#   3. show a monitored run end to end: mpimon record (mpirun with monitoring on, the per-rank dumps
#      checked and merged into one HDF5 file, its summary), and the matrix exported for TreeMatch.
# Everything goes to build/main/. MPIMON_MAIN_PAIRS and MPIMON_MAIN_NP change the sweep.
source "$(dirname "$0")/common.sh"

step "dependencies"
"$repo/ci/install-deps.sh"
step "build ($build)"
configure_and_build "$build"

out=$build/main
rm -rf "$out" && mkdir -p "$out"
mpimon=$build/cli/mpimon

step "overhead: mpimon bench overhead --np ${MPIMON_MAIN_NP:-2} --sizes quick --pairs ${MPIMON_MAIN_PAIRS:-3}"
"$mpimon" bench overhead --np "${MPIMON_MAIN_NP:-2}" --sizes quick --pairs "${MPIMON_MAIN_PAIRS:-3}" \
  --iterations 300 --warmup 30 -o "$out/overhead.h5"
step "figures: mpimon plot $out/overhead.h5 -o $out/figures"
"$mpimon" plot "$out/overhead.h5" -o "$out/figures"

step "application: mpimon bench app --workload cg --class medium --np 2 --pairs ${MPIMON_MAIN_PAIRS:-3} (RR-9038's Table 1 columns)"
"$mpimon" bench app --workload cg --class medium --np 2 --pairs "${MPIMON_MAIN_PAIRS:-3}" -o "$out/apps.h5"

np=${MPIMON_DEMO_NP:-4}
step "monitored run: mpimon record --np $np -o $out/ring.h5 --keep-dumps $out/prof -- mpimon-demo-ring"
# record chooses the MCA settings (monitoring mode 2), checks that every rank wrote its dump,
# merges them and prints the summary of mpimon show.
"$mpimon" record --np "$np" -o "$out/ring.h5" --keep-dumps "$out/prof" -- "$build/validation/mpimon-demo-ring"
step "export: mpimon export treematch $out/ring.h5 (bytes, external + internal)"
"$mpimon" export treematch "$out/ring.h5" -o "$out/ring.treematch"
cat "$out/ring.treematch"
echo
echo "main: done; results, figures and dumps in $out"
