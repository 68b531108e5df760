#!/usr/bin/env bash
# The main job: install what is missing, build, then
#   1. measure what monitoring costs on this machine: a quick overhead sweep (np 2, 4 sizes,
#      3 launch pairs per arm, about a minute) with its paired analysis, and its figures;
#   2. the same pairs on an application workload (CG-like, medium class): the columns of RR-9038's Table 1;
#   3. show a monitored run end to end: mpimon record (mpirun with monitoring on, the per-rank dumps
#      checked and merged into one HDF5 file, its summary), the matrix exported for TreeMatch, the
#      run placed on a modelled cluster (mpimon place), and one HTML report of the whole job;
#   4. where it can make network namespaces (root): a small measured placement on an emulated
#      cluster of 2 nodes (mpimon cluster), PML view against PMPI view in launch pairs.
# Everything goes to build/main/ (or $MPIMON_MAIN_OUT). MPIMON_MAIN_PAIRS and MPIMON_MAIN_NP change the sweep.
# With --installed, the same job with an installed mpimon (e.g. the Debian package, in
# ci/debian-package.sh): nothing installed nor built, the commands taken from PATH, the programs
# from mpimon's own libexec/mpimon, the results in $MPIMON_MAIN_OUT (default ./mpimon-main).
# Usage: bash ci/main.sh [--installed] [--help]
source "$(dirname "$0")/common.sh"

installed=no
for arg in "$@"; do
  case $arg in
    --installed) installed=yes ;;
    -h | --help) sed -n '2,/^source/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "main: unknown argument '$arg' (--installed, --help)" >&2; exit 2 ;;
  esac
done

if [ $installed = yes ]; then
  mpimon=$(command -v mpimon) || { echo "main: --installed: no mpimon on PATH" >&2; exit 1; }
  programs=$(dirname "$(dirname "$(realpath "$mpimon")")")/libexec/mpimon
  out=${MPIMON_MAIN_OUT:-$PWD/mpimon-main}
  echo "main: the installed mpimon: $mpimon, its programs in $programs"
else
  step "dependencies"
  "$repo/ci/install-deps.sh"
  step "build ($build)"
  configure_and_build "$build"
  mpimon=$build/cli/mpimon
  programs=$build/validation
  out=${MPIMON_MAIN_OUT:-$build/main}
fi
rm -rf "$out" && mkdir -p "$out"

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
"$mpimon" record --np "$np" -o "$out/ring.h5" --keep-dumps "$out/prof" -- "$programs/mpimon-demo-ring"
step "export: mpimon export treematch $out/ring.h5 (bytes, external + internal)"
"$mpimon" export treematch "$out/ring.h5" -o "$out/ring.treematch"
cat "$out/ring.treematch"
echo
step "place: mpimon place $out/ring.h5 --topology 2x2x2 (modelled cluster: 2 nodes x 2 sockets x 2 cores)"
"$mpimon" place "$out/ring.h5" --topology 2x2x2 --json "$out/ring.placement.json" --rankfile "$out/ring.rankfile"
cat "$out/ring.rankfile"
echo
# A small MEASURED placement (docs/cluster.md, results/placement/measured): a forced binary reduce,
# 8 ranks on 2 emulated nodes, placed from the PML view against the PMPI view, timed in 3 launch pairs.
measured_placement() {
  local name=main$$ dir=$out/measured-placement
  local forced=(--mca coll_tuned_use_dynamic_rules=1 --mca coll_tuned_reduce_algorithm=4)
  local reduce=("$programs/mpimon-run-collective" --op reduce --count 1000000 --type-size 4)
  mkdir -p "$dir"
  "$mpimon" cluster up --nodes 2 --slots 4 --name "$name" || return 1
  local launcher hostfile status=0
  launcher=$("$mpimon" cluster launcher --name "$name") hostfile=$("$mpimon" cluster hostfile --name "$name")
  lstopo --input "pack:1 core:4 pu:1" --of xml "$dir/node.xml" &&
    "$mpimon" record --launcher "$launcher" --np 8 -o "$dir/reduce.h5" "${forced[@]}" -- "${reduce[@]}" >/dev/null &&
    "$mpimon" place "$dir/reduce.h5" --topology 2x1x4 --hostfile "$hostfile" --rankfile "$dir/pml.rf" >/dev/null &&
    "$mpimon" place "$dir/reduce.h5" --topology 2x1x4 --hostfile "$hostfile" --classes external,coll \
      --evaluate-classes external,internal --rankfile "$dir/pmpi.rf" >/dev/null &&
    "$mpimon" bench placement --launcher "$launcher" --np 8 --pairs "${MPIMON_MAIN_PAIRS:-3}" -o "$dir/pml-vs-pmpi.h5" \
      --rankfile "$dir/pml.rf" --rankfile "$dir/pmpi.rf" "${forced[@]}" --mca "hwloc_base_topo_file=$dir/node.xml" \
      --time-regex 'seconds per iteration: ([0-9.]+)' -- "${reduce[@]}" --iterations 20 || status=1
  "$mpimon" cluster down --name "$name" >/dev/null || status=1
  return $status
}
if [ $installed = no ] && unshare --net --uts true 2>/dev/null && command -v ip >/dev/null; then
  step "measured placement: binary reduce, 8 ranks on 2 emulated nodes (mpimon cluster), PML view (A) against PMPI view (B)"
  echo "(a loaded machine makes these times noisy; the modelled costs are above)"
  measured_placement || echo "main: the measured placement failed (see above); the modelled one stands"
else
  echo "main: no measured placement: this job cannot make network namespaces here (root, not --installed); the placement above is modelled only"
fi

step "plot and report: mpimon plot $out/ring.h5; mpimon report ... -o $out/report.html"
"$mpimon" plot "$out/ring.h5" -o "$out/figures"
"$mpimon" report "$out/ring.h5" "$out/overhead.h5" "$out/apps.h5" "$out/ring.placement.json" -o "$out/report.html" --title "mpimon main job"
echo "main: open $out/report.html in a browser (self-contained, no network needed)"
echo "main: done; results, figures and dumps in $out"
