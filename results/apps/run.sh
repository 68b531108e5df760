#!/usr/bin/env bash
# Reproduces results/apps: RR-9038's Table 1 (built-in cg, lu, bt workloads, medium class, np 2
# and 4), the hpcc row, and Fig. 3 (stencil over a compute sweep), with `mpimon bench app`.
# Usage: results/apps/run.sh [BUILD_DIR] [OUT_DIR] [table1|hpcc|fig3 ...]
#   PAIRS=10 HPCC_PAIRS=3 FIG3_PAIRS=4 COMPUTE_SWEEP=0,... to change the launch pairs (the paper used 20).
# About 20 minutes on a 2-core machine shared with other jobs; docs/apps.md for a cluster.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
out=$(mkdir -p "${2:-$src/results/apps}" && cd "${2:-$src/results/apps}" && pwd)
shift $(($# > 2 ? 2 : $#))
parts=("${@:-table1 hpcc fig3}")
mpimon=$build/cli/mpimon
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

for part in ${parts[*]}; do
  case $part in
    table1)
      rm -f "$out/table1.h5"
      "$mpimon" bench app --workload cg,lu,bt --class medium --np 2,4 --pairs "${PAIRS:-6}" -o "$out/table1.h5"
      ;;
    hpcc)
      # Debian's hpcc reads hpccinf.txt in its working directory (N = 500, a 1 x 2 process grid).
      work=$(mktemp -d)
      cp "$src/results/apps/hpccinf.txt" "$work/"
      rm -f "$out/hpcc.h5"
      "$mpimon" bench app --np 2,4 --pairs "${HPCC_PAIRS:-3}" --workdir "$work" --timeout 900 -o "$out/hpcc.h5" -- hpcc
      rm -rf "$work"
      ;;
    fig3)
      rm -f "$out/fig3.h5"
      "$mpimon" bench app --workload stencil --class small --compute-sweep "${COMPUTE_SWEEP:-0,4,16,64,256}" \
          --np 2,4 --pairs "${FIG3_PAIRS:-4}" -o "$out/fig3.h5"
      "$mpimon" plot "$out/fig3.h5" -o "$out"
      ;;
    *) echo "run.sh: unknown part '$part' (table1, hpcc, fig3)" >&2; exit 2 ;;
  esac
  # The committed extracts: Table 1 and every launch (the .h5 files hold this machine's paths).
  "$mpimon" show "$out/$part.h5" --csv "$out/$part.csv" --launches-csv "$out/$part-launches.csv" >/dev/null
  # The compact results file the figures and Table 1 are redrawn from (no paths, no raw data).
  "$mpimon" compact "$out/$part.h5" -o "$out/$part-compact.h5" >/dev/null
done
