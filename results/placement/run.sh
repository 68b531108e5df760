#!/usr/bin/env bash
# Reproduces results/placement: RR-9038's Fig. 5 and Fig. 4a analogues as MODELLED costs.
#   Fig. 5:  monitored stencil runs (mpimon-workload) placed on modelled clusters by every method.
#   Fig. 4a: a forced binary MPI_Reduce at 32 and 64 ranks, placed from the PML view
#            (external,internal) and from a PMPI-level view (external,coll), both costed on the PML view.
# Runs are oversubscribed on whatever machine runs this: the recorded pattern does not depend on speed.
# Usage: results/placement/run.sh [BUILD_DIR]   (default: build); writes next to this script.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build}" && pwd)
mpimon=$build/cli/mpimon merge=$build/cli/mpimon-merge
workload=$build/validation/mpimon-workload collective=$build/validation/mpimon-run-collective
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$here/runs" "$here/json"
# The time model's links (docs/placement.md): the nodes' links as mpimon probe measured the emulated
# cluster's at 1 Gbit/s (measured/links-1gbit.json, level 0); inside a node free (not modelled).
links=(--link "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["links"][0]["link"])' "$here/measured/links-1gbit.json")")

# monitor NAME NP PROGRAM ARGS...: one monitored run merged into runs/NAME.h5
monitor() {
  local name=$1 np=$2
  shift 2
  rm -f "$scratch"/*.prof
  mpirun --oversubscribe -np "$np" --bind-to none --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 \
    --mca pml_monitoring_filename "$scratch/$name" "$@" >"$scratch/out.txt"
  "$merge" -q -o "$here/runs/$name.h5" "$scratch/$name".*.prof
}

# Fig. 5 analogue: stencils, two cluster shapes each.
stencils=(
  "stencil7-np16 16 --points 7 --grid 32,32,32 --vars 4"
  "stencil27-np32 32 --points 27 --grid 48,32,32 --vars 2"
  "stencil7-np64 64 --points 7 --grid 64,64,32 --vars 1"
)
for spec in "${stencils[@]}"; do
  read -r name np args <<<"$spec"
  # shellcheck disable=SC2086
  monitor "$name" "$np" "$workload" --workload stencil --iterations 2 $args
  for topo in "$((np / 8))x2x4" "tleaf 2 $((np / 4)) 100 4 1"; do
    tag=$(tr ' ' '_' <<<"$topo")
    "$mpimon" place "$here/runs/$name.h5" --topology "$topo" "${links[@]}" --json "$here/json/fig5-$name-$tag.json" >/dev/null
  done
done

# Fig. 4a analogue: forced binary reduce (coll_tuned_reduce_algorithm 4), two sizes, 32 and 64 ranks.
for np in 32 64; do
  for count in 1024 131072; do
    name=reduce-np$np-$((count * 8))B
    monitor "$name" "$np" --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_reduce_algorithm 4 \
      "$collective" --op reduce --count "$count" --type-size 8
    topo="$((np / 8))x2x4"
    for view in external,internal external,coll; do
      "$mpimon" place "$here/runs/$name.h5" --topology "$topo" --classes "$view" --evaluate-classes external,internal \
        "${links[@]}" --json "$here/json/fig4a-$name-from-${view/,/+}.json" >/dev/null
    done
  done
done

# The reports name their run relative to this folder (runs/ is not committed; no machine's path).
sed -i "s|\"file\": \"$here/|\"file\": \"|" "$here"/json/*.json
{
  echo "Open MPI: $(ompi_info --version 2>/dev/null | head -n 1)"
  echo "Host: $(nproc) cores, runs oversubscribed (--bind-to none); patterns, not timings, are recorded"
  echo "Date: $(date -u +%FT%TZ)"
} >"$here/provenance.txt"
"$mpimon" plot placement "$here"/json/fig5-*.json -o "$here/fig5" --title "Fig. 5 analogue: stencils"
"$mpimon" plot placement "$here"/json/fig4a-*.json -o "$here/fig4a" --title "Fig. 4a analogue: binary reduce, PML vs PMPI view"
echo "results/placement: done"
