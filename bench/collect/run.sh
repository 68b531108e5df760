#!/usr/bin/env bash
# Online-collection benchmark (it reports; it never fails on a missed target). Two measurements on
# mpimon-collect-phases (6 phases of point-to-point, one-sided and collective traffic):
#   transport  how the per-process phases reach rank 0 at MPI_Finalize: the gather (one
#              MPI_Gather of the sizes and one MPI_Gatherv, the library's choice) against a
#              binomial tree (MPIMON_COLLECT_TRANSPORT=tree), at 2 to 64 processes; the library
#              times the transport after a barrier (MPIMON_COLLECT_TIMING=1); median of REPS runs
#   finalize   what collecting costs a run: `mpimon bench app --preload` (the harness's launch
#              pairs, in an order drawn from the seed within each pair) of the same command with
#              monitoring on (mode 1) without the library (arm monitored) and with it preloaded
#              (arm preloaded), each timed by its wall clock (paired t-test, 95 % CI, Wilcoxon)
# and writes OUT.md (provenance, commands, tables) and OUT-transport.csv, OUT-finalize-NP.csv (Table 1).
#
# Usage: bench/collect/run.sh [--quick] [--build DIR] [--out PREFIX] [--reps N] [--pairs R]
#   --quick   2 and 4 processes only, 2 repetitions, 4 pairs (smoke use; default PREFIX under $TMPDIR)
#   --build   the build directory of mpimon (default: build/ in the repository)
#   --out     report prefix (default: results/collect/collect in the repository)
#   --reps    runs per transport and process count (default 5)
#   --pairs   launch pairs per process count of the finalize measurement (default 10)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
quick=0 build=$repo/build out= reps=5 pairs=10
source "$repo/bench/common/options.sh"
bench_options=("--quick = quick=1 reps=2 pairs=4" "--build build a directory" "--out out a prefix"
  "--reps reps a number" "--pairs pairs a number")
parse_options "$@"
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: --reps must be a positive integer, not '$reps'" >&2; exit 2; }
[[ $pairs =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: --pairs must be a positive integer, not '$pairs'" >&2; exit 2; }
tmp=${TMPDIR:-/tmp}
[ -n "$out" ] || { [ $quick = 1 ] && out=$tmp/collect-quick/collect || out=$repo/results/collect/collect; }
out=$(realpath -m "$out")
build=$(realpath -m "$build")
die() { echo "run.sh: $*" >&2; exit 1; }
mpimon=$build/cli/mpimon
program=$build/validation/mpimon-collect-phases
library=$build/collect/libmpimon-collect.so
for f in "$mpimon" "$program" "$library"; do [ -e "$f" ] || die "$f is missing: build mpimon first (cmake --build $build)"; done
nps=(2 4 8 16 32 64)
[ $quick = 1 ] && nps=(2 4)
finalize_nps=(2 4)

scratch=$(mktemp -d "$tmp/mpimon-collect-bench.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$(dirname "$out")"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
launch() {  # NP [mpirun options...]: mpimon-collect-phases under monitoring; prints its output
  local np=$1
  shift
  mpirun --oversubscribe --bind-to none -np "$np" --mca pml_monitoring_enable 1 "$@" \
    "$program" "$scratch/ledger/run" 2>&1
}

# ---- transport ---------------------------------------------------------------------------------
echo "np,transport,rep,transport_seconds,bytes,write_seconds,load1" >"$out-transport.csv"
for np in "${nps[@]}"; do
  for rep in $(seq 1 "$reps"); do
    for transport in gather tree; do
      text=$(launch "$np" -x LD_PRELOAD="$library" -x MPIMON_COLLECT_OUTPUT="$scratch/t.h5" \
        -x MPIMON_COLLECT_TMPDIR="$scratch" -x MPIMON_COLLECT_TRANSPORT=$transport -x MPIMON_COLLECT_TIMING=1) ||
        die "np $np $transport: the run failed: $(echo "$text" | tail -5)"
      line=$(echo "$text" | grep -o 'timing: transport [a-z]* [0-9.]* s for [0-9]* bytes, write [0-9.]* s' | head -1)
      [ -n "$line" ] || die "np $np $transport: no timing line in the output: $(echo "$text" | tail -5)"
      read -r _ _ _ seconds _ _ bytes _ _ write _ <<<"$line"
      echo "$np,$transport,$rep,$seconds,$bytes,$write,$(cut -d' ' -f1 /proc/loadavg)" >>"$out-transport.csv"
    done
  done
  echo "transport: np $np done" >&2
done

# ---- finalize cost -----------------------------------------------------------------------------
# The harness's launch pairs (mpimon bench app --preload: the arm order of each pair drawn from
# --seed, failed launches kept with their logs, the provenance in the results file).
for np in "${finalize_nps[@]}"; do
  (cd "$scratch" && "$mpimon" bench app --np "$np" --pairs "$pairs" --seed 1 --monitoring-mode 1 \
    --preload "$library" --workdir "$scratch" -o "$scratch/finalize-$np.h5" --csv "$out-finalize-$np.csv" \
    -- "$program" "$scratch/ledger/run") >"$scratch/finalize-$np.txt" 2>"$scratch/finalize-$np.err" ||
    die "mpimon bench app --preload at np $np failed: $(tail -3 "$scratch/finalize-$np.err")"
  echo "finalize: np $np done" >&2
done

# ---- report ------------------------------------------------------------------------------------
median_table() {
  python3 - "$out-transport.csv" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = {}
for r in rows:
    by.setdefault((int(r["np"]), r["transport"]), []).append(r)
print("| processes | bytes at rank 0 | gather: median s | tree: median s | tree / gather |")
print("|---:|---:|---:|---:|---:|")
for np in sorted({k[0] for k in by}):
    g = statistics.median(float(r["transport_seconds"]) for r in by[(np, "gather")])
    t = statistics.median(float(r["transport_seconds"]) for r in by[(np, "tree")])
    print(f"| {np} | {by[(np, 'gather')][0]['bytes']} | {g:.6f} | {t:.6f} | {t / g:.2f} |")
EOF
}
{
  echo "# Online collection: transport and cost at MPI_Finalize"
  echo
  echo "Measured by \`bench/collect/run.sh$([ $quick = 1 ] && echo ' --quick')\` on $(date -u +%Y-%m-%d),"
  echo "host $(hostname), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')),"
  echo "$(mpirun --version | head -1), components: pml/osc/coll monitoring, pml_monitoring_enable 1,"
  echo "\`--oversubscribe --bind-to none\`: more processes than cores above 2, so the times are those"
  echo "of an oversubscribed node (labelled, not a cluster's). Program: mpimon-collect-phases (6 phases)."
  echo "Load average (1 min) at the end: $(cut -d' ' -f1 /proc/loadavg)."
  echo
  echo "## Transport (gather vs binomial tree), $reps runs each, median"
  echo
  echo "The library times, on rank 0 after a barrier, from the packing of its phases to having every"
  echo "process's phases (\`MPIMON_COLLECT_TIMING=1\`); raw runs in \`$(basename "$out")-transport.csv\`."
  echo
  median_table
  echo
  echo "## Cost of collecting at MPI_Finalize ($pairs launch pairs per process count)"
  echo
  echo "\`mpimon bench app --preload libmpimon-collect.so --monitoring-mode 1 --seed 1\`: off (arm"
  echo "monitored): monitoring on, no library; on (arm preloaded): the same with libmpimon-collect.so"
  echo "preloaded (it flushes the phases, gathers them and writes one HDF5 file). Wall time of each"
  echo "launch; the arm order of each pair drawn from the seed; Table 1 in \`$(basename "$out")-finalize-NP.csv\`."
  for np in "${finalize_nps[@]}"; do
    echo
    echo "### $np processes"
    echo
    echo '```'
    # Without this machine's paths: the library by its name, not the files of the scratch directory.
    grep -v -e '^results: ' -e '^table: ' "$scratch/finalize-$np.txt" | sed "s#$library#$(basename "$library")#g"
    echo '```'
  done
} >"$out.md"
echo "wrote $out.md" >&2
