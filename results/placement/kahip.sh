#!/usr/bin/env bash
# The KaHIP column of results/placement/scale.md, measured OFF the repository (CI never runs this):
# KaHIP's global_multisection (Faraj et al., SEA 2020) on the instances scale.sh places (same
# instances.py seed, same 2 x 16 nodes, distances 1/11/111 = mpimon's link costs 1/10/100 summed),
# its mapping costed by mapping_cost.py (a model written apart from mpimon, checked here against
# mpimon's own cost of the packed mapping in scale/KIND-RANKS.txt, so run scale.sh first).
# global_multisection balances each level with 1-2 % slack, so with one rank per core a few cores
# get two ranks: mapping_cost.py --repair moves the extra ones (as mpimon repairs Scotch's).
# Build KaHIP with -DCMAKE_BUILD_TYPE=Release -D64BITMODE=ON: these graphs' total weights exceed
# 2^31, and with 32-bit edge weights its results are far off (planted 1024: 4.5 x the optimum).
# Then KaHIP's raw mapping goes through `mpimon place --method given,refine --start-mapping`: mpimon's
# repair (given) and local search (refine) polish it, under the default time limit (the column
# "kahip + refine" of scale.md: the fair comparison with mpimon's default).
# Usage: results/placement/kahip.sh KAHIP_BUILD_DIR [SIZES...]   (default sizes: 256 1024 4096)
#   MPIMON_BUILD (default: the repository's build/) holds mpimon and mpimon-merge.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kahip=$(cd "${1:?usage: kahip.sh KAHIP_BUILD_DIR [SIZES...]}" && pwd)
shift
if grep -q '^64BITMODE:BOOL=OFF' "$kahip/CMakeCache.txt" 2>/dev/null; then
  echo "kahip.sh: $kahip is built with 32-bit edge weights (64BITMODE=OFF): rebuild with -D64BITMODE=ON"
  exit 2
fi
build=$(cd "${MPIMON_BUILD:-$here/../../build}" && pwd)
mpimon=$build/cli/mpimon merge=$build/cli/mpimon-merge
sizes=("${@:-256 1024 4096}")
read -r -a sizes <<<"${sizes[*]}"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM  # the EXIT trap cleans up when interrupted too
csv=$here/scale/kahip.csv
header="kind,ranks,preconfiguration,cost,wall_s,peak_kb,leaves_used,ranks_moved,cost_before_repair,given_cost,refined_cost,refine_wall_s"
[ -e "$csv" ] && [ "$(head -1 "$csv")" = "$header" ] || echo "$header" >"$csv"
for n in "${sizes[@]}"; do
  nodes=$(((n + 31) / 32))
  for kind in mesh rgg delaunay reduce planted; do
    rm -rf "$scratch/prof"
    python3 "$here/instances.py" "$kind" "$n" "$scratch/prof/$kind" --metis "$scratch/$kind.graph"
    "$merge" -q -o "$scratch/$kind.h5" "$scratch/prof"
    packed=$(awk '$1 == "packed" {print $2}' "$here/scale/$kind-$n.txt")
    seq 0 $((n - 1)) >"$scratch/packed.map"
    read -r ours _ < <(python3 "$here/mapping_cost.py" "$scratch/$kind.graph" "$nodes:2:16" 100:10:1 "$scratch/packed.map")
    [ "$ours" = "$packed" ] || { echo "$kind $n: mapping_cost.py gives $ours for packed, mpimon $packed"; exit 1; }
    for pre in eco strong; do
      /usr/bin/time -f "%e %M" -o "$scratch/time.txt" timeout 600 "$kahip/global_multisection" "$scratch/$kind.graph" \
        --preconfiguration=$pre --seed=1 --hierarchy_parameter_string=16:2:$nodes --distance_parameter_string=1:11:111 \
        --output_filename="$scratch/kahip.map" >"$scratch/kahip.log" || { echo "$kind $n $pre: no result (timeout 600 s?)"; continue; }
      read -r wall peak <"$scratch/time.txt"
      read -r cost used moved raw < <(python3 "$here/mapping_cost.py" "$scratch/$kind.graph" "$nodes:2:16" 100:10:1 "$scratch/kahip.map" --repair)
      awk '{ print NR - 1, $1 }' "$scratch/kahip.map" >"$scratch/start.map"  # vertex i = rank i
      /usr/bin/time -f "%e" -o "$scratch/time.txt" "$mpimon" place "$scratch/$kind.h5" --topology "${nodes}x2x16" \
        --method given,refine --start-mapping "$scratch/start.map" --json "$scratch/refined.json" >/dev/null
      read -r refine_wall <"$scratch/time.txt"
      read -r given refined < <(python3 -c 'import json, sys; m = json.load(open(sys.argv[1]))["methods"]; print(m[0]["cost"], m[1]["cost"])' "$scratch/refined.json")
      echo "$kind,$n,$pre,$cost,$wall,$peak,$used,$moved,$raw,$given,$refined,$refine_wall" >>"$csv"
      echo "$kind $n $pre: cost $cost, $wall s, $used leaves used, $moved moved (before repair: $raw); mpimon given $given, refine $refined ($refine_wall s)"
    done
  done
done
{
  echo "KaHIP column (scale/kahip.csv): measured off-repository by kahip.sh, $(date -u +%FT%TZ), load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "KaHIP commit $(git -C "$kahip/.." rev-parse HEAD 2>/dev/null || echo unknown) (github.com/KaHIP/KaHIP), $(grep -m1 CMAKE_BUILD_TYPE "$kahip/CMakeCache.txt" 2>/dev/null), $(grep -m1 '^64BITMODE' "$kahip/CMakeCache.txt" 2>/dev/null), flags $(grep -m1 CMAKE_CXX_FLAGS_RELEASE: "$kahip/CMakeCache.txt" 2>/dev/null | cut -d= -f2)"
  echo "Command per instance: global_multisection KIND.graph --preconfiguration=eco|strong --seed=1 --hierarchy_parameter_string=16:2:NODES --distance_parameter_string=1:11:111 --output_filename=MAP"
  echo "  (KIND.graph: instances.py KIND RANKS ... --metis; mapping costed by mapping_cost.py --repair; the cheaper preconfiguration shown)"
  echo "kahip + refine: mpimon place KIND.h5 --topology NODESx2x16 --method given,refine --start-mapping MAP (MAP: 'RANK LEAF' lines of KaHIP's raw mapping; default time limit), mpimon $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown); the cheaper preconfiguration after refine shown"
} >"$here/scale/kahip-provenance.txt"
