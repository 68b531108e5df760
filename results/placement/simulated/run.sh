#!/usr/bin/env bash
# Placements SIMULATED with SimGrid's SMPI (docs/simulate.md, `mpimon simulate`): first against the
# emulated cluster's measurements (../measured), then at the paper's scale and beyond.
#   trust:   every comparison of ../measured on the platform of the emulated cluster (4 nodes, one
#            switch, its link rate, no latency), the mappings of ../measured/json (rebuilt as rankfiles
#            by `mpimon place --method given`), each case recorded here once with monitoring (mpimon
#            record, no cluster needed: the traffic does not depend on the placement) so that the
#            simulated traffic is checked against Open MPI's (--matrices).
#            Fig. 5's programs run in SMPI as they are (their own timed loop). Fig. 4a's binary reduce
#            (coll_tuned_reduce_algorithm 4; SMPI's ompi_binary) is replayed from its time-independent
#            trace: SMPI does not time the reduction's arithmetic (Op::apply runs inside the call), so
#            the program's time between its barriers is the trace's (checked: fig4a-live below), and
#            the program itself would hold every rank's buffers, hours here at 10^7 integers.
#   fig4a:   RR-9038's Fig. 4a: 32 ranks on 4 nodes and 64 on 8 (8 cores each), 10^6 to 2.10^8
#            integers, at FIG4A_RATES; mappings placed from a recording at 10^6 integers: the PML view
#            (place's default), the PMPI view (--classes external,coll) and round-robin (cyclic). The
#            reduce is replayed from time-independent traces (2.10^8 integers are 800 MB a rank): `edges`,
#            Open MPI's own decomposition as the monitoring recorded it (one message per tree edge, the
#            bytes scaled to the size: reduce_trace.py); `arithmetic`, the same with the reduction's
#            arithmetic at this machine's speed (FIG4A_FLOPS_PER_BYTE, what `why` measures); `ompi_binary`,
#            SMPI's own algorithm (32 KB segments) up to 10^7 integers at 32 ranks and 5.10^6 at 64
#            (above, its tens of thousands of concurrent segments take hours a run here). A part run
#            again keeps the results files it finds.
#   fig4a-live: the program itself at 10^6 integers on the same mappings, against the replay.
#   fig5:    Fig. 5 at FIG5_NP ranks on a two-level fat tree of 8-core nodes (racks of 8 or 16 nodes,
#            10 Gbit/s, 1 us): the 7- and 27-point stencils with a scrambled rank order and CG, 16^3
#            points a rank, FIG5_ITERATIONS (3) iterations (at 4096 ranks use 1: a run of one mapping
#            takes 0.5-27 min here, README); the traffic of one iteration from a simulation of the packed
#            mapping (--traffic-out: no run can be recorded at this scale here), the mappings packed,
#            cyclic, random, TreeMatch, Scotch and place's default placed from it and costed on it;
#            communication only (the computation is not simulated: README.md).
#   growth:  the wall time of one simulated run of each stencil against the ranks (GROWTH_NP), growth.csv.
#   compact: compact files (no paths of this machine), the figures redrawn, *.csv, platforms/.
#   why:     Fig. 4a's comparisons again, with Open MPI's own decomposition of the reduce (one message per
#            edge, from the recording) and then also with the reduction's arithmetic on the emulated
#            cluster's CPU share (README: why the simulated and measured ratios differ).
# Usage: results/placement/simulated/run.sh [BUILD_DIR] [PART...] (default: trust why fig4a fig4a-live fig5 growth compact)
# Environment: FIG5_NP ("256 1024 4096"), FIG5_CASES, FIG5_ITERATIONS (3), FIG5_ARMS, FIG5_SMPI,
# FIG5_JOBS (1: mappings simulated at once, simulate --jobs; their wall times then share the cores),
# GROWTH_CASES ("stencil7-scrambled stencil27-scrambled"), GROWTH_NP ("256 512 1024"),
# GROWTH_TIMEOUT (1800), FIG4A_RATES ("1gbit 10gbit"),
# FIG4A_COUNTS, FIG4A_FLOPS_PER_BYTE, NICE (10).
# Writes next to this script: runs/ (full results, not committed), compact/, platforms/, *.csv, conditions.txt.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
measured=$here/../measured
build=$(cd "${1:-build}" && pwd)
shift $(($# > 0 ? 1 : 0))
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(trust why fig4a fig4a-live fig5 growth compact)
mpimon=$build/cli/mpimon
collective=$build/validation/mpimon-run-collective workload=$build/validation/mpimon-workload
collective_smpi=$build/smpi/mpimon-run-collective-smpi
nice=(nice -n "${NICE:-10}")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
runs=$here/runs
mkdir -p "$runs"
common=(--smpi smpi/privatization=no)
forced_mca=(--mca coll_tuned_use_dynamic_rules=1 --mca coll_tuned_reduce_algorithm=4)
reduce_smpi=(--smpi smpi/reduce=ompi_binary)

# simulate ARGS...: mpimon simulate, niced; a run whose traffic differs or fails is kept (its rows
# say so) and noted in runs/exits.txt.
simulate() {
  "${nice[@]}" "$mpimon" simulate "$@" || echo "mpimon simulate $*: exit $?" | tee -a "$runs/exits.txt"
}

# rankfiles DIR TOPOLOGY RECORDING JSON_PREFIX ARM...: DIR/ARM.rf from each ../measured report's mapping.
rankfiles_from_json() {
  local dir=$1 topology=$2 rec=$3 prefix=$4 arm
  shift 4
  mkdir -p "$dir"
  for arm in "$@"; do
    /usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); m=next(x for x in r["methods"] if x["method"]==r["chosen"])
print("\n".join(f"{i} {leaf}" for i, leaf in enumerate(m["mapping"])))' "$prefix-$arm.json" >"$scratch/$arm.map"
    "$mpimon" place "$rec" --topology "$topology" --method given --start-mapping "$scratch/$arm.map" \
      --rankfile "$dir/$arm.rf" >/dev/null
  done
}

# edge_trace RECORDING.h5 NP OUT_PREFIX [ARGS...]: reduce_trace.py's trace of the reduce the recording
# holds (its internal messages, read through mpimon export pairs).
edge_trace() {
  local recording=$1 np=$2 out=$3
  shift 3
  "$mpimon" export pairs "$recording" --classes internal -o "$scratch/pairs.csv"
  /usr/bin/python3 "$here/reduce_trace.py" "$scratch/pairs.csv" "$np" "$out" "$@"
}

# reduce_trace NP TOPOLOGY DIR: DIR/ti.txt, the time-independent trace of the binary reduce (SMPI's
# -trace-ti of mpimon-run-collective-smpi --skip --iterations 1: barrier, one reduce, barrier).
reduce_trace() {
  local np=$1 topology=$2 dir=$3
  mkdir -p "$dir"
  for r in $(seq 0 $((np - 1))); do echo "rank $r=node0 slot=0:0"; done >"$dir/one-node.rf"
  "$mpimon" simulate --topology 1x1x"$np" --rankfile "$dir/one-node.rf" --np "$np" --no-traffic -o "$dir/probe.h5" \
    "${common[@]}" -- "$collective_smpi" --op reduce --count 1000 --type-size 4 --skip --iterations 1 >/dev/null 2>&1
  (cd "$dir" && "${nice[@]}" smpirun -platform probe.platform.xml -hostfile probe.A.hosts -np "$np" \
    --cfg=smpi/privatization:no --cfg=smpi/reduce:ompi_binary -trace-ti --cfg=tracing/filename:ti.txt \
    "$collective_smpi" --op reduce --count 1000 --type-size 4 --skip --iterations 1 >/dev/null 2>&1)
}

# scaled_trace DIR COUNT: DIR/COUNT.txt, the trace with its reduce moving COUNT 4-byte integers (as
# COUNT x 4 bytes of MPI_BYTE, SMPI's type 6) and without its compute actions (the program's own
# setup, before its first barrier).
scaled_trace() {
  local dir=$1 count=$2 f
  mkdir -p "$dir/$count"
  : >"$dir/$count.txt"
  while read -r f; do
    awk -v bytes=$((count * 4)) '$2 == "compute" { next } $2 == "reduce" { print $1, "reduce", bytes, 0, $5, 6; next } { print }' \
      "$dir/$f" >"$dir/$count/$(basename "$f")"
    echo "$dir/$count/$(basename "$f")" >>"$dir/$count.txt"
  done <"$dir/ti.txt"
}

trust() {
  local fig case np slots rate arms args label rec dir rf
  while IFS='|' read -r fig case np slots rate arms args; do
    label=$fig-$case rec=$runs/trust-$label-recorded.h5 dir=$runs/trust-$label
    rf=()
    if [ "$fig" = fig4a ]; then
      local count=${args#*--count }
      count=${count%% *}
      "${nice[@]}" "$mpimon" record --np "$np" -o "$rec" "${forced_mca[@]}" -- \
        "$collective" --op reduce --count "$count" --type-size 4 --skip --iterations 1 >/dev/null 2>&1
      rankfiles_from_json "$dir" "4x1x$slots" "$rec" "$measured/json/$label" $arms
      [ -s "$runs/trace-np$np/ti.txt" ] || reduce_trace "$np" "4x1x$slots" "$runs/trace-np$np"
      scaled_trace "$runs/trace-np$np" "$count"
      for a in $arms; do rf+=(--rankfile "$dir/$a.rf"); done
      simulate --topology "4x1x$slots" --rate "$rate" --latency 0us --network flat "${rf[@]}" --np "$np" \
        --matrices "$rec" "${common[@]}" "${reduce_smpi[@]}" --name "$label" -o "$runs/trust-$label.h5" \
        --json "$runs/trust-$label.json" --replay "$runs/trace-np$np/$count.txt"
    else
      # shellcheck disable=SC2086
      "${nice[@]}" "$mpimon" record --np "$np" -o "$rec" -- "$workload" $args >/dev/null 2>&1
      rankfiles_from_json "$dir" "4x1x$slots" "$rec" "$measured/json/$label" $arms
      for a in $arms; do rf+=(--rankfile "$dir/$a.rf"); done
      # CG's allreduces: Open MPI 4.1.4 chooses recursive doubling for them (the traffic check agrees).
      # shellcheck disable=SC2086
      simulate --topology "4x1x$slots" --rate "$rate" --latency 0us --network flat "${rf[@]}" --np "$np" \
        --matrices "$rec" "${common[@]}" --smpi smpi/allreduce=rdb --name "$label" -o "$runs/trust-$label.h5" \
        --json "$runs/trust-$label.json" -- mpimon-workload-smpi $args
    fi
  done <<EOF
fig5|stencil7-scrambled|16|4|1gbit|packed cyclic random treematch scotch default|--workload stencil --class medium --iterations 10 --scramble 1
fig5|stencil27-scrambled|16|4|1gbit|packed cyclic random treematch scotch default|--workload stencil --points 27 --class medium --iterations 10 --scramble 1
fig5|cg|16|4|1gbit|packed cyclic random treematch scotch default|--workload cg --class small
fig5|stencil7-scrambled-100mbit|16|4|100mbit|packed cyclic random treematch scotch default|--workload stencil --class medium --iterations 10 --scramble 1
fig5|stencil27-scrambled-100mbit|16|4|100mbit|packed cyclic random treematch scotch default|--workload stencil --points 27 --class medium --iterations 10 --scramble 1
fig4a|np16-100000|16|4|1gbit|pml pmpi cyclic random|--count 100000
fig4a|np16-1000000|16|4|1gbit|pml pmpi cyclic random|--count 1000000
fig4a|np16-10000000|16|4|1gbit|pml pmpi cyclic random|--count 10000000
fig4a|np32-100000|32|8|1gbit|pml pmpi cyclic random|--count 100000
fig4a|np32-1000000|32|8|1gbit|pml pmpi cyclic random|--count 1000000
fig4a|np32-10000000|32|8|1gbit|pml pmpi cyclic random|--count 10000000
EOF
}

fig4a_counts=${FIG4A_COUNTS:-1000000 2000000 5000000 10000000 20000000 50000000 100000000 200000000}

# fig4a_mappings NP NODES: runs/fig4a-npNP/{pml,pmpi,cyclic}.rf from a recording at 10^6 integers.
fig4a_mappings() {
  local np=$1 nodes=$2 dir=$runs/fig4a-np$1 rec=$runs/fig4a-np$1-recorded.h5
  mkdir -p "$dir"
  [ ! -s "$dir/cyclic.rf" ] || return 0  # placed by an earlier run: its results were simulated on these
  [ -s "$rec" ] || "${nice[@]}" "$mpimon" record --np "$np" -o "$rec" "${forced_mca[@]}" -- \
    "$collective" --op reduce --count 1000000 --type-size 4 --skip --iterations 1 >/dev/null 2>&1
  "$mpimon" place "$rec" --topology "${nodes}x1x8" --rankfile "$dir/pml.rf" --json "$dir/pml.json" >/dev/null
  "$mpimon" place "$rec" --topology "${nodes}x1x8" --classes external,coll --evaluate-classes external,internal \
    --rankfile "$dir/pmpi.rf" --json "$dir/pmpi.json" >/dev/null
  "$mpimon" place "$rec" --topology "${nodes}x1x8" --method cyclic --rankfile "$dir/cyclic.rf" --json "$dir/cyclic.json" >/dev/null
}

fig4a() {
  local np nodes rate count variant flops=${FIG4A_FLOPS_PER_BYTE:-0.5692}
  for np in 32 64; do
    nodes=$((np / 8))
    fig4a_mappings "$np" "$nodes"
    [ -s "$runs/trace-np$np/ti.txt" ] || reduce_trace "$np" "${nodes}x1x8" "$runs/trace-np$np"
    for rate in ${FIG4A_RATES:-1gbit 10gbit}; do
      for count in $fig4a_counts; do
        for variant in edges arithmetic ompi_binary; do
          local trace=$runs/trace-np$np-$variant-$count args=() traffic=(--no-traffic)
          case $variant in
            edges) edge_trace "$runs/fig4a-np$np-recorded.h5" "$np" "$trace" --scale "$((count / 1000000))" ;;
            arithmetic) edge_trace "$runs/fig4a-np$np-recorded.h5" "$np" "$trace" \
              --scale "$((count / 1000000))" --flops-per-byte "$flops" ;;
            ompi_binary)  # SMPI's own algorithm: every 32 KB segment a flow (15 min a run at 64 ranks, 10^7)
              [ "$count" -le $((320000000 / np)) ] || continue
              scaled_trace "$runs/trace-np$np" "$count"
              trace=$runs/trace-np$np/$count args=("${reduce_smpi[@]}") ;;
          esac
          # The traffic counted and checked against the recording at its own size, 10^6 integers.
          [ "$count" != 1000000 ] || traffic=()
          [ ! -s "$runs/fig4a-np$np-$count-$rate-$variant.h5" ] || continue  # done by an earlier run
          simulate --topology "${nodes}x1x8" --rate "$rate" --latency 1us --network flat \
            --rankfile "$runs/fig4a-np$np/pml.rf" --rankfile "$runs/fig4a-np$np/pmpi.rf" --rankfile "$runs/fig4a-np$np/cyclic.rf" \
            --np "$np" --matrices "$runs/fig4a-np$np-recorded.h5" "${traffic[@]}" "${common[@]}" "${args[@]}" \
            --name "fig4a-np$np-$count-$rate-$variant" -o "$runs/fig4a-np$np-$count-$rate-$variant.h5" \
            --json "$runs/fig4a-np$np-$count-$rate-$variant.json" --replay "$trace.txt"
        done
      done
    done
  done
}

# The program itself at 10^6 integers: its own time between the barriers, against the replay's.
fig4a_live() {
  local np nodes
  for np in 32 64; do
    nodes=$((np / 8))
    simulate --topology "${nodes}x1x8" --rate 1gbit --latency 1us --network flat \
      --rankfile "$runs/fig4a-np$np/pml.rf" --rankfile "$runs/fig4a-np$np/pmpi.rf" --rankfile "$runs/fig4a-np$np/cyclic.rf" \
      --np "$np" --matrices "$runs/fig4a-np$np-recorded.h5" "${common[@]}" "${reduce_smpi[@]}" \
      --time-regex 'seconds per iteration: ([0-9.]+)' --name "fig4a-np$np-1000000-1gbit-live" \
      -o "$runs/fig4a-np$np-1000000-1gbit-live.h5" --json "$runs/fig4a-np$np-1000000-1gbit-live.json" -- \
      mpimon-run-collective-smpi --op reduce --count 1000000 --type-size 4 --skip --iterations 1
  done
}

# Why Fig. 4a's simulated and measured ratios differ (README): the same comparisons replayed with
# Open MPI's own decomposition (one message per edge, from the recording: reduce_trace.py), then also
# with the reduction's arithmetic (measured here: byte_sum's CPU time per byte) on nodes of one core
# at 0.5 Gflop/s (this machine's 2 cores shared by the 4 emulated nodes).
why() {
  cat >"$scratch/byte_sum.cpp" <<'CPP'
#include <cstdio>
#include <ctime>
#include <vector>
int main() {  // the run_collective program's byte-wise sum over 40 MB, 10 times: CPU seconds per byte
  std::vector<unsigned char> a(40000000, 1), b(40000000, 2);
  timespec t0, t1;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
  for (int k = 0; k < 10; ++k)
    for (std::size_t i = 0; i < a.size(); ++i) b[i] = static_cast<unsigned char>(b[i] + a[i]);
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
  std::printf("%.6g %d\n", ((t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec)) / 4e8, b[3]);
}
CPP
  g++ -O2 -o "$scratch/byte_sum" "$scratch/byte_sum.cpp"
  local per_byte flops case np slots a rf
  per_byte=$("$scratch/byte_sum" | cut -d' ' -f1)
  flops=$(awk -v s="$per_byte" 'BEGIN { printf "%.4g", s * 1e9 }')  # at smpi/host-speed 1 Gflop/s
  echo "why: byte_sum takes $per_byte CPU s per byte here: $flops flops per byte" | tee -a "$here/conditions.txt"
  for case in np16-100000 np16-1000000 np16-10000000 np32-100000 np32-1000000 np32-10000000; do
    np=${case%%-*} np=${np#np} slots=$((np / 4))
    rf=()
    for a in pml pmpi cyclic random; do rf+=(--rankfile "$runs/trust-fig4a-$case/$a.rf"); done
    edge_trace "$runs/trust-fig4a-$case-recorded.h5" "$np" "$runs/why-trace-$case"
    simulate --topology "4x1x$slots" --rate 1gbit --latency 0us --network flat "${rf[@]}" --np "$np" \
      --matrices "$runs/trust-fig4a-$case-recorded.h5" "${common[@]}" --name "why-unsegmented-$case" \
      -o "$runs/why-unsegmented-$case.h5" --replay "$runs/why-trace-$case.txt"
    edge_trace "$runs/trust-fig4a-$case-recorded.h5" "$np" "$runs/why-trace-cpu-$case" \
      --flops-per-byte "$flops"
    sed 's/core="[0-9]*"/core="1"/; s/speed="1000000000f"/speed="500000000f"/' \
      "$runs/trust-fig4a-$case.platform.xml" >"$runs/why-cpu-$case.platform.xml"
    simulate --platform "$runs/why-cpu-$case.platform.xml" "${rf[@]}" --np "$np" \
      --matrices "$runs/trust-fig4a-$case-recorded.h5" "${common[@]}" --name "why-cpu-$case" \
      -o "$runs/why-cpu-$case.h5" --replay "$runs/why-trace-cpu-$case.txt"
  done
  # Fig. 5 at 1 Gbit/s on the same CPU share: the programs' computation, timed here, on one core of
  # 0.5 Gflop/s per node shared by its 4 ranks.
  local label args arms=(packed cyclic random treematch scotch default)
  for case in stencil7-scrambled stencil27-scrambled cg; do
    label=fig5-$case rf=()
    for a in "${arms[@]}"; do rf+=(--rankfile "$runs/trust-$label/$a.rf"); done
    args=$(/usr/bin/python3 -c 'import sys, h5py; c = h5py.File(sys.argv[1], "r")["configuration"].attrs["programs"]
print((c.decode() if isinstance(c, bytes) else str(c)).split(" ", 2)[2])' "$runs/trust-$label.h5")
    sed 's/core="[0-9]*"/core="1"/; s/speed="1000000000f"/speed="500000000f"/' \
      "$runs/trust-$label.platform.xml" >"$runs/why-cpu-$case.platform.xml"
    # shellcheck disable=SC2086
    simulate --platform "$runs/why-cpu-$case.platform.xml" "${rf[@]}" --np 16 --matrices "$runs/trust-$label-recorded.h5" \
      "${common[@]}" --smpi smpi/allreduce=rdb --name "why-cpu-$case" -o "$runs/why-cpu-$case.h5" -- mpimon-workload-smpi $args
  done
}

# fig5_shape NP: "RACKS NODES_PER_RACK GRID": 8-core nodes, racks of 8 or 16 nodes, 16^3 points a rank.
fig5_shape() {
  case $1 in
    256) echo "4 8 128,128,64" ;;
    512) echo "8 8 128,128,128" ;;
    1024) echo "8 16 256,128,128" ;;
    2048) echo "16 16 256,256,128" ;;
    4096) echo "32 16 256,256,256" ;;
    *) return 1 ;;
  esac
}
fig5_iterations=${FIG5_ITERATIONS:-3}
fig5_args() {  # CASE GRID
  case $1 in
    stencil7-scrambled) echo "--workload stencil --grid $2 --vars 4 --iterations $fig5_iterations --scramble 1" ;;
    stencil27-scrambled) echo "--workload stencil --points 27 --grid $2 --vars 4 --iterations $fig5_iterations --scramble 1" ;;
    cg) echo "--workload cg --grid $2 --iterations $fig5_iterations" ;;
    *) return 1 ;;
  esac
}

# FIG5_ARMS: the mappings simulated against packed (default: all five); FIG5_SMPI: more SMPI settings
# (e.g. "network/crosstraffic=0", SimGrid's cheaper sharing model, at 4096 ranks: README.md).
# Communication only (smpi/simulate-computation=no): SMPI would time each rank's computation on this
# shared host, once, and at scale those bursts, not the mappings, made the differences (README.md).
read -r -a fig5_arms <<<"${FIG5_ARMS:-cyclic random treematch scotch default}"
fig5_smpi=(--smpi smpi/simulate-computation=no)
for kv in ${FIG5_SMPI:-}; do fig5_smpi+=(--smpi "$kv"); done

fig5() {
  local np shape racks per grid tleaf case args dir label arm rankfiles
  for np in ${FIG5_NP:-256 1024 4096}; do
    read -r racks per grid <<<"$(fig5_shape "$np")"
    tleaf="tleaf 4 $racks 1000 $per 100 2 10 4 1"
    for case in ${FIG5_CASES:-stencil7-scrambled stencil27-scrambled cg}; do
      args=$(fig5_args "$case" "$grid") label=fig5-$case-np$np dir=$runs/$label
      mkdir -p "$dir"
      for r in $(seq 0 $((np - 1))); do echo "rank $r=node$((r / 8)) slot=$((r % 8 / 4)):$((r % 4))"; done >"$dir/packed.rf"
      # The traffic of one iteration (every iteration sends the same), simulated under the packed
      # mapping, as a recording: what the mappings are computed from. Kept between runs (it depends
      # on the case and the ranks only: 11 min at 4096 ranks); delete runs/$label/ to simulate it again.
      # shellcheck disable=SC2086
      [ -s "$dir/traffic.h5" ] ||
        simulate --topology "$tleaf" --rankfile "$dir/packed.rf" --np "$np" "${common[@]}" "${fig5_smpi[@]}" --smpi smpi/allreduce=rdb \
          --traffic-out "$dir/traffic.h5" --name "$label-traffic" -o "$dir/traffic-sim.h5" -- mpimon-workload-smpi \
          $(sed -E 's/--iterations [0-9]+/--iterations 1/' <<<"$args")
      for arm in "${fig5_arms[@]}"; do
        case $arm in
          default) "$mpimon" place "$dir/traffic.h5" --topology "$tleaf" --rankfile "$dir/$arm.rf" --json "$dir/$arm.json" ;;
          random) "$mpimon" place "$dir/traffic.h5" --topology "$tleaf" --method random --seed 1 --rankfile "$dir/$arm.rf" ;;
          *) "$mpimon" place "$dir/traffic.h5" --topology "$tleaf" --method "$arm" --rankfile "$dir/$arm.rf" ;;
        esac >"$dir/$arm.place.txt"
      done
      # shellcheck disable=SC2086
      rankfiles=(--rankfile "$dir/packed.rf")
      for arm in "${fig5_arms[@]}"; do rankfiles+=(--rankfile "$dir/$arm.rf"); done
      simulate --topology "$tleaf" "${rankfiles[@]}" --np "$np" \
        --matrices "$dir/traffic.h5" --no-traffic "${common[@]}" "${fig5_smpi[@]}" --smpi smpi/allreduce=rdb --name "$label" -o "$runs/$label.h5" \
        --json "$runs/$label.json" --jobs "${FIG5_JOBS:-1}" -- mpimon-workload-smpi $args
    done
  done
}

# How a simulation's wall time grows with the ranks: one run of each of Fig. 5's stencils (GROWTH_CASES,
# scrambled, one iteration, communication only as Fig. 5 runs them, the packed mapping: every halo
# crosses the fat tree) at each GROWTH_NP, with SMPI's default network model and with its
# cross-traffic off (network/crosstraffic=0), each stopped after GROWTH_TIMEOUT s. Writes growth.csv.
growth() {
  local case np racks per grid tleaf cross dir=$runs/growth
  mkdir -p "$dir"
  echo "case,np,crosstraffic,status,simulated_s,wall_s" >"$here/growth.csv"
  for case in ${GROWTH_CASES:-stencil7-scrambled stencil27-scrambled}; do
    for np in ${GROWTH_NP:-256 512 1024}; do
      read -r racks per grid <<<"$(fig5_shape "$np")"
      tleaf="tleaf 4 $racks 1000 $per 100 2 10 4 1"
      for r in $(seq 0 $((np - 1))); do echo "rank $r=node$((r / 8)) slot=$((r % 8 / 4)):$((r % 4))"; done >"$dir/packed$np.rf"
      for cross in 1 0; do
        # shellcheck disable=SC2046  # the workload's arguments, split as words
        simulate --topology "$tleaf" --rankfile "$dir/packed$np.rf" --np "$np" --no-traffic "${common[@]}" "${fig5_smpi[@]}" \
          --smpi smpi/allreduce=rdb --smpi network/crosstraffic=$cross --timeout "${GROWTH_TIMEOUT:-1800}" \
          --name "growth-$case-np$np-cross$cross" -o "$dir/$case-np$np-cross$cross.h5" -- mpimon-workload-smpi \
          $(fig5_args "$case" "$grid" | sed -E 's/--iterations [0-9]+/--iterations 1/')
        "$mpimon" show "$dir/$case-np$np-cross$cross.h5" --csv "$scratch/growth.csv" >/dev/null
        awk -F, -v case="$case" -v np="$np" -v c="$cross" 'NR == 2 { print case "," np "," c "," $3 "," $6 "," $7 }' \
          "$scratch/growth.csv" >>"$here/growth.csv"
      done
    done
  done
}

compact() {
  mkdir -p "$here/compact" "$here/platforms"
  rm -f "$here"/compact/*.h5
  local full name settings
  for full in "$runs"/trust-*.h5 "$runs"/why-*.h5 "$runs"/fig4a-np*-*bit*.h5 "$runs"/fig5-*-np*.h5; do
    [ -s "$full" ] || continue
    case $full in *-recorded.h5) continue ;; esac
    name=$(basename "${full%.h5}")
    settings=()
    # This machine's paths out of the configuration (the compact file keeps none).
    while IFS= read -r -d '' line; do settings+=(--set "$line"); done < <(/usr/bin/python3 - "$full" <<'EOF'
import re, sys, h5py
config = {k: (v.decode() if isinstance(v, bytes) else str(v)) for k, v in h5py.File(sys.argv[1], "r")["configuration"].attrs.items()}
unpath = lambda text: re.sub(r"/[^\s:]*/([^/\s:]+)", r"\1", text)
for key, value in config.items():
    if key.startswith("arm_") or key in ("programs", "platform_file", "modelled_traffic") or key.startswith("traffic_"):
        sys.stdout.write(f"{key}={unpath(value)}\0")
EOF
    )
    # A trust case is drawn beside its measured panel: its name says which it is.
    case $name in trust-fig*) settings+=(--set "case=${name#trust-fig*-} SIMULATED") ;; esac
    "$mpimon" compact "$full" -o "$here/compact/$name-compact.h5" "${settings[@]}" >/dev/null
    cp "${full%.h5}.platform.xml" "$here/platforms/$name.platform.xml"
  done
  /usr/bin/python3 "$here/summarise.py" "$here" >"$here/summary.md"
  # The figures of what was run (each redrawn by one of these commands from compact/ alone).
  if ls "$here"/compact/trust-fig5-* >/dev/null 2>&1; then
    # Measured (../measured's compact files, left) and simulated (right) panels of each comparison.
    local figure c files
    for figure in fig5 fig4a; do
      files=()
      for c in $(ls "$here"/compact/trust-$figure-*-compact.h5 | sed "s|.*/trust-$figure-||; s|-compact.h5||"); do
        shopt -s nullglob  # A is packed (Fig. 5) or pml (Fig. 4a)
        files+=("$measured"/compact/$figure-$c-{packed,pml}-vs-*-compact.h5 "$here/compact/trust-$figure-$c-compact.h5")
        shopt -u nullglob
      done
      "$mpimon" plot placement "${files[@]}" --columns 2 -o "$here/trust-$figure" \
        --title "$figure: measured on the emulated cluster (left), SIMULATED on its platform (right)"
    done
  fi
  if ls "$here"/compact/fig4a-* >/dev/null 2>&1; then /usr/bin/python3 "$here/plot_fig4a.py" "$here"; fi
  if ls "$here"/compact/fig5-* >/dev/null 2>&1; then
    "$mpimon" plot placement "$here"/compact/fig5-*-compact.h5 -o "$here/fig5" \
      --title "Fig. 5 SIMULATED at scale (fat tree, 10 Gbit/s, communication only)"
  fi
}

conditions() {
  {
    echo "part: $1 ($(date -u +%FT%TZ), $2 s here)"
    echo "  SimGrid: $(smpirun -version 2>&1 | head -n 1); Open MPI (recordings): $(mpirun --version | head -n 1)"
    echo "  load average now: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores, shared"
    local set
    set=$(env | grep -E '^(FIG5|FIG4A|GROWTH)_' | sort | tr '\n' ' ')
    [ -z "$set" ] || echo "  settings: $set"
  } >>"$here/conditions.txt"
}

for part in "${parts[@]}"; do
  start=$SECONDS
  case $part in
    trust) trust ;;
    fig4a) fig4a ;;
    fig4a-live) fig4a_live ;;
    why) why ;;
    fig5) fig5 ;;
    growth) growth ;;
    compact) compact ;;
    *) echo "run.sh: unknown part '$part' (trust, why, fig4a, fig4a-live, fig5, growth, compact)" >&2; exit 2 ;;
  esac
  [ "$part" = compact ] || conditions "$part" $((SECONDS - start))
  echo "results/placement/simulated: $part done in $((SECONDS - start)) s"
done
