#!/usr/bin/env bash
# RR-9038's Fig. 4a and Fig. 5 MEASURED on an emulated cluster (docs/cluster.md, `mpimon cluster`):
# mappings written by `mpimon place --hostfile` from a monitored run, timed two at a time by
# `mpimon bench placement` in launch pairs (monitoring off), each time beside the modelled cost of
# the same mapping (costed on the PML view).
#   fig4a-npN: a forced binary MPI_Reduce (coll_tuned_reduce_algorithm 4) on NODES nodes of N/NODES
#              slots; A = the PML view's mapping (place's default), B = the PMPI view's
#              (--classes external,coll), round-robin (--method cyclic; not timed where it is the
#              PML view's mapping) and one random mapping (--method random --seed 1); the time is
#              the program's own (seconds per reduce between two barriers).
#   fig5:      16 ranks on NODES nodes: the 7- and 27-point stencils with a scrambled rank order
#              (--scramble 1) and CG (its own rank order); A = packed, B = cyclic, random, TreeMatch,
#              Scotch and place's default; the time is the workload's own report.
# Cases at another RATE than 1gbit carry it in their name (the README's 100 Mbit/s stencils:
# RATE=100mbit FIG5_CASES="stencil7-scrambled stencil27-scrambled" run.sh build fig5 compact).
#   compact:   one compact results file per comparison (mpimon compact, the modelled costs and the
#              conditions added with --set) into compact/, the figures redrawn from them.
#   probe:     the cluster's links (NODES nodes of 4 slots at RATE) measured by mpimon probe:
#              links-RATE.json, read by the two parts below (docs/placement.md, "The time model").
#   predict:   every mapping of the measured comparisons predicted by place's time model with the
#              links of its case's rate (the traffic recorded again on this host where runs/ lacks
#              it; the modelled cost recomputed must equal its report's): predicted.csv, and
#              predicted_A/predicted_B added to the compact files (the figures draw them).
#   objective-fig5, objective-fig4a-npN: place's choice under --objective hop-bytes (A) against
#              --objective time (B), both with links-RATE.json; timed in launch pairs where the
#              rankfiles differ: objective-measured.csv (cases on other than 4 nodes carry -Nnodes).
#   ordered-npN: the ordered model (place --objective time's guard) on a case it was not made on:
#              Open MPI's binomial reduce (coll_tuned_reduce_algorithm 5) of COUNTS integers, the
#              hop-bytes choice (A) against packed, cyclic and random (--seed 1), each mapping
#              predicted in one phase and in order with links-RATE.json (ordered-predicted.csv) and
#              timed in launch pairs (ordered-measured.csv; ITERATIONS reduces per launch, 2).
# Needs root. Usage: results/placement/measured/run.sh [BUILD_DIR] [PART...]
#   PART: fig5 fig4a-np16 fig4a-np32 compact (default: all, in that order); fig4a-npN for another N;
#   probe, predict, objective-fig5, objective-fig4a-npN, ordered-npN (not in the default)
#   (N / NODES slots per node, ITERATIONS per count, e.g. NODES=2 ... fig4a-np8)
# Environment: NODES (4), RATE (1gbit), PAIRS (5), CLUSTER_NAME (measuredPID), COUNTS ("100000 1000000 10000000" integers),
# ITERATIONS_np16 ("20 5 2"), ITERATIONS_np32 ("20 5 1"): reduces per launch for each count;
# FIG5_CASES ("stencil7-scrambled stencil27-scrambled cg"); CASE_TAG: appended to the objective-* cases'
# names, to measure a case again beside its earlier rows (e.g. CASE_TAG=again).
# Writes next to this script: runs/ (full results, not committed), json/, compact/, *.csv, conditions.txt.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build}" && pwd)
shift $(($# > 0 ? 1 : 0))
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(fig5 fig4a-np16 fig4a-np32 compact)
mpimon=$build/cli/mpimon collective=$build/validation/mpimon-run-collective workload=$build/validation/mpimon-workload
nodes=${NODES:-4} rate=${RATE:-1gbit} pairs=${PAIRS:-5} counts=${COUNTS:-100000 1000000 10000000}
name=${CLUSTER_NAME:-measured$$} cluster_is_up=0
# Cases measured at another link rate than 1 Gbit/s carry it in their name (e.g. np16-100000-100mbit).
rate_tag=$([ "$rate" = 1gbit ] || echo "-$rate")
node_tag=$([ "$nodes" = 4 ] || echo "-${nodes}nodes")
case_tag=${CASE_TAG:+-$CASE_TAG}
# fig5_args CASE: the workload's options of a Fig. 5 case.
fig5_args() {
  case $1 in
    stencil7-scrambled) echo "--workload stencil --class medium --iterations 10 --scramble 1" ;;
    stencil27-scrambled) echo "--workload stencil --points 27 --class medium --iterations 10 --scramble 1" ;;
    cg) echo "--workload cg --class small" ;;
    *) return 1 ;;
  esac
}
fig5_cases=${FIG5_CASES:-stencil7-scrambled stencil27-scrambled cg}
for label in $fig5_cases; do
  fig5_args "$label" >/dev/null ||
    { echo "run.sh: unknown FIG5_CASES entry '$label' (stencil7-scrambled, stencil27-scrambled, cg)" >&2; exit 2; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
scratch=$(mktemp -d) child=
source "$(dirname "${BASH_SOURCE[0]}")/../../interruptible.sh" # interruptible COMMAND...; the traps that stop it, the cluster, $scratch
mkdir -p "$here/runs" "$here/json"

# cluster SLOTS: the cluster (re)built with SLOTS per node; sets launcher, hostfile, topology.
cluster() {
  if [ "$cluster_is_up" = 1 ]; then "$mpimon" cluster down --name "$name" >/dev/null; fi
  cluster_is_up=1
  "$mpimon" cluster up --nodes "$nodes" --slots "$1" --rate "$rate" --name "$name" >/dev/null
  launcher=$("$mpimon" cluster launcher --name "$name")
  hostfile=$("$mpimon" cluster hostfile --name "$name")
  topology=${nodes}x1x$1 slots=$1
  # mpirun reads the rankfiles' slots (socket:core) against this node description: SLOTS cores per
  # node; a rank on a core this machine lacks runs unbound (with a warning), the same in every arm.
  rm -f "$scratch/node$1.xml"
  lstopo --input "pack:1 core:$1 pu:1" --of xml "$scratch/node$1.xml"
  node_topology=(--mca "hwloc_base_topo_file=$scratch/node$1.xml")
}

# unpath JSON: the paths of this directory in a placement report made relative (the committed
# reports name no machine's path: the recording, the links file).
unpath() { sed -i "s|$here/||g" "$1"; }

# place TAG ARM RUN.h5 OPTIONS...: runs/TAG-ARM.rf and json/TAG-ARM.json; prints the chosen
# mapping's modelled cost (costed on the PML view, external,internal).
place() {
  local tag=$1 arm=$2 run=$3
  shift 3
  "$mpimon" place "$run" --topology "$topology" --hostfile "$hostfile" "$@" --evaluate-classes external,internal \
    --rankfile "$here/runs/$tag-$arm.rf" --json "$here/json/$tag-$arm.json" >/dev/null
  unpath "$here/json/$tag-$arm.json"
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(next(m["cost"] for m in r["methods"] if m["method"] == r["chosen"]))' \
    "$here/json/$tag-$arm.json"
}

# compare FIGURE CASE A B COST_A COST_B REGEX ITERATIONS MCA... -- COMMAND: A against B in launch pairs;
# one row of FIGURE.csv, the modelled costs and conditions kept for the compact file (runs/*.set).
compare() {
  local figure=$1 label=$2 a=$3 b=$4 cost_a=$5 cost_b=$6 regex=$7 iterations=$8
  shift 8
  local mca=()
  while [ "$1" != -- ]; do mca+=("$1"); shift; done
  shift
  local out=$here/runs/$figure-$label-$a-vs-$b load_before load_after
  rm -f "$out.h5"
  if cmp -s "$here/runs/$figure-$label-$a.rf" "$here/runs/$figure-$label-$b.rf"; then
    echo "$figure $label: $b's rankfile is $a's: not timed" | tee "$out.txt"
    echo "$figure,$label,$np,$a,$b,,,,,,0,$cost_a,$cost_b,$iterations,," >>"$here/$figure-measured.csv"
    return
  fi
  load_before=$(cut -d' ' -f1 /proc/loadavg)
  interruptible "$mpimon" bench placement --launcher "$launcher" --np "$np" --pairs "$pairs" -o "$out.h5" \
    --rankfile "$here/runs/$figure-$label-$a.rf" --rankfile "$here/runs/$figure-$label-$b.rf" \
    "${mca[@]}" "${node_topology[@]}" --mca mpi_yield_when_idle=1 --time-regex "$regex" -- "$@" >"$out.txt"
  cat "$out.txt"
  load_after=$(cut -d' ' -f1 /proc/loadavg)
  "$mpimon" show "$out.h5" --csv "$out.csv" >/dev/null
  python3 - "$out.csv" "$figure" "$label" "$np" "$a" "$b" "$cost_a" "$cost_b" "$iterations" "$load_before" "$load_after" \
    >>"$here/$figure-measured.csv" <<'EOF'
import csv, sys
path, *fields = sys.argv[1:]
row = next(csv.DictReader(open(path)))
times = [row[k] for k in ("A_mean_s", "B_mean_s", "difference_s", "difference_ci_low_s", "difference_ci_high_s", "pairs")]
print(",".join(fields[:5] + times + fields[5:]))
EOF
  printf '%s\n' "figure=$figure" "case=$label" "arm_A_name=$a" "arm_B_name=$b" "modelled_A=$cost_a" "modelled_B=$cost_b" \
    "iterations_per_launch=$iterations" "load_before=$load_before" "load_after=$load_after" "nodes=$nodes" \
    "slots=$slots" "link_rate=$rate" "topology=$topology" >"$out.set"
}

header="figure,case,np,arm_a,arm_b,mean_a_s,mean_b_s,b_minus_a_s,ci95_low_s,ci95_high_s,pairs,modelled_a,modelled_b,iterations,load_before,load_after"
forced=(--mca coll_tuned_use_dynamic_rules=1 --mca coll_tuned_reduce_algorithm=4)

fig4a() {
  np=$1
  cluster $((np / nodes))
  local iterations
  read -ra iterations <<<"$2"
  local i=0
  for count in $counts; do
    local label=np$np-$count$rate_tag record=$here/runs/fig4a-np$np-$count$rate_tag.h5
    # The pattern, recorded once across the nodes (one reduce, monitoring on).
    interruptible "$mpimon" record --launcher "$launcher" --np "$np" -o "$record" "${forced[@]}" -- \
      "$collective" --op reduce --count "$count" --type-size 4 >/dev/null 2>&1
    declare -A cost=()
    cost[pml]=$(place "fig4a-$label" pml "$record")
    cost[pmpi]=$(place "fig4a-$label" pmpi "$record" --classes external,coll)
    cost[cyclic]=$(place "fig4a-$label" cyclic "$record" --method cyclic)
    cost[random]=$(place "fig4a-$label" random "$record" --method random --seed 1)
    for b in pmpi cyclic random; do
      compare fig4a "$label" pml "$b" "${cost[pml]}" "${cost[$b]}" 'seconds per iteration: ([0-9.]+)' "${iterations[$i]}" "${forced[@]}" -- \
        "$collective" --op reduce --count "$count" --type-size 4 --iterations "${iterations[$i]}"
    done
    i=$((i + 1))
  done
}

fig5() {
  np=16
  cluster $((np / nodes))
  local label args record
  for label in $fig5_cases; do
    args=$(fig5_args "$label")
    label=$label$rate_tag
    record=$here/runs/fig5-$label.h5
    # shellcheck disable=SC2086
    interruptible "$mpimon" record --launcher "$launcher" --np "$np" -o "$record" -- "$workload" $args >/dev/null 2>&1
    declare -A cost=()
    for arm in packed cyclic random treematch scotch default; do
      case $arm in
        default) cost[$arm]=$(place "fig5-$label" "$arm" "$record") ;;
        random) cost[$arm]=$(place "fig5-$label" "$arm" "$record" --method random --seed 1) ;;
        *) cost[$arm]=$(place "fig5-$label" "$arm" "$record" --method "$arm") ;;
      esac
    done
    for b in cyclic random treematch scotch default; do
      # shellcheck disable=SC2086
      compare fig5 "$label" packed "$b" "${cost[packed]}" "${cost[$b]}" '"seconds":([0-9.e+-]+)' \
        "$(sed 's/.*--iterations \([0-9]*\).*/\1/;t;s/.*/class/' <<<"$args")" -- "$workload" $args
    done
  done
}

compact() {
  mkdir -p "$here/compact"
  local set full settings line
  for set in "$here"/runs/*.set; do
    full=${set%.set}.h5 settings=()
    [ -s "$full" ] || continue
    rm -f "$here/compact/$(basename "${set%.set}")-compact.h5"
    while read -r line; do settings+=(--set "$line"); done <"$set"
    # This machine's paths out of the configuration (the compact file keeps none).
    while IFS= read -r -d '' line; do settings+=(--set "$line"); done < <(/usr/bin/python3 - "$full" <<'EOF2'
import re, sys, h5py
config = {k: (v.decode() if isinstance(v, bytes) else str(v)) for k, v in h5py.File(sys.argv[1], "r")["configuration"].attrs.items()}
unpath = lambda text: re.sub(r"/[^\s:]*/([^/\s:]+)", r"\1", text)
for key in ("arm_A", "arm_B", "mca", "programs"):
    sys.stdout.write(f"{key}={unpath(config[key])}\0")
sys.stdout.write("launcher=the launcher of mpimon cluster (mpirun through ip netns exec)\0workdir=\0")
EOF2
    )
    "$mpimon" compact "$full" -o "$here/compact/$(basename "${set%.set}")-compact.h5" "${settings[@]}" >/dev/null
  done
  "$mpimon" plot placement "$here"/compact/fig4a-*-compact.h5 -o "$here/fig4a-measured" \
    --title "Fig. 4a measured"
  "$mpimon" plot placement "$here"/compact/fig5-*-compact.h5 -o "$here/fig5-measured" \
    --title "Fig. 5 measured"
  if compgen -G "$here/compact/objective-*-compact.h5" >/dev/null; then
    "$mpimon" plot placement "$here"/compact/objective-*-compact.h5 -o "$here/objective-measured" \
      --title "place --objective hop-bytes (A) against time (B)"
  fi
}

# ---- The time model (docs/placement.md): links measured, predictions, --objective time --------

probe() {
  np=2
  cluster 4
  interruptible "$mpimon" probe --topology "$topology" --launcher "$launcher" --hostfile "$hostfile" \
    "${node_topology[@]}" -o "$here/links-$rate.json"
}

# chosen_field JSON FIELD: the chosen mapping's FIELD in a place report.
chosen_field() {
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(next(m[sys.argv[2]] for m in r["methods"] if m["method"] == r["chosen"]))' "$1" "$2"
}

# case_program FIGURE LABEL: the program and arguments of a case (its label without a rate suffix).
case_program() {
  case $1 in
    fig4a) echo "${forced[*]} -- $collective --op reduce --count $(sed 's/^np[0-9]*-\([0-9]*\).*/\1/' <<<"$2") --type-size 4" ;;
    fig5) echo "-- $workload $(fig5_args "${2%-*bit}")" ;;
  esac
}

predict() {
  local table=$here/predicted.csv
  echo "figure,case,arm,predicted_s,bandwidth_s,latency_s,busiest_bytes,modelled,links" >"$table"
  local figure label np arm case_rate record report map out cost
  while IFS=, read -r figure label np arm; do
    case_rate=$(grep -o '[0-9]*[kmg]bit$' <<<"$label" || echo 1gbit)
    [ -s "$here/links-$case_rate.json" ] || { echo "run.sh: no links-$case_rate.json: run the probe part at RATE=$case_rate" >&2; exit 1; }
    record=$here/runs/$figure-$label.h5
    if [ ! -s "$record" ]; then  # the same program on this host: the same pattern
      # shellcheck disable=SC2046
      OMPI_MCA_rmaps_base_oversubscribe=1 interruptible "$mpimon" record --np "$np" -o "$record" \
        $(case_program "$figure" "$label") >/dev/null 2>&1
    fi
    report=$here/json/$figure-$label-$arm.json map=$scratch/$arm.map out=$scratch/$arm.json
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); m=next(m["mapping"] for m in r["methods"] if m["method"] == r["chosen"]); print("\n".join(f"{i} {l}" for i, l in enumerate(m)))' "$report" >"$map"
    "$mpimon" place "$record" --topology "4x1x$((np / 4))" --links "$here/links-$case_rate.json" --method given \
      --start-mapping "$map" --json "$out" >/dev/null
    cost=$(chosen_field "$out" cost)
    [ "$cost" = "$(chosen_field "$report" cost)" ] ||
      { echo "run.sh: $figure $label $arm: the traffic recorded again costs $cost, its report $(chosen_field "$report" cost)" >&2; exit 1; }
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); m=next(m for m in r["methods"] if m["method"] == r["chosen"]); print(",".join([*sys.argv[2:5], *(str(m[k]) for k in ("predicted_seconds", "predicted_bandwidth_seconds", "predicted_latency_seconds")), str(m["busiest_link"]["bytes"]), str(m["cost"]), sys.argv[5]]))' \
      "$out" "$figure" "$label" "$arm" "links-$case_rate.json" >>"$table"
  done < <(tail -q -n +2 "$here"/fig4a-measured.csv "$here"/fig5-measured.csv |
    awk -F, '{ print $1 "," $2 "," $3 "," $4; print $1 "," $2 "," $3 "," $5 }' | awk '!seen[$0]++')
  # The predictions into the comparisons' settings (runs/*.set, for a later compact part) and into
  # the compact files (the figures draw them).
  local set
  for set in "$here"/runs/fig*.set; do
    [ -e "$set" ] || continue
    sed -i '/^predicted_[AB]=/d' "$set"
    /usr/bin/python3 - "$set" "$table" >>"$set" <<'EOF3'
import csv, sys
config = dict(line.rstrip("\n").split("=", 1) for line in open(sys.argv[1]) if "=" in line)
rows = {(r["figure"], r["case"], r["arm"]): r["predicted_s"] for r in csv.DictReader(open(sys.argv[2]))}
for side in "AB":
    key = (config["figure"], config["case"], config[f"arm_{side}_name"])
    if key in rows:
        print(f"predicted_{side}={rows[key]}")
EOF3
  done
  local compact
  for compact in "$here"/compact/*-compact.h5; do
    /usr/bin/python3 - "$compact" "$table" >"$scratch/set" <<'EOF2'
import csv, sys, h5py
config = {k: (v.decode() if isinstance(v, bytes) else str(v)) for k, v in h5py.File(sys.argv[1], "r")["configuration"].attrs.items()}
rows = {(r["figure"], r["case"], r["arm"]): r["predicted_s"] for r in csv.DictReader(open(sys.argv[2]))}
for side in "AB":
    key = (config["figure"], config["case"], config[f"arm_{side}_name"])
    if key in rows:
        print(f"--set predicted_{side}={rows[key]}")
EOF2
    [ -s "$scratch/set" ] || continue
    # shellcheck disable=SC2046
    "$mpimon" compact "$compact" -o "$scratch/c.h5" $(cat "$scratch/set") >/dev/null && mv "$scratch/c.h5" "$compact"
  done
}

# objective_compare FIGURE LABEL RECORD REGEX ITERATIONS MCA... -- COMMAND: the hop-byte choice (A)
# against --objective time's (B) on the case's traffic, in launch pairs where they differ.
objective_compare() {
  local figure=$1 label=$2 record=$3 regex=$4 iterations=$5 links=$here/links-$rate.json objective
  shift 5
  [ -s "$links" ] || { echo "run.sh: no links-$rate.json: run the probe part first" >&2; exit 1; }
  declare -A cost=() predicted=()
  for objective in hop-bytes time; do
    "$mpimon" place "$record" --topology "$topology" --hostfile "$hostfile" --links "$links" --objective "$objective" \
      --rankfile "$here/runs/objective-$label-$objective.rf" --json "$here/json/objective-$label-$objective.json" >/dev/null
    unpath "$here/json/objective-$label-$objective.json"
    cost[$objective]=$(chosen_field "$here/json/objective-$label-$objective.json" cost)
    predicted[$objective]=$(chosen_field "$here/json/objective-$label-$objective.json" predicted_seconds)
  done
  compare objective "$label" hop-bytes time "${cost[hop-bytes]}" "${cost[time]}" "$regex" "$iterations" "$@"
  local set=$here/runs/objective-$label-hop-bytes-vs-time.set
  [ -s "$set" ] && printf '%s\n' "predicted_A=${predicted[hop-bytes]}" "predicted_B=${predicted[time]}" >>"$set"
  echo "objective,$label,$np,${predicted[hop-bytes]},${predicted[time]},$rate" >>"$here/objective-predicted.csv"
}

objective_fig5() {
  np=16
  cluster $((np / nodes))
  local label args record
  for label in $fig5_cases; do
    args=$(fig5_args "$label")
    label=$label$rate_tag$node_tag$case_tag
    record=$here/runs/objective-$label.h5
    # shellcheck disable=SC2086
    interruptible "$mpimon" record --launcher "$launcher" --np "$np" -o "$record" -- "$workload" $args >/dev/null 2>&1
    # shellcheck disable=SC2086
    objective_compare fig5 "$label" "$record" '"seconds":([0-9.e+-]+)' \
      "$(sed 's/.*--iterations \([0-9]*\).*/\1/;t;s/.*/class/' <<<"$args")" -- "$workload" $args
  done
}

objective_fig4a() {
  np=$1
  cluster $((np / nodes))
  local iterations i=0 count label record
  read -ra iterations <<<"$2"
  for count in $counts; do
    label=np$np-$count$rate_tag$node_tag$case_tag record=$here/runs/objective-$label.h5
    interruptible "$mpimon" record --launcher "$launcher" --np "$np" -o "$record" "${forced[@]}" -- \
      "$collective" --op reduce --count "$count" --type-size 4 >/dev/null 2>&1
    objective_compare fig4a "$label" "$record" 'seconds per iteration: ([0-9.]+)' "${iterations[$i]}" "${forced[@]}" -- \
      "$collective" --op reduce --count "$count" --type-size 4 --iterations "${iterations[$i]}"
    i=$((i + 1))
  done
}

# ordered_predict LABEL ARM RECORD: the mapping of json/ordered-LABEL-ARM.json predicted in one phase
# and in order (--method given --objective time with the probed links), one row of ordered-predicted.csv.
ordered_predict() {
  local label=$1 arm=$2 record=$3 report=$here/json/ordered-$1-$2.json out=$scratch/ordered.json
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); m=next(m["mapping"] for m in r["methods"] if m["method"] == r["chosen"]); print("\n".join(f"{i} {l}" for i, l in enumerate(m)))' \
    "$report" >"$scratch/ordered.map"
  "$mpimon" place "$record" --topology "$topology" --links "$here/links-$rate.json" --method given \
    --start-mapping "$scratch/ordered.map" --objective time --json "$out" >/dev/null
  # The row of the mapping given (the time objective may choose another: packed, if faster).
  python3 -c 'import json,sys; m=next(m for m in json.load(open(sys.argv[1]))["methods"] if m["method"] == "given"); print(",".join(["ordered", *sys.argv[2:5], str(m["predicted_seconds"]), str(m["computed_ordered_seconds"]), sys.argv[5]]))' \
    "$out" "$label" "$np" "$arm" "$rate" >>"$here/ordered-predicted.csv"
}

# ordered_fig4a N "ITERATIONS...": the ordered model on a case it was not designed on (it was made on
# the binary reduce at 32 ranks): Open MPI's binomial reduce (coll_tuned_reduce_algorithm 5) on N
# ranks; A = the hop-bytes choice, B = packed, cyclic and random (--seed 1); every mapping predicted
# in one phase and in order (ordered-predicted.csv), timed in launch pairs (ordered-measured.csv).
ordered_fig4a() {
  np=$1
  cluster $((np / nodes))
  [ -s "$here/links-$rate.json" ] || { echo "run.sh: no links-$rate.json: run the probe part first" >&2; exit 1; }
  local iterations i=0 count label record arm b binomial=(--mca coll_tuned_use_dynamic_rules=1 --mca coll_tuned_reduce_algorithm=5)
  read -ra iterations <<<"$2"
  for count in $counts; do
    label=binomial-np$np-$count$rate_tag$node_tag$case_tag record=$here/runs/ordered-$label.h5
    interruptible "$mpimon" record --launcher "$launcher" --np "$np" -o "$record" "${binomial[@]}" -- \
      "$collective" --op reduce --count "$count" --type-size 4 >/dev/null 2>&1
    declare -A cost=()
    cost[hop-bytes]=$(place "ordered-$label" hop-bytes "$record")
    for arm in packed cyclic; do cost[$arm]=$(place "ordered-$label" "$arm" "$record" --method "$arm"); done
    cost[random]=$(place "ordered-$label" random "$record" --method random --seed 1)
    for arm in hop-bytes packed cyclic random; do ordered_predict "$label" "$arm" "$record"; done
    for b in packed cyclic random; do
      compare ordered "$label" hop-bytes "$b" "${cost[hop-bytes]}" "${cost[$b]}" 'seconds per iteration: ([0-9.]+)' \
        "${iterations[$i]}" "${binomial[@]}" -- "$collective" --op reduce --count "$count" --type-size 4 \
        --iterations "${iterations[$i]}"
    done
    i=$((i + 1))
  done
}

conditions() {
  {
    echo "part: $1"
    echo "Open MPI: $(mpirun --version | head -n 1)"
    echo "cluster: $nodes emulated nodes (mpimon cluster) x $slots slots, links tbf $rate, no added latency (no netem)"
    echo "np $np, $pairs launch pairs per comparison, monitoring off in the timed launches, mpi_yield_when_idle 1"
    echo "bindings: the rankfiles' slots read against a $slots-core node description (hwloc_base_topo_file);"
    echo "  this machine has $(nproc) cores, shared with other jobs: ranks on slots beyond them run unbound"
    echo "load average (1 min) before/after each comparison: $2-measured.csv; now $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "date: $(date -u +%FT%TZ)"
  } >>"$here/conditions.txt"
}

for part in "${parts[@]}"; do
  start=$SECONDS
  case $part in
    fig5 | fig4a-np[0-9]* | objective-*)
      figure=${part%%-*}
      [ -s "$here/$figure-measured.csv" ] || echo "$header" >"$here/$figure-measured.csv"
      ;;&
    objective-*)
      [ -s "$here/objective-predicted.csv" ] ||
        echo "figure,case,np,predicted_hop_bytes_s,predicted_time_s,rate" >"$here/objective-predicted.csv"
      ;;&
    ordered-np[0-9]*)
      figure=ordered
      [ -s "$here/ordered-measured.csv" ] || echo "$header" >"$here/ordered-measured.csv"
      [ -s "$here/ordered-predicted.csv" ] ||
        echo "figure,case,np,arm,predicted_s,ordered_s,rate" >"$here/ordered-predicted.csv"
      ;;&
    ordered-np[0-9]*) ordered_fig4a "${part#ordered-np}" "${ITERATIONS:-2}" ;;
    fig5) fig5 ;;
    probe) probe ;;
    predict) predict ;;
    objective-fig5) objective_fig5 ;;
    objective-fig4a-np[0-9]*) objective_fig4a "${part#objective-fig4a-np}" "${ITERATIONS:-5 2}" ;;
    fig4a-np16) fig4a 16 "${ITERATIONS_np16:-20 5 2}" ;;
    fig4a-np32) fig4a 32 "${ITERATIONS_np32:-20 5 1}" ;;
    fig4a-np[0-9]*) fig4a "${part#fig4a-np}" "${ITERATIONS:-20 5 2}" ;;
    compact) compact ;;
    *) echo "run.sh: unknown part '$part' (fig5, fig4a-npN, compact, probe, predict, objective-fig5, objective-fig4a-npN, ordered-npN)" >&2; exit 2 ;;
  esac
  case $part in compact | predict | probe) ;; *) conditions "$part" "$figure" ;; esac
  echo "results/placement/measured: $part done in $((SECONDS - start)) s"
done
