#!/usr/bin/env bash
# Placement inside the run, measured (docs/reorder.md): libmpimon-reorder on an emulated cluster of
# NODES nodes (docs/cluster.md), links at each RATE, launch pairs with 95 % CIs (mpimon bench
# placement --arm), monitoring off in every timed launch.
#   stencil:  mpimon-workload's 7-point stencil (STENCIL_CLASS) on NP ranks launched round-robin over
#             the nodes (--map-by node, as a cyclic srun distribution), on the communicator of
#             MPI_Cart_create(reorder=1) (every neighbour of weight 1): the launcher's order under
#             topo/basic (A) against the library preloaded (B); Open MPI's topo/treematch cannot
#             make a Cartesian communicator (one launch tried, its error kept), so treematch (A)
#             against the library (B) is timed on the same grid declared by
#             MPI_Dist_graph_create_adjacent(reorder=1), each neighbour weighted by its face's area;
#   dynamic:  mpimon-reorder-demo (halos on a scrambled torus, mpimon_reorder from a recording made
#             by `mpimon record` of the same program, the halos again) with the call switched off
#             (A: MPIMON_REORDER=off, it returns a duplicate) against on (B); the time is the
#             second exchange's;
#   cost:     the reordering's own cost: the statistics of MPI_Cart_create(reorder=1) at NPS ranks
#             (REPEAT launches each; gathers, mapping, communicator), the demo's mpimon_reorder
#             from "monitoring" (MPI_T read) on Open MPI 5.0 from the Debian 13 root (ci/ompi5.sh)
#             at OMPI5_NPS ranks, and rank 0's computation alone on synthetic gathers of 64 to 10^4
#             processes (mpimon-reorder-decide-bench: this machine cannot launch 10^4 ranks);
#   compact:  one compact results file per comparison (mpimon compact) into compact/, summary.csv and
#             the figure (plot.py) redrawn from them;
#   gromacs:  GROMACS (Debian's gmx_mpi) with -ddorder cartesian and separate PME ranks on GMX_NODES x
#             GMX_SLOTS emulated nodes at GMX_RATE, launched round-robin (--map-by node) and packed
#             (--map-by slot): the launcher's order (A) against the library preloaded (B), timed by
#             mdrun's own wall time (its Time: line), the library's statistics of every B launch
#             kept (bench placement --arm reorder): gromacs.csv, gromacs-launches.csv, compact/;
#   gromacs-traffic: one monitored run of each launch order and arm (mpimon record): the bytes
#             between nodes (traffic/); README.md's GROMACS figures (gromacs.py) from both.
# The modelled costs of each comparison are the library's own statistics from one launch with
# MPIMON_REORDER_STATS (stats/). Needs root. Usage: results/reorder/run.sh [BUILD_DIR] [PART...]
# (default: stencil dynamic cost compact gromacs gromacs-traffic). Environment: NODES (4), RATES ("1gbit 100mbit"),
# CLUSTER_NAME (reorderPID), PAIRS (8), NP (48), STENCIL_CLASS (medium), STENCIL_ITERATIONS (10; empty: the class's), DEMO_NP (16), DEMO_BYTES (262144), NPS ("16 64 144
# 256"), OMPI5_NPS ("16 64 144"), DECIDE_SIZES ("64,256,1024,4096,10000"), REPEAT (3); an empty
# list skips its runs. GROMACS: GMX_NODES (8), GMX_SLOTS (2), GMX_RATE (100mbit), GMX_PAIRS (12),
# GMX_ORDERS ("node slot"), GMX_BOX (4: nm of water a side), GMX_STEPS (100), GMX_NPME (4).
# Writes next to this script: runs/ (full results, not committed), stats/, compact/, *.csv,
# conditions.txt, reorder.png/.svg.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=$(cd "${1:-build}" && pwd)
shift $(($# > 0 ? 1 : 0))
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(stencil dynamic cost compact gromacs gromacs-traffic)
for part in "${parts[@]}"; do
  case $part in stencil | dynamic | cost | compact | gromacs | gromacs-traffic) ;; *)
    echo "run.sh: unknown part '$part' (stencil, dynamic, cost, compact, gromacs, gromacs-traffic)" >&2
    exit 2
    ;;
  esac
done
mpimon=$build/cli/mpimon workload=$build/validation/mpimon-workload demo=$build/reorder/tests/mpimon-reorder-demo
library=$build/reorder/libmpimon-reorder.so
nodes=${NODES:-4} rates=${RATES:-1gbit 100mbit} pairs=${PAIRS:-8} np=${NP:-48} demo_np=${DEMO_NP:-16}
demo_bytes=${DEMO_BYTES:-262144}
nps=${NPS-16 64 144 256} ompi5_nps=${OMPI5_NPS-16 64 144} repeat=${REPEAT:-3} stencil_class=${STENCIL_CLASS:-medium}
stencil_iterations=${STENCIL_ITERATIONS-10}
decide_sizes=${DECIDE_SIZES-64,256,1024,4096,10000}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export MPIMON_REORDER_LIBRARY=$library
name=${CLUSTER_NAME:-reorder$$} cluster_is_up=0 child=
source "$(dirname "${BASH_SOURCE[0]}")/../interruptible.sh" # interruptible COMMAND...; the traps that stop it and the cluster
mkdir -p "$here/runs" "$here/stats"

# cluster RATE [NODES SLOTS]: the cluster (re)built with its links at RATE, NODES nodes (default:
# $nodes) of SLOTS slots (default: 4); sets launcher.
cluster() {
  if [ "$cluster_is_up" = 1 ]; then "$mpimon" cluster down --name "$name" >/dev/null; fi
  cluster_is_up=1
  "$mpimon" cluster up --nodes "${2:-$nodes}" --slots "${3:-4}" --rate "$1" --name "$name" >/dev/null
  launcher=$("$mpimon" cluster launcher --name "$name")
  rate=$1
}

# modelled CALL FILE: "before,after" of the library's statistics line for CALL in FILE.
modelled() {
  /usr/bin/python3 - "$@" <<'EOF'
import json, sys
call, path = sys.argv[1:]
r = [json.loads(l) for l in open(path) if json.loads(l)["call"] == call][-1]
print(f"{r['cost_before']:.0f},{r['cost_after']:.0f}")
EOF
}

# compare CASE NP A B MODELLED_A MODELLED_B REGEX [KEY=VALUE...] -- COMMAND: A against B in PAIRS launch
# pairs, the MCA settings given to both; one row of measured.csv; the modelled costs and the
# conditions kept for the compact file (runs/*.set).
compare() {
  local label=$1 n=$2 a=$3 b=$4 cost_a=$5 cost_b=$6 regex=$7
  shift 7
  local mca=()
  while [ "$1" != -- ]; do mca+=(--mca "$1"); shift; done
  shift
  local out=$here/runs/$label-$a-vs-$b load_before load_after
  rm -f "$out.h5"
  load_before=$(cut -d' ' -f1 /proc/loadavg)
  interruptible "$mpimon" bench placement --launcher "$launcher" --np "$n" --pairs "$pairs" -o "$out.h5" \
    --arm "$a" --arm "$b" "${mca[@]}" --time-regex "$regex" -- "$@" >"$out.txt"
  cat "$out.txt"
  load_after=$(cut -d' ' -f1 /proc/loadavg)
  "$mpimon" show "$out.h5" --csv "$out.csv" >/dev/null
  # The comparison's row replaces an earlier one of the same case (a part run again).
  /usr/bin/python3 - "$here/measured.csv" "$out.csv" "$label" "$rate" "$n" "$a" "$b" "$cost_a" "$cost_b" "$load_before" \
    "$load_after" <<'EOF'
import csv, sys
table, path, *fields = sys.argv[1:]
row = next(csv.DictReader(open(path)))
times = [row[k] for k in ("A_mean_s", "B_mean_s", "difference_s", "difference_ci_low_s", "difference_ci_high_s", "pairs")]
text = open(table, newline="").read()
end = "\r\n" if "\r\n" in text else "\n"  # the file's own line ends, kept
lines = [l for l in text.splitlines() if l.split(",")[0] != fields[0]]
open(table, "w", newline="").write(end.join(lines + [",".join(fields[:5] + times + fields[5:])]) + end)
EOF
  printf '%s\n' "case=$label" "arm_A_name=$a" "arm_B_name=$b" "modelled_A=$cost_a" "modelled_B=$cost_b" \
    "load_before=$load_before" "load_after=$load_after" "nodes=$nodes" "link_rate=$rate" \
    "mca=${mca[*]}" "ranks=unbound (the nodes share this machine's cores)" >"$out.set"
}

# weights_arrived FILE: the weighted dist graph's modelled costs must differ from the Cartesian
# call's, whose every neighbour weighs 1: equal costs mean the faces' areas never reached the library.
weights_arrived() {
  local cart graph
  cart=$(modelled MPI_Cart_create "$1") graph=$(modelled MPI_Dist_graph_create_adjacent "$1")
  [ "$cart" != "$graph" ] || {
    echo "run.sh: the weighted dist graph's modelled costs equal the Cartesian call's ($graph, $1):" \
      "its weights never reached libmpimon-reorder" >&2
    exit 1
  }
}

stencil() {
  local seconds='"seconds":([0-9.e+-]+)' run=(--workload stencil --class "$stencil_class")
  [ -z "$stencil_iterations" ] || run+=(--iterations "$stencil_iterations")
  for r in $rates; do
    cluster "$r"
    local tag=stencil-$stencil_class${stencil_iterations:+-${stencil_iterations}it}-np$np-$r
    local stats=$here/stats/$tag.json
    rm -f "$stats"
    # The library's model of each declaration, from one launch with its statistics.
    for topology in cart dist-graph; do
      interruptible "$mpimon" run --reorder --stats "$stats" -- "$launcher" -np "$np" --map-by node \
        "$workload" "${run[@]}" --topology-reorder "$topology" >/dev/null
    done
    weights_arrived "$stats"
    IFS=, read -r before after < <(modelled MPI_Cart_create "$stats")
    compare "$tag-cart" "$np" launcher reorder "$before" "$after" "$seconds" rmaps_base_mapping_policy=node topo=basic \
      -- "$workload" "${run[@]}" --topology-reorder cart
    # topo/treematch on the Cartesian grid: one launch, what it says.
    interruptible "$launcher" -np "$np" --map-by node --mca topo treematch "$workload" "${run[@]}" \
      --topology-reorder cart >"$here/runs/$tag-cart-treematch.txt" 2>&1 || true
    grep -v "nodeid from the modex" "$here/runs/$tag-cart-treematch.txt" | sed -n 1,8p >"$here/stats/$tag-cart-treematch.txt"
    IFS=, read -r before after < <(modelled MPI_Dist_graph_create_adjacent "$stats")
    # treematch keeps the order of unbound ranks (reorder.cluster checks it): its modelled cost is
    # the order's, the library's "before".
    compare "$tag-dist-graph" "$np" treematch reorder "$before" "$after" "$seconds" rmaps_base_mapping_policy=node -- \
      "$workload" "${run[@]}" --topology-reorder dist-graph
  done
}

dynamic() {
  local args=(--bytes "$demo_bytes" --iterations 20)
  for r in $rates; do
    cluster "$r"
    local tag=dynamic-np$demo_np-${demo_bytes}B-$r record=$here/runs/dynamic-np$demo_np-$r-first-run.h5
    # The launcher's own order (each node's slots filled in turn), as the scramble expects.
    interruptible "$mpimon" record --launcher "$launcher" --np "$demo_np" -o "$record" -- \
      "$demo" --source none "${args[@]}" >/dev/null
    interruptible "$launcher" -np "$demo_np" "$demo" --source "file:$record" "${args[@]}" >"$here/stats/$tag.txt"
    local before after
    before=$(sed -n 's/^REORDER .*cost_before=\([0-9]*\).*/\1/p' "$here/stats/$tag.txt")
    after=$(sed -n 's/^REORDER .*cost_after=\([0-9]*\).*/\1/p' "$here/stats/$tag.txt")
    compare "$tag" "$demo_np" reorder-off launcher "$before" "$after" 'phase 2: ([0-9.]+) s' -- \
      "$demo" --source "file:$record" "${args[@]}"
  done
}

cost() {
  cluster "${rates%% *}"
  local stats=$here/stats/cost-constructor.json
  [ -z "$nps" ] || rm -f "$stats"
  for n in $nps; do
    for ((i = 0; i < repeat; i++)); do
      interruptible "$mpimon" run --reorder --stats "$stats" -- "$launcher" -np "$n" --map-by node "$workload" \
        --workload stencil --class small --iterations 1 --topology-reorder cart >/dev/null
    done
  done
  [ -z "$ompi5_nps" ] || cost_monitoring
  if [ -n "$decide_sizes" ]; then
    "$build/reorder/mpimon-reorder-decide-bench" --processes "$decide_sizes" --repeat "$repeat" >"$here/decide.csv"
    "$build/reorder/mpimon-reorder-decide-bench" --processes "$decide_sizes" --repeat "$repeat" --bound |
      tail -n +2 >>"$here/decide.csv"
  fi
}

# "monitoring" (MPI_T) on Open MPI 5.0, in the Debian 13 root, through the same cluster; PRRTE's
# slot mapping with oversubscription spreads the ranks over the nodes (each node's slots in turn:
# the order the demo's scramble expects), where a bare --oversubscribe put them all on node0.
cost_monitoring() {
  local root=${MPIMON_CHROOT_DIR:-/var/cache/mpimon/debian13} cluster_name=$name
  : >"$here/stats/cost-monitoring-ompi5.txt"
  if ! MPIMON_BUILD_DIR=$build bash "$repo/ci/ompi5.sh" build mpimon_reorder_ompi5 >"$here/runs/ompi5-build.log" 2>&1; then
    echo "the Debian 13 root could not build the demo (runs/ompi5-build.log): no Open MPI 5 runs" |
      tee "$here/stats/cost-monitoring-ompi5.txt"
    return
  fi
  (
    name=ompi5 suite=trixie chroot_dir=$root out=$here/runs jobs=2 CHROOT_CLUSTERS=1
    export MPIMON_CI_START=${MPIMON_CI_START:-0}
    source "$repo/ci/chroot.sh"
    for n in $ompi5_nps; do
      for ((i = 0; i < repeat; i++)); do
        in_chroot "$root" "cd /mpimon/build && /run/mpimon/cluster/$cluster_name/mpirun -np $n \
          --map-by slot:OVERSUBSCRIBE --mca pml_monitoring_enable 1 reorder/tests/mpimon-reorder-demo \
          --source monitoring --bytes 4096 --iterations 2 | grep '^REORDER' | sed 's/^/np=$n /'" \
          "$build/ompi5/build" /mpimon/build || echo "np=$n failed"
      done
    done
  ) >>"$here/stats/cost-monitoring-ompi5.txt"
}

compact() {
  mkdir -p "$here/compact"
  # One per comparison in runs/, made again; those of comparisons runs/ no longer holds (not
  # committed, from an earlier session) are kept.
  local set settings line
  for set in "$here"/runs/*.set; do
    rm -f "$here/compact/$(basename "${set%.set}")-compact.h5"
    settings=()
    while read -r line; do settings+=(--set "$line"); done <"$set"
    settings+=(--set "launcher=the launcher of mpimon cluster (mpirun through ip netns exec)" --set "workdir=")
    # This machine's paths out of the configuration (the compact file keeps none).
    # The results file read by the one reader of results files (analysis/scripts/mpimon_results.py).
    while IFS= read -r -d '' line; do settings+=(--set "$line"); done < <(PYTHONPATH="$repo/analysis/scripts" \
      /usr/bin/python3 - "${set%.set}.h5" <<'EOF'
import re, sys
from mpimon_results import read_configuration
config, _ = read_configuration(sys.argv[1])
for key in ("arm_A", "arm_B", "mca", "programs"):
    if key in config:
        unpathed = re.sub(r"/[^\s:]*/([^/\s:]+)", r"\1", config[key])
        sys.stdout.write(key + "=" + unpathed + "\0")
EOF
    )
    "$mpimon" compact "${set%.set}.h5" -o "$here/compact/$(basename "${set%.set}")-compact.h5" "${settings[@]}" \
      >/dev/null
  done
  /usr/bin/python3 "$here/plot.py" "$here"
}

conditions() {
  {
    echo "part: $1"
    echo "Open MPI: $(mpirun --version | head -n 1)"
    echo "cluster: $nodes emulated nodes (mpimon cluster), links tbf at $rates, no added latency (no netem);"
    echo "  ranks unbound (the nodes share this machine's $(nproc) cores): libmpimon-reorder places them by node"
    echo "stencil np $np class $stencil_class, demo np $demo_np ($demo_bytes B messages), $pairs launch pairs per comparison,"
    echo "  monitoring off in the timed launches"
    echo "load average (1 min) before/after each comparison: measured.csv; now $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "date: $(date -u +%FT%TZ)"
  } >>"$here/conditions.txt"
}

# gromacs_setup: GROMACS's input in runs/gromacs-input and the settings both GROMACS parts share
# (gmx_* variables, mdrun: the command line), the cluster up at GMX_RATE with GMX_NODES x GMX_SLOTS.
gromacs_setup() {
  gmx_nodes=${GMX_NODES:-8} gmx_slots=${GMX_SLOTS:-2} gmx_rate=${GMX_RATE:-100mbit} gmx_pairs=${GMX_PAIRS:-12}
  gmx_orders=${GMX_ORDERS:-node slot} gmx_box=${GMX_BOX:-4} gmx_steps=${GMX_STEPS:-100} gmx_npme=${GMX_NPME:-4}
  gmx_work=$here/runs/gromacs-input gmx_np=$((gmx_nodes * gmx_slots))
  command -v gmx_mpi >/dev/null || { echo "run.sh gromacs: no gmx_mpi (Debian package gromacs)" >&2; exit 1; }
  rm -rf "$gmx_work"
  gmx_waters=$(bash "$repo/reorder/tests/gromacs_input.sh" "$gmx_work" "$gmx_box" "$gmx_steps")
  # mdrun as reorder.gromacs runs it (docs/reorder.md): the PP + PME grid by MPI_Cart_create(reorder=1)
  # (-ddorder cartesian); no dynamic load balancing and no PME tuning, so that every launch sends
  # the same pattern; one OpenMP thread a rank, no pinning (the nodes share this host's cores).
  mdrun=(gmx_mpi -quiet -nobackup mdrun -s md.tpr -ddorder cartesian -npme "$gmx_npme" -dlb no -notunepme
    -ntomp 1 -pin off)
  cluster "$gmx_rate" "$gmx_nodes" "$gmx_slots"
}

# gromacs: each launch order of GMX_ORDERS timed in GMX_PAIRS launch pairs, the launcher's order
# (A) against libmpimon-reorder preloaded (B); the rows of gromacs.csv (the comparison, with its
# conditions) and gromacs-launches.csv (every launch, with the library's statistics of B's), the
# compact results files, and README.md's GROMACS figures (gromacs.py).
gromacs() {
  local order out load_before load_after started gromacs_version
  gromacs_setup
  gromacs_version=$(dpkg-query -W -f '${Version}' gromacs 2>/dev/null || echo unknown)
  mkdir -p "$here/compact"
  for order in $gmx_orders; do
    out=$here/runs/gromacs-$order
    rm -rf "$out.h5" "$out.h5.logs"
    started=$(date -u +%FT%TZ)
    load_before=$(cut -d' ' -f1-3 /proc/loadavg)
    interruptible "$mpimon" bench placement --launcher "$launcher" --np "$gmx_np" --pairs "$gmx_pairs" \
      --workdir "$gmx_work" --timeout 300 --name "gromacs-$order" --arm launcher --arm reorder \
      --mca "rmaps_base_mapping_policy=$order" --time-regex 'Time:[ ]+[0-9.]+[ ]+([0-9.]+)' -o "$out.h5" \
      -- "${mdrun[@]}" >"$out.txt"
    cat "$out.txt"
    load_after=$(cut -d' ' -f1-3 /proc/loadavg)
    "$mpimon" show "$out.h5" --csv "$out.csv" >/dev/null
    /usr/bin/python3 "$here/gromacs.py" record "$here" "$out.h5" "$out.csv" "order=$order" "rate=$gmx_rate" \
      "nodes=$gmx_nodes" "slots=$gmx_slots" "npme=$gmx_npme" "waters=$gmx_waters" "box_nm=$gmx_box" \
      "steps=$gmx_steps" "dt_ps=$(sed -n 's/^dt *= *//p' "$gmx_work/md.mdp")" "load_before=$load_before" \
      "load_after=$load_after" "started=$started" "ended=$(date -u +%FT%TZ)" \
      "open_mpi=$(mpirun --version | head -n 1)" "gromacs=$gromacs_version" "mdrun=${mdrun[*]}"
    gromacs_compact "$out.h5" "$order"
  done
  /usr/bin/python3 "$here/gromacs.py" summary "$here"
}

# gromacs-traffic: for each launch order of GMX_ORDERS, what crosses between nodes without and with
# the library (gromacs_traffic), then README.md's GROMACS figures (gromacs.py).
gromacs-traffic() {
  local order
  gromacs_setup
  for order in $gmx_orders; do gromacs_traffic "$order" "$gmx_np" "$gmx_work" "${mdrun[@]}"; done
  /usr/bin/python3 "$here/gromacs.py" summary "$here"
}

# gromacs_traffic ORDER NP WORKDIR MDRUN...: what crosses between nodes, launched ORDER without and
# with the library: one monitored run each (mpimon record; the library preloaded through a launcher
# that adds it), its pairs into traffic/gromacs-ORDER-ARM.csv (external + internal bytes, by
# MPI_COMM_WORLD rank), the library's statistics of the recorded run into
# traffic/gromacs-ORDER-reorder.json, and where each rank ran (mpirun --tag-output hostname, the
# same mapping) into traffic/gromacs-ORDER-hosts.txt.
gromacs_traffic() {
  local order=$1 n=$2 work=$3 arm record via rc
  shift 3
  mkdir -p "$here/traffic" "$here/runs/reorder-launcher"
  printf '%s\n' '#!/bin/bash' "exec $launcher -x LD_PRELOAD=$library -x MPIMON_REORDER_STATS=$here/runs/traffic-stats.json \"\$@\"" \
    >"$here/runs/reorder-launcher/mpirun"
  chmod +x "$here/runs/reorder-launcher/mpirun"
  for arm in launcher reorder; do
    record=$here/runs/traffic-gromacs-$order-$arm.h5
    rm -f "$record" "$here/runs/traffic-stats.json"
    via=$launcher rc=0
    [ "$arm" = launcher ] || via=$here/runs/reorder-launcher/mpirun
    cd "$work"  # mdrun's files there
    interruptible "$mpimon" record --launcher "$via" --np "$n" --mca "rmaps_base_mapping_policy=$order" -o "$record" \
      -- "$@" >"$here/runs/traffic-gromacs-$order-$arm.txt" 2>&1 || rc=$?
    cd "$here"
    [ "$rc" = 0 ] || { cat "$here/runs/traffic-gromacs-$order-$arm.txt" >&2; exit 1; }
    "$mpimon" export pairs "$record" -o "$here/traffic/gromacs-$order-$arm.csv" >/dev/null
    [ "$arm" = launcher ] || cp "$here/runs/traffic-stats.json" "$here/traffic/gromacs-$order-reorder.json"
  done
  interruptible "$launcher" -np "$n" --mca rmaps_base_mapping_policy "$order" --tag-output hostname \
    >"$here/runs/hosts-$order.txt"
  sed -n 's/^\[[0-9]*,\([0-9]*\)\]<stdout>:\(.*\)$/\1 \2/p' "$here/runs/hosts-$order.txt" | sort -n \
    >"$here/traffic/gromacs-$order-hosts.txt"
}

# gromacs_compact FULL.h5 ORDER: compact/gromacs-ORDER-compact.h5, without this machine's paths.
gromacs_compact() {
  local line settings=(--set "case=GROMACS -ddorder cartesian, launched --map-by $2" --set "arm_A_name=launcher"
    --set "arm_B_name=reorder" --set "launcher=the launcher of mpimon cluster (mpirun through ip netns exec)"
    --set "workdir=")
  while IFS= read -r -d '' line; do settings+=(--set "$line"); done < <(PYTHONPATH="$repo/analysis/scripts" \
    /usr/bin/python3 - "$1" <<'EOF'
import re, sys
from mpimon_results import read_configuration
config, _ = read_configuration(sys.argv[1])
for key in ("arm_A", "arm_B", "mca", "programs"):
    if key in config:
        sys.stdout.write(key + "=" + re.sub(r"/[^\s:]*/([^/\s:]+)", r"\1", config[key]) + "\0")
EOF
  )
  "$mpimon" compact "$1" -o "$here/compact/gromacs-$2-compact.h5" "${settings[@]}" >/dev/null
}

header="case,rate,np,arm_a,arm_b,mean_a_s,mean_b_s,b_minus_a_s,ci95_low_s,ci95_high_s,pairs,modelled_a,modelled_b,load_before,load_after"
for part in "${parts[@]}"; do
  start=$SECONDS
  case $part in stencil | dynamic) [ -s "$here/measured.csv" ] || echo "$header" >"$here/measured.csv" ;; esac
  "$part"
  case $part in compact | gromacs*) ;; *) conditions "$part" ;; esac
  echo "results/reorder: $part done in $((SECONDS - start)) s"
done
