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
#      emulated cluster of 2 nodes with 100 Mbit/s links (mpimon cluster, docs/cluster.md), where the
#      network is what the runs wait for: the halo's packed against chosen mapping, and a forced
#      binary reduce of 16 ranks placed from the PML view against the PMPI view (RR-9038's Fig. 4a,
#      results/placement/measured), each in launch pairs, the time model's predicted ratio beside
#      the measured one, and whether it resolved in the model's direction (if not, why); elsewhere
#      it says the saving is modelled;
#   5. where SimGrid's SMPI is installed: the halo's two rankfiles simulated (mpimon simulate).
# Everything goes to build/main/ (or $MPIMON_MAIN_OUT). MPIMON_MAIN_OVERHEAD_PAIRS (launches of the
# interleaved sweep, default 10), MPIMON_MAIN_PAIRS (launch pairs of the application, default 3) and
# MPIMON_MAIN_NP change the sweeps; MPIMON_MAIN_PLACEMENT_PAIRS (default 5) the measured placement's
# launch pairs, MPIMON_MAIN_RATE (default 100mbit) the links between the nodes.
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
  # As the test command builds (ci_build: unity build, warnings as errors), so that the README's
  # second command, bash ci/test.sh, compiles nothing again (nor this job after it:
  # ci/readme_setup.sh runs it there).
  ci_build
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
# order does not follow the machine, as an application's own numbering often does not. 32
# variables a point (the small class has 4): faces of 32 to 64 kB, so that across nodes at the
# link rate below the exchange, not the 16 ranks' turns on this machine's cores, is what the run
# waits for (at 4 variables and 1 Gbit/s the measured placement did not resolve: the network
# carried a few ms of the loop's 0.3 s).
halo=("$programs/mpimon-workload" --workload stencil --scramble 1 --iterations 20 --vars 32)
# The links between the nodes, of the modelled cluster (place's predicted times), the emulated one
# (the measured placement) and the simulated one: slow enough that the network is the bottleneck.
rate=${MPIMON_MAIN_RATE:-100mbit}
step "monitored run: mpimon record --np 16 -o $out/halo.h5 --keep-dumps $out/prof -- mpimon-workload --workload stencil --scramble 1 --vars 32"
# record chooses the MCA settings (monitoring mode 2), checks that every rank wrote its dump,
# merges them and prints the summary of mpimon show (with the Open MPI that ran it).
"$mpimon" record --np 16 -o "$out/halo.h5" --keep-dumps "$out/prof" -- "${halo[@]}"
step "export: mpimon export treematch $out/halo.h5 (bytes, external + internal)"
"$mpimon" export treematch "$out/halo.h5" -o "$out/halo.treematch"
head -4 "$out/halo.treematch"
echo "(... $out/halo.treematch)"
step "place: mpimon place $out/halo.h5 --topology 2x2x4 --link $rate (modelled cluster: 2 nodes x 2 sockets x 4 cores)"
# The table's line under it says the modelled saving: the chosen mapping's cost and traffic
# between nodes and sockets against packed (ranks in order, as mpirun places them by default),
# and its communication time predicted with links of $rate between the nodes.
"$mpimon" place "$out/halo.h5" --topology 2x2x4 --link "$rate" --json "$out/halo.placement.json" \
  --rankfile "$out/halo.rankfile"
"$mpimon" place "$out/halo.h5" --topology 2x2x4 --link "$rate" --method packed --json "$out/packed.placement.json" \
  --rankfile "$out/packed.rankfile" >/dev/null
head -4 "$out/halo.rankfile"
echo "(... $out/halo.rankfile)"
# The measured savings (docs/cluster.md): an emulated cluster of 2 nodes (node0, node1, the hosts
# of the rankfiles above) with links of $rate, timed in launch pairs; each comparison's lines put
# what the model predicted beside what the clock measured (side_by_side).
placement_pairs=${MPIMON_MAIN_PLACEMENT_PAIRS:-5}
measured_placement() {
  local name=main$$ dir=$out/measured-placement status=0 launcher hostfile
  local forced=(--mca coll_tuned_use_dynamic_rules=1 --mca coll_tuned_reduce_algorithm=4)
  # 16 ranks, 8 a node as in RR-9038's Fig. 4a (32 on 4 nodes): with 8 ranks both views placed them
  # all on one node, and no byte of the reduce crossed the network. 10^5 integers: 400 kB a tree edge.
  local reduce=("$programs/mpimon-run-collective" --op reduce --count 100000 --type-size 4)
  mkdir -p "$dir" && rm -f "$dir/side-by-side.txt"
  # The rankfiles name 2 sockets x 4 cores per node: every node has that shape (docs/cluster.md, "Node
  # shape"; this machine's cores are shared by all of them, unbound beyond its own).
  "$mpimon" cluster up --nodes 2 --node-topology 2x4 --rate "$rate" --name "$name" >/dev/null || return 1
  # Interrupted, the job takes its cluster down too (namespaces, /etc/netns, the nodes' processes).
  trap '"$mpimon" cluster down --name '"$name"' >/dev/null 2>&1' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  launcher=$("$mpimon" cluster launcher --name "$name") hostfile=$("$mpimon" cluster hostfile --name "$name")
  echo "== the halo: packed (A) against the chosen mapping (B), 16 ranks on 2 nodes, links $rate"
  if "$mpimon" bench placement --launcher "$launcher" --np 16 --pairs "$placement_pairs" -o "$dir/halo.h5" \
    --rankfile "$out/packed.rankfile" --rankfile "$out/halo.rankfile" --time-regex '"seconds":([0-9.eE+-]+)' \
    -- "${halo[@]}"; then
    side_by_side "the halo" packed "the chosen mapping" "$dir/halo.h5" "$out/packed.placement.json" \
      "$out/halo.placement.json" | tee -a "$dir/side-by-side.txt" || status=1
  else
    status=1
  fi
  echo "== a forced binary reduce, 16 ranks on 2 nodes, links $rate: placed from the PML view (A) against the PMPI view (B)"
  # The pattern recorded once on the cluster (one reduce, monitoring on); the PMPI view sees every
  # rank send to the root (external,coll), the PML view the tree; both costed on the tree.
  if "$mpimon" record --launcher "$launcher" --np 16 -o "$dir/reduce.h5" "${forced[@]}" -- "${reduce[@]}" >/dev/null &&
    "$mpimon" place "$dir/reduce.h5" --topology 2x2x4 --hostfile "$hostfile" --rankfile "$dir/pml.rf" \
      --json "$dir/pml.json" >/dev/null &&
    "$mpimon" place "$dir/reduce.h5" --topology 2x2x4 --hostfile "$hostfile" --classes external,coll \
      --evaluate-classes external,internal --rankfile "$dir/pmpi.rf" --json "$dir/pmpi.json" >/dev/null &&
    "$mpimon" bench placement --launcher "$launcher" --np 16 --pairs "$placement_pairs" -o "$dir/pml-vs-pmpi.h5" \
      --rankfile "$dir/pml.rf" --rankfile "$dir/pmpi.rf" "${forced[@]}" \
      --time-regex 'seconds per iteration: ([0-9.]+)' -- "${reduce[@]}" --iterations 10; then
    side_by_side "the binary reduce" "the PML view's mapping" "the PMPI view's mapping" "$dir/pml-vs-pmpi.h5" \
      "$dir/pml.json" "$dir/pmpi.json" | tee -a "$dir/side-by-side.txt" || status=1
  else
    status=1
  fi
  "$mpimon" cluster down --name "$name" >/dev/null || status=1
  trap - EXIT INT TERM
  return $status
}
# side_by_side WHAT A_NAME B_NAME RESULTS A.json B.json: the time model's prediction for B against A
# (mpimon place --json, the chosen rows: modelled, the communication alone) beside the launch pairs'
# measurement (mpimon bench placement), and whether it resolved in the model's direction; if not, why.
side_by_side() {
  "$mpimon" show "$4" --csv "${4%.h5}.csv" >/dev/null || return 1
  /usr/bin/python3 - "$1" "$2" "$3" "${4%.h5}.csv" "$5" "$6" "$rate" "$(cut -d' ' -f1 /proc/loadavg)" "$(nproc)" <<'EOF'
import csv, json, sys
what, a_name, b_name, table, a_json, b_json, rate, load, cpus = sys.argv[1:]
def chosen(path):
    report = json.load(open(path))
    return next(m for m in report["methods"] if m["method"] == report["chosen"])
a, b = chosen(a_json), chosen(b_json)
row = next(csv.DictReader(open(table)))
pa, pb = a["predicted_seconds"], b["predicted_seconds"]
ma, mb, diff = float(row["A_mean_s"]), float(row["B_mean_s"]), float(row["difference_s"])
low, high = 1 + float(row["relative_ci_low"]), 1 + float(row["relative_ci_high"])
half = (float(row["difference_ci_high_s"]) - float(row["difference_ci_low_s"])) / 2
faster = lambda d: f"{b_name} faster" if d < 0 else f"{a_name} faster" if d > 0 else "neither faster"
print(f"{what}: {b_name} (B) against {a_name} (A), links {rate}")
print(f"  predicted (modelled): B/A {pb / pa:.2f}, communication {pb:.3g} s against {pa:.3g} s "
      f"(modelled cost B/A {b['cost'] / a['cost']:.2f}): {faster(pb - pa)}")
print(f"  measured:             B/A {mb / ma:.2f} [95 % CI {low:.2f}, {high:.2f}], {mb:.3g} s against {ma:.3g} s "
      f"({row['pairs']} launch pairs, p {float(row['p']):.2g}, load average {load} on {cpus} CPUs)")
if row["significant"] == "1" and (diff < 0) == (pb < pa) and pb != pa:
    print(f"  resolved: {faster(diff)}, as the model predicts")
elif row["significant"] == "1":
    print(f"  resolved AGAINST the model: {faster(diff)}; the clock does not follow the time model here "
          "(results/placement/measured/README.md: where the model is wrong)")
elif abs(pb - pa) < half:
    print(f"  not resolved: the predicted difference ({pb - pa:+.3g} s) is within the launch-to-launch spread "
          f"(+-{half:.3g} s at load average {load} on {cpus} CPUs): the runs waited for the CPUs more than for the network")
else:
    print(f"  not resolved: the 95 % CI of B - A spans 0 ({diff:+.3g} s +-{half:.3g} s, predicted {pb - pa:+.3g} s) "
          f"with {row['pairs']} pairs at load average {load} on {cpus} CPUs: more pairs (MPIMON_MAIN_PLACEMENT_PAIRS) would decide")
EOF
}
if [ $installed = no ] && unshare --net --uts true 2>/dev/null && command -v ip >/dev/null; then
  step "measured placement: the halo and a binary reduce on 2 emulated nodes (mpimon cluster, mpimon bench placement)"
  measured_placement || measured_failed=yes
else
  echo "main: not measured: this job cannot make network namespaces here (root, not --installed);"
  echo "main: the saving above is modelled"
fi
# The same two rankfiles SIMULATED (SimGrid's SMPI, docs/simulate.md) on the modelled cluster with
# the same links, the simulated traffic checked against the recording: where SimGrid's SMPI is installed.
smpi_halo=$(dirname "$programs")/smpi/mpimon-workload-smpi
[ $installed = no ] || smpi_halo=$programs/mpimon-workload-smpi
if command -v smpirun >/dev/null && [ -x "$smpi_halo" ]; then
  step "simulated placement: mpimon simulate --topology 2x2x4 --rate $rate --rankfile packed --rankfile chosen (SMPI)"
  "$mpimon" simulate --topology 2x2x4 --rate "$rate" --np 16 --rankfile "$out/packed.rankfile" \
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
# The measured placement's verdicts again, last: predicted beside measured.
side_by_side_file=$out/measured-placement/side-by-side.txt
[ ! -s "$side_by_side_file" ] || { echo "main: the measured placement ($side_by_side_file):"; cat "$side_by_side_file"; }
# A measurement that failed is not a result: the job says so and ends non-zero, after the report.
if [ "${simulated_failed:-no}" = yes ]; then
  echo "main: the simulated placement failed (see above)" >&2
  exit 1
fi
if [ "${measured_failed:-no}" = yes ]; then
  echo "main: the measured placement failed (see above; the modelled saving stands in the report)" >&2
  exit 1
fi
