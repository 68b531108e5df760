#!/usr/bin/env bash
# A MEASURED Fig. 4a on an emulated cluster (docs/cluster.md): a forced binary MPI_Reduce
# (coll_tuned_reduce_algorithm 4) on NODES nodes of SLOTS ranks, placed three ways by
# `mpimon place` on the cluster's hostfile: from the PML view (default classes external,internal),
# from a PMPI-level view (--classes external,coll) and at random (--method random, seed 1; at
# 8 ranks on 2 nodes round-robin, --method cyclic, is the PML view's own mapping); each pair of
# placements timed by `mpimon bench placement` in launch pairs (monitoring off), the time per
# reduce being the program's own (seconds per iteration between two barriers). Beside each time,
# the modelled cost of the same mapping (costed on the PML view), and the rank correlation of the
# two orders.
# Needs root. Usage: results/placement/measured/run.sh [BUILD_DIR]   (default: build)
# Environment: NODES (2), SLOTS (4), RATE (1gbit), COUNTS ("100000 1000000" 4-byte integers),
# ITERATIONS (20), PAIRS (5). Writes next to this script: runs/ (not committed), json/, fig4a-measured-npN.csv, conditions-npN.txt.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build}" && pwd)
mpimon=$build/cli/mpimon collective=$build/validation/mpimon-run-collective
nodes=${NODES:-2} slots=${SLOTS:-4} rate=${RATE:-1gbit} counts=${COUNTS:-100000 1000000}
iterations=${ITERATIONS:-20} pairs=${PAIRS:-5}
np=$((nodes * slots)) name=measured$$
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
scratch=$(mktemp -d)
trap '"$mpimon" cluster down --name "$name" >/dev/null; rm -rf "$scratch"' EXIT
"$mpimon" cluster up --nodes "$nodes" --slots "$slots" --rate "$rate" --name "$name" >/dev/null
launcher=$("$mpimon" cluster launcher --name "$name")
hostfile=$("$mpimon" cluster hostfile --name "$name")
topology=${nodes}x1x${slots}
forced=(--mca coll_tuned_use_dynamic_rules=1 --mca coll_tuned_reduce_algorithm=4)
# mpirun reads the rankfiles' slots (socket:core) against this node description: SLOTS cores per
# node; a rank on a core this machine lacks runs unbound (with a warning), the same in every arm.
lstopo --input "pack:1 core:$slots pu:1" --of xml "$scratch/node.xml"
node_topology=(--mca "hwloc_base_topo_file=$scratch/node.xml")
mkdir -p "$here/runs" "$here/json"
summary=$here/fig4a-measured-np$np.csv
echo "count,bytes,arm_a,arm_b,mean_a_s,mean_b_s,b_minus_a_s,ci95_low_s,ci95_high_s,pairs,modelled_a,modelled_b" >"$summary"

for count in $counts; do
  tag=reduce-np$np-$count
  # The pattern, recorded once across the nodes (one reduce, monitoring on).
  "$mpimon" record --launcher "$launcher" --np "$np" -o "$here/runs/$tag.h5" "${forced[@]}" -- \
    "$collective" --op reduce --count "$count" --type-size 4 >/dev/null 2>&1
  declare -A rankfile=() cost=()
  for arm in pml pmpi random; do
    case $arm in
      pml) options=() ;;
      pmpi) options=(--classes external,coll --evaluate-classes external,internal) ;;
      random) options=(--method random --seed 1) ;;
    esac
    rankfile[$arm]=$here/runs/$tag-$arm.rf
    "$mpimon" place "$here/runs/$tag.h5" --topology "$topology" --hostfile "$hostfile" "${options[@]}" \
      --rankfile "${rankfile[$arm]}" --json "$here/json/$tag-$arm.json" >/dev/null
    cost[$arm]=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["methods"][[m["method"] for m in r["methods"]].index(r["chosen"])]["cost"])' "$here/json/$tag-$arm.json")
  done
  for b in pmpi random; do
    out=$here/runs/$tag-pml-vs-$b
    "$mpimon" bench placement --launcher "$launcher" --np "$np" --pairs "$pairs" -o "$out.h5" \
      --rankfile "${rankfile[pml]}" --rankfile "${rankfile[$b]}" "${forced[@]}" "${node_topology[@]}" \
      --time-regex 'seconds per iteration: ([0-9.]+)' -- \
      "$collective" --op reduce --count "$count" --type-size 4 --iterations "$iterations" | tee "$out.txt"
    "$mpimon" show "$out.h5" --csv "$out.csv" >/dev/null
    python3 - "$out.csv" "$count" "$b" "${cost[pml]}" "${cost[$b]}" >>"$summary" <<'EOF'
import csv, sys
path, count, b, cost_a, cost_b = sys.argv[1:]
row = next(csv.DictReader(open(path)))
print(",".join([count, str(int(count) * 4), "pml", b] + [row[k] for k in (
    "A_mean_s", "B_mean_s", "difference_s", "difference_ci_low_s", "difference_ci_high_s", "pairs")] + [cost_a, cost_b]))
EOF
  done
done
{
  echo "Open MPI: $(mpirun --version | head -n 1)"
  echo "cluster: $nodes emulated nodes (mpimon cluster) x $slots slots, links tbf $rate, no added latency (no netem)"
  echo "np $np, binary reduce forced (coll_tuned_reduce_algorithm 4), $iterations iterations per launch, $pairs launch pairs per comparison"
  echo "topology for place: $topology; bindings: the rankfiles' slots (this machine has $(nproc) cores: slots beyond them run unbound)"
  echo "host: $(nproc) cores, shared with other jobs: LOADED machine, times are noisy"
  echo "date: $(date -u +%FT%TZ)"
} >"$here/conditions-np$np.txt"
echo "results/placement/measured: $summary"
