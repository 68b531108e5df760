#!/usr/bin/env bash
# The main job: install what is missing, build, then
#   1. measure what monitoring costs on this machine: a quick overhead sweep (np 2, 4 sizes) in the
#      interleaved design (the counting switched on and off per block inside each launch, so a few
#      ns per call are resolved in about a minute), its paired analysis with how many cells it
#      resolved, and its figures;
#   2. launch pairs on an application workload (CG-like, medium class): the columns of RR-9038's Table 1;
#   3. what placement is for, end to end: a 16-rank halo exchange whose rank order does not fit the
#      machine (the stencil workload, ranks scrambled) recorded with mpimon record (monitoring on,
#      the per-rank dumps checked and merged into one HDF5 file, its summary), the matrix exported
#      for TreeMatch, the ranks placed on a modelled cluster (mpimon place: the modelled saving
#      against packed, the rankfile) and one HTML report of the whole job leading with the run;
#   4. where it can make network namespaces (root, not --installed): the placements measured on an
#      emulated cluster of 2 nodes (mpimon cluster, docs/cluster.md): the halo's packed against chosen
#      mapping, and a forced binary reduce of 8 ranks placed from the PML view against the PMPI view
#      (results/placement/measured), each in launch pairs; elsewhere it says the saving is modelled;
#   5. where SimGrid's SMPI is installed: the halo's two rankfiles simulated (mpimon simulate).
# Everything goes to build/main/ (or $MPIMON_MAIN_OUT). MPIMON_MAIN_OVERHEAD_PAIRS (launches of the
# interleaved sweep, default 10), MPIMON_MAIN_PAIRS (launch pairs of the application, default 3) and
# MPIMON_MAIN_NP change the sweeps.
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
  # As the test command builds (unity_build: a third less compile time), so that after it nothing
  # is compiled again (ci/readme_setup.sh runs this there).
  unity_build=${unity_build:-ON} configure_and_build "$build"
  mpimon=$build/cli/mpimon
  programs=$build/validation
  out=${MPIMON_MAIN_OUT:-$build/main}
fi
rm -rf "$out" && mkdir -p "$out"

pairs=${MPIMON_MAIN_PAIRS:-3}
# 10 launches of 2000 iterations (40 blocks of 50 each): about a minute here, 15 of 20 cells
# resolved at 1000 iterations on this loaded 2-CPU VM.
overhead_pairs=${MPIMON_MAIN_OVERHEAD_PAIRS:-10}
step "overhead: mpimon bench overhead --design interleaved --np ${MPIMON_MAIN_NP:-2} --sizes quick --pairs $overhead_pairs"
# Interleaved: each launch switches the counting per block (ABBA) and pairs the blocks, so launch
# noise cancels; the analysis ends with how many cells it resolved.
"$mpimon" bench overhead --design interleaved --np "${MPIMON_MAIN_NP:-2}" --sizes quick --pairs "$overhead_pairs" \
  --iterations 2000 --warmup 50 -o "$out/overhead.h5"
step "figures: mpimon plot $out/overhead.h5 -o $out/figures"
"$mpimon" plot "$out/overhead.h5" -o "$out/figures"

step "application: mpimon bench app --workload cg --class medium --np 2 --pairs $pairs (RR-9038's Table 1 columns)"
"$mpimon" bench app --workload cg --class medium --np 2 --pairs "$pairs" -o "$out/apps.h5"

# A halo exchange on a 4 x 2 x 2 process grid whose ranks took shuffled places (seed 1): its rank
# order does not follow the machine, as an application's own numbering often does not.
halo=("$programs/mpimon-workload" --workload stencil --scramble 1 --iterations 20)
step "monitored run: mpimon record --np 16 -o $out/halo.h5 --keep-dumps $out/prof -- mpimon-workload --workload stencil --scramble 1"
# record chooses the MCA settings (monitoring mode 2), checks that every rank wrote its dump,
# merges them and prints the summary of mpimon show (with the Open MPI that ran it).
"$mpimon" record --np 16 -o "$out/halo.h5" --keep-dumps "$out/prof" -- "${halo[@]}"
step "export: mpimon export treematch $out/halo.h5 (bytes, external + internal)"
"$mpimon" export treematch "$out/halo.h5" -o "$out/halo.treematch"
head -4 "$out/halo.treematch"
echo "(... $out/halo.treematch)"
step "place: mpimon place $out/halo.h5 --topology 2x2x4 (modelled cluster: 2 nodes x 2 sockets x 4 cores)"
# The table's line under it says the modelled saving: the chosen mapping's cost and traffic
# between nodes and sockets against packed (ranks in order, as mpirun places them by default).
"$mpimon" place "$out/halo.h5" --topology 2x2x4 --json "$out/halo.placement.json" --rankfile "$out/halo.rankfile"
"$mpimon" place "$out/halo.h5" --topology 2x2x4 --method packed --rankfile "$out/packed.rankfile" >/dev/null
head -4 "$out/halo.rankfile"
echo "(... $out/halo.rankfile)"
# The measured savings (docs/cluster.md): an emulated cluster of 2 nodes (node0, node1, the hosts
# of the rankfiles above) with 1 Gbit/s links, timed in launch pairs; the times of a loaded machine
# are noisy, their 95 % intervals say how much.
measured_placement() {
  local name=main$$ dir=$out/measured-placement status=0 launcher hostfile
  local forced=(--mca coll_tuned_use_dynamic_rules=1 --mca coll_tuned_reduce_algorithm=4)
  local reduce=("$programs/mpimon-run-collective" --op reduce --count 1000000 --type-size 4)
  mkdir -p "$dir"
  # The rankfiles name 2 sockets x 4 cores per node: every node has that shape (docs/cluster.md, "Node
  # shape"; this machine's cores are shared by all of them, unbound beyond its own).
  "$mpimon" cluster up --nodes 2 --node-topology 2x4 --name "$name" >/dev/null || return 1
  launcher=$("$mpimon" cluster launcher --name "$name") hostfile=$("$mpimon" cluster hostfile --name "$name")
  echo "== the halo: packed (A) against the chosen mapping (B), 16 ranks on 2 nodes"
  "$mpimon" bench placement --launcher "$launcher" --np 16 --pairs "$pairs" -o "$dir/halo.h5" \
    --rankfile "$out/packed.rankfile" --rankfile "$out/halo.rankfile" --time-regex '"seconds":([0-9.eE+-]+)' \
    -- "${halo[@]}" || status=1
  echo "== a forced binary reduce, 8 ranks on 2 nodes: placed from the PML view (A) against the PMPI view (B)"
  "$mpimon" record --launcher "$launcher" --np 8 -o "$dir/reduce.h5" "${forced[@]}" -- "${reduce[@]}" >/dev/null &&
    "$mpimon" place "$dir/reduce.h5" --topology 2x2x4 --hostfile "$hostfile" --rankfile "$dir/pml.rf" >/dev/null &&
    "$mpimon" place "$dir/reduce.h5" --topology 2x2x4 --hostfile "$hostfile" --classes external,coll \
      --evaluate-classes external,internal --rankfile "$dir/pmpi.rf" >/dev/null &&
    "$mpimon" bench placement --launcher "$launcher" --np 8 --pairs "$pairs" -o "$dir/pml-vs-pmpi.h5" \
      --rankfile "$dir/pml.rf" --rankfile "$dir/pmpi.rf" "${forced[@]}" \
      --time-regex 'seconds per iteration: ([0-9.]+)' -- "${reduce[@]}" --iterations 20 || status=1
  "$mpimon" cluster down --name "$name" >/dev/null || status=1
  return $status
}
if [ $installed = no ] && unshare --net --uts true 2>/dev/null && command -v ip >/dev/null; then
  step "measured placement: the halo and a binary reduce on 2 emulated nodes (mpimon cluster, mpimon bench placement)"
  measured_placement || measured_failed=yes
else
  echo "main: not measured: this job cannot make network namespaces here (root, not --installed);"
  echo "main: the saving above is modelled"
fi
# The same two rankfiles SIMULATED (SimGrid's SMPI, docs/simulate.md) on the modelled cluster at
# 1 Gbit/s, the simulated traffic checked against the recording: where SimGrid's SMPI is installed.
smpi_halo=$(dirname "$programs")/smpi/mpimon-workload-smpi
[ $installed = no ] || smpi_halo=$programs/mpimon-workload-smpi
if command -v smpirun >/dev/null && [ -x "$smpi_halo" ]; then
  step "simulated placement: mpimon simulate --topology 2x2x4 --rate 1gbit --rankfile packed --rankfile chosen (SMPI)"
  "$mpimon" simulate --topology 2x2x4 --rate 1gbit --np 16 --rankfile "$out/packed.rankfile" \
    --rankfile "$out/halo.rankfile" --matrices "$out/halo.h5" --smpi smpi/privatization=no -o "$out/simulated.h5" \
    -- "$smpi_halo" "${halo[@]:1}" || simulated_failed=yes
else
  echo "main: not simulated: no SimGrid SMPI here (ci/install-deps.sh installs libsimgrid-dev)"
fi
step "plot and report: mpimon plot $out/halo.h5; mpimon report ... --topology 2x2x4 -o $out/report.html"
"$mpimon" plot "$out/halo.h5" -o "$out/figures"
"$mpimon" report "$out/halo.h5" "$out/overhead.h5" "$out/apps.h5" --topology 2x2x4 -o "$out/report.html" \
  --title "mpimon main job"
echo "main: open $out/report.html in a browser (self-contained, no network needed)"
echo "main: done; results, figures and dumps in $out"
# A measurement that failed is not a result: the job says so and ends non-zero, after the report.
if [ "${simulated_failed:-no}" = yes ]; then
  echo "main: the simulated placement failed (see above)" >&2
  exit 1
fi
if [ "${measured_failed:-no}" = yes ]; then
  echo "main: the measured placement failed (see above; the modelled saving stands in the report)" >&2
  exit 1
fi
