#!/usr/bin/env bash
# RR-9038's Table 1 and a placement for real applications (Debian 12's packages) on an emulated
# cluster (docs/cluster.md): LAMMPS (lmp, Lennard-Jones melt), GROMACS (gmx_mpi mdrun, SPC water
# with PME on separate PME ranks) and Quantum ESPRESSO (pw.x, bulk silicon: plane waves, 3-D FFTs
# whose transposes are all-to-all). For each link rate (RATES) a cluster of NODES x SLOTS is built,
# its links measured (mpimon probe), and for each application:
#   table1:    monitoring off against on in launch pairs (mpimon bench app, the application's own
#              time through --time-regex): runs/table1-APP-RATE.h5, its row in table1.csv;
#   placement: one monitored run (mpimon record), then mpimon place --hostfile: packed (mpirun's
#              own order, what table1 ran), place's default choice (--objective hop-bytes) and
#              --objective time's (with the probed links), each with its modelled cost and predicted
#              seconds (json/); each choice that differs from packed is timed against packed by
#              mpimon bench placement (monitoring off): placement.csv.
# Then summary: README.md's generated part (summarise.py) from the CSVs.
# Needs root and the packages lammps, gromacs, quantum-espresso, quantum-espresso-data (ci/install-deps.sh
# installs the first two; this script installs the others with apt-get when they are missing).
# Usage: results/apps/real/run.sh [BUILD_DIR] [PART...]
#   PART: measure (table1 and placement at every rate), nodes (the timed placements again, every rank
#   free on this host's CPUs: see nodes_only), records (the recordings' output into records/),
#   figure (compact files and mpimon plot placement), summary; default: all five.
# Environment: APPS ("lammps gromacs qe"), RATES ("100mbit 1gbit"), PAIRS (4, launch pairs of each
# comparison), NODES (4), SLOTS (4), CLUSTER_NAME (realappsPID).
# Writes next to this script: runs/ (full results files and recordings: not committed, they hold
# this machine's paths), json/, records/, traffic/, compact/, links-RATE.json, table1.csv, table1-launches.csv, placement.csv,
# conditions.txt; summary rewrites README.md between its "generated" markers.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build}" && pwd)
shift $(($# > 0 ? 1 : 0))
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(measure records nodes figure summary)
mpimon=$build/cli/mpimon
apps=${APPS:-lammps gromacs qe} rates=${RATES:-100mbit 1gbit} pairs=${PAIRS:-4}
nodes=${NODES:-4} slots=${SLOTS:-4} np=$((${NODES:-4} * ${SLOTS:-4}))
name=${CLUSTER_NAME:-realapps$$} cluster_is_up=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
scratch=$(mktemp -d) child=
source "$here/../../interruptible.sh" # interruptible COMMAND...; the traps that stop it, the cluster, $scratch

# ---- The applications: program, inputs, the regular expression of their own time ----------------

# app_command APP: the command line (run in the application's working directory).
app_command() {
  case $1 in
    # -log none: the output goes to the screen only; "Loop time of T on N procs" is the run's time.
    lammps) echo "lmp -in in.lj -log none" ;;
    # 12 PP ranks (domain decomposition) and 4 PME ranks; no dynamic load balancing and no PME tuning,
    # so that every launch (and the recording) sends the same pattern; one OpenMP thread a rank.
    gromacs) echo "gmx_mpi -quiet -nobackup mdrun -s md.tpr -npme 4 -dlb no -notunepme -ntomp 1 -pin off" ;;
    # One pool (-nk 1) and serial subspace diagonalisation (-nd 1): the plane waves and FFT grid
    # spread over all ranks, each 3-D FFT a transpose by all-to-all.
    qe) echo "pw.x -nk 1 -nd 1 -in si.in" ;;
  esac
}

# app_regex APP: the application's own time in its output (bench app --time-regex: the first group, seconds).
app_regex() {
  case $1 in
    lammps) echo 'Loop time of ([0-9.e+-]+) on' ;;
    # mdrun's summary: "Time: CORE_T WALL_T PERCENT"; the wall time of its run (ns/day is its inverse).
    gromacs) echo 'Time:[ ]+[0-9.]+[ ]+([0-9.]+)' ;;
    # The SCF's wall time: the total (PWSCF) is printed as 1m23.45s above a minute, which one group
    # cannot read as seconds; the electrons clock is always in seconds.
    qe) echo 'electrons[ ]+:[ ]+[0-9.]+s CPU[ ]+([0-9.]+)s WALL' ;;
  esac
}

# prepare APP DIR: the application's inputs into DIR (GROMACS's run input generated with its tools).
prepare() {
  local app=$1 dir=$2
  mkdir -p "$dir"
  case $app in
    lammps) cp "$here/inputs/in.lj" "$dir/" ;;
    gromacs)
      cp "$here/inputs/md.mdp" "$here/inputs/topol.top" "$dir/"
      (cd "$dir" && gmx_mpi -quiet solvate -cs spc216.gro -box 4 4 4 -o water.gro -p topol.top &&
        gmx_mpi -quiet grompp -f md.mdp -c water.gro -p topol.top -o md.tpr) >"$dir/prepare.log" 2>&1 ||
        { cat "$dir/prepare.log" >&2; exit 1; }
      ;;
    qe) cp "$here/inputs/si.in" "$dir/" ;;
  esac
}

require_packages() {
  local missing=() pkg
  for pkg in lammps gromacs quantum-espresso quantum-espresso-data; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] || DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
}

# ---- The cluster and its links -----------------------------------------------------------------

cluster() {
  local rate=$1
  if [ "$cluster_is_up" = 1 ]; then "$mpimon" cluster down --name "$name" >/dev/null; fi
  cluster_is_up=1
  "$mpimon" cluster up --nodes "$nodes" --slots "$slots" --rate "$rate" --name "$name" >/dev/null
  launcher=$("$mpimon" cluster launcher --name "$name")
  hostfile=$("$mpimon" cluster hostfile --name "$name")
  topology=${nodes}x1x$slots
  [ "${2:-}" = noprobe ] && return
  interruptible "$mpimon" probe --topology "$topology" --launcher "$launcher" --hostfile "$hostfile" \
    -o "$here/links-$rate.json" >/dev/null
  sed -i "s|$here/||g" "$here/links-$rate.json"
}

# ---- Table 1 -----------------------------------------------------------------------------------

table1() {
  local app=$1 rate=$2 work=$3 out=$here/runs/table1-$1-$2
  local regex command
  regex=$(app_regex "$app") command=$(app_command "$app")
  rm -rf "$out.h5" "$out.h5.logs"
  # shellcheck disable=SC2086
  interruptible "$mpimon" bench app --launcher "$launcher" --np "$np" --pairs "$pairs" --workdir "$work" \
    --timeout 900 --name "$app" --time-regex "$regex" -o "$out.h5" -- $command
  "$mpimon" show "$out.h5" --csv "$out.csv" --launches-csv "$out-launches.csv" >/dev/null
  # The row and the launches, the link rate in front, into the committed tables.
  append_csv "$out.csv" "$here/table1.csv" rate "$rate"
  append_csv "$out-launches.csv" "$here/table1-launches.csv" rate "$rate"
}

# append_csv FROM TO NAME VALUE: FROM's rows appended to TO after a first column NAME = VALUE (TO's
# header written when TO is new; FROM's columns must be TO's).
append_csv() {
  python3 - "$@" <<'EOF'
import csv, os, sys
source, target, name, value = sys.argv[1:]
rows = list(csv.reader(open(source)))
new = not os.path.exists(target) or os.path.getsize(target) == 0
if not new and next(csv.reader(open(target))) != [name] + rows[0]:
    sys.exit(f"run.sh: the columns of {source} are not those of {target}")
with open(target, "a", newline="") as out:
    writer = csv.writer(out, lineterminator="\n")
    if new:
        writer.writerow([name] + rows[0])
    writer.writerows([value] + row for row in rows[1:])
EOF
}

# forget APP RATE: the rows of an earlier measurement of APP at RATE out of the committed tables.
forget() {
  python3 - "$here" "$@" <<'EOF'
import csv, os, sys
here, app, rate = sys.argv[1:]
for name in ("table1.csv", "table1-launches.csv", "placement.csv", "placement-launches.csv"):
    path = os.path.join(here, name)
    if not os.path.exists(path):
        continue
    header, *rows = list(csv.reader(open(path)))
    def ours(row):
        fields = dict(zip(header, row))
        if "comparison" in fields:
            return fields["comparison"].startswith(f"{app}-{rate}-")
        return fields["app"] == app and fields["rate"] == rate
    with open(path, "w", newline="") as out:
        csv.writer(out, lineterminator="\n").writerows([header] + [r for r in rows if not ours(r)])
EOF
}

# ---- Placement ----------------------------------------------------------------------------------

# place APP RATE ARM RECORD OPTIONS...: runs/APP-RATE-ARM.rf and json/APP-RATE-ARM.json (paths made relative),
# and the table place prints: runs/APP-RATE-ARM.txt.
place() {
  local tag=$1-$2-$3 record=$4
  shift 4
  "$mpimon" place "$record" --hostfile "$hostfile" --links "$here/links-$rate.json" "$@" \
    --rankfile "$here/runs/$tag.rf" --json "$here/json/$tag.json" >"$here/runs/$tag.txt"
  sed -i "s|$here/||g" "$here/json/$tag.json"
}

placement() {
  local app=$1 rate=$2 work=$3 record=$here/runs/record-$1-$2.h5 regex command arm
  regex=$(app_regex "$app") command=$(app_command "$app")
  rm -f "$record"
  # shellcheck disable=SC2086
  (cd "$work" && interruptible "$mpimon" record --launcher "$launcher" --np "$np" -o "$record" -- $command) \
    >"$here/runs/record-$app-$rate.txt" 2>&1 || { cat "$here/runs/record-$app-$rate.txt" >&2; exit 1; }
  place "$app" "$rate" packed "$record" --method packed
  place "$app" "$rate" hop-bytes "$record"
  place "$app" "$rate" time "$record" --objective time
  for arm in hop-bytes time; do
    local out=$here/runs/placement-$app-$rate-packed-vs-$arm load_before='' load_after=
    rm -rf "$out.h5" "$out.h5.logs" "$out.csv"
    if cmp -s "$here/runs/$app-$rate-packed.rf" "$here/runs/$app-$rate-$arm.rf"; then
      echo "$app $rate: the $arm mapping is packed: not timed"
    elif [ "$arm" = time ] && cmp -s "$here/runs/$app-$rate-hop-bytes.rf" "$here/runs/$app-$rate-time.rf"; then
      echo "$app $rate: the time mapping is the hop-bytes one: timed once"
    else
      load_before=$(cut -d' ' -f1 /proc/loadavg)
      # shellcheck disable=SC2086
      interruptible "$mpimon" bench placement --launcher "$launcher" --np "$np" --pairs "$pairs" --workdir "$work" \
        --timeout 900 --name "$app" --time-regex "$regex" -o "$out.h5" \
        --rankfile "$here/runs/$app-$rate-packed.rf" --rankfile "$here/runs/$app-$rate-$arm.rf" -- $command
      load_after=$(cut -d' ' -f1 /proc/loadavg)
      "$mpimon" show "$out.h5" --csv "$out.csv" >/dev/null
      "$mpimon" show "$out.h5" --launches-csv "$out-launches.csv" >/dev/null
      append_csv "$out-launches.csv" "$here/placement-launches.csv" comparison "$app-$rate-packed-vs-$arm"
    fi
    placement_row "$app" "$rate" "$arm" "$out.csv" "$load_before" "$load_after" >>"$here/placement.csv"
  done
  "$mpimon" export pairs "$record" -o "$here/traffic/$app-$rate.csv" >/dev/null
}

# placement_row APP RATE ARM MEASURED.csv LOAD_BEFORE LOAD_AFTER: one row of placement.csv: packed (A)
# against ARM (B), their modelled costs and predicted seconds from place's reports (json/), what
# place said of its choice, and the times measured in launch pairs (empty when not timed).
placement_row() {
  python3 - "$here" "$@" <<'EOF'
import csv, json, os, sys
here, app, rate, arm, measured, load_before, load_after = sys.argv[1:]
def chosen(name):
    report = json.load(open(f"{here}/json/{app}-{rate}-{name}.json"))
    return next(m for m in report["methods"] if m["method"] == report["chosen"]), report["chosen"]
(a, _), (b, method) = chosen("packed"), chosen(arm)
said = [line.strip() for line in open(f"{here}/runs/{app}-{rate}-{arm}.txt")
        if line.startswith(("Packed (ranks in order) is already", "Chosen:", "Objective time kept"))]
times = dict.fromkeys(("A_mean_s", "B_mean_s", "difference_s", "difference_ci_low_s", "difference_ci_high_s"), "")
times["pairs"] = "0"
if os.path.exists(measured):
    times = next(csv.DictReader(open(measured)))
same = open(f"{here}/runs/{app}-{rate}-packed.rf").read() == open(f"{here}/runs/{app}-{rate}-{arm}.rf").read()
csv.writer(sys.stdout, lineterminator="\n").writerow(
    [app, rate, arm, method, int(same), a["cost"], b["cost"], a["predicted_seconds"], b["predicted_seconds"]]
    + [times[k] for k in ("A_mean_s", "B_mean_s", "difference_s", "difference_ci_low_s", "difference_ci_high_s", "pairs")]
    + [load_before, load_after, " ".join(said)])
EOF
}

conditions() {
  {
    echo "rate $1: $2 to $(date -u +%FT%TZ)"
    echo "  Open MPI: $(mpirun --version | head -n 1); $(dpkg-query -W -f '${Package} ${Version}; ' lammps gromacs quantum-espresso)"
    echo "  monitoring components: $(ompi_info --parsable | sed -n 's/^mca:\(coll\|osc\|pml\):monitoring:version:.*/\1/p' | sort -u | tr '\n' ' ')"
    echo "  cluster: $nodes emulated nodes (mpimon cluster) x $slots slots, links tbf $1, no added latency (no netem); np $np"
    echo "  host: $(nproc) cores shared with other jobs; load average (1, 5, 15 min) at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  } >>"$here/conditions.txt"
}

measure() {
  require_packages
  mkdir -p "$here/runs" "$here/json" "$here/traffic"
  [ -s "$here/placement.csv" ] || echo "app,rate,arm,method,same_as_packed,modelled_packed,modelled_arm,predicted_packed_s,predicted_arm_s,mean_packed_s,mean_arm_s,arm_minus_packed_s,ci95_low_s,ci95_high_s,pairs,load_before,load_after,place_says" >"$here/placement.csv"
  local rate app work started
  for rate in $rates; do
    started=$(date -u +%FT%TZ)
    cluster "$rate"
    for app in $apps; do
      work=$scratch/$app-$rate
      forget "$app" "$rate"
      prepare "$app" "$work"
      table1 "$app" "$rate" "$work"
      placement "$app" "$rate" "$work"
    done
    conditions "$rate" "$started"
  done
  "$mpimon" cluster down --name "$name" >/dev/null
  cluster_is_up=0
}

# nodes: each comparison that measure timed, again with the rankfiles' cores collapsed onto this host's
# CPUs (slot=0:0-C, C = its last CPU): every rank on the node its rankfile names, free to run on
# any CPU, as in Table 1's launches (--bind-to none). The emulated nodes share this host's CPUs, so
# the cores a rankfile names are not the node's: mpirun binds slots 0 and 1 of every node to CPUs 0
# and 1 and leaves the others unbound, and a mapping changes which ranks are pinned.
# placement-nodes.csv, the columns of placement.csv.
nodes_only() {
  local rate app arm work regex command out cpus started
  cpus=0:0-$(($(nproc) - 1))
  [ -s "$here/placement-nodes.csv" ] || head -n 1 "$here/placement.csv" >"$here/placement-nodes.csv"
  for rate in $rates; do
    started=$(date -u +%FT%TZ)
    cluster "$rate" noprobe
    for app in $apps; do
      for arm in hop-bytes time; do
        [ -s "$here/runs/placement-$app-$rate-packed-vs-$arm.csv" ] || continue
        python3 - "$here/placement-nodes.csv" "$app" "$rate" "$arm" <<'EOF'
import csv, sys
path, *key = sys.argv[1:]
header, *rows = list(csv.reader(open(path)))
with open(path, "w", newline="") as out:
    csv.writer(out, lineterminator="\n").writerows([header] + [r for r in rows if r[:3] != key])
EOF
        work=$scratch/$app-$rate-nodes
        rm -rf "$work"
        prepare "$app" "$work"
        regex=$(app_regex "$app") command=$(app_command "$app")
        out=$here/runs/nodes-$app-$rate-packed-vs-$arm
        for a in packed "$arm"; do
          sed "s/slot=[0-9:]*$/slot=$cpus/" "$here/runs/$app-$rate-$a.rf" >"$here/runs/nodes-$app-$rate-$a.rf"
        done
        rm -rf "$out.h5" "$out.h5.logs" "$out.csv"
        local load_before load_after
        load_before=$(cut -d' ' -f1 /proc/loadavg)
        # shellcheck disable=SC2086
        interruptible "$mpimon" bench placement --launcher "$launcher" --np "$np" --pairs "$pairs" --workdir "$work" \
          --timeout 900 --name "$app" --time-regex "$regex" -o "$out.h5" \
          --rankfile "$here/runs/nodes-$app-$rate-packed.rf" --rankfile "$here/runs/nodes-$app-$rate-$arm.rf" -- $command
        load_after=$(cut -d' ' -f1 /proc/loadavg)
        "$mpimon" show "$out.h5" --csv "$out.csv" >/dev/null
        placement_row "$app" "$rate" "$arm" "$out.csv" "$load_before" "$load_after" >>"$here/placement-nodes.csv"
      done
    done
    echo "nodes $rate: $started to $(date -u +%FT%TZ)" >>"$here/conditions.txt"
  done
  "$mpimon" cluster down --name "$name" >/dev/null
  cluster_is_up=0
}

# figure: one compact results file per timed comparison (mpimon compact: no paths, the modelled
# costs and predicted seconds of both mappings added), and mpimon plot placement of them all:
# compact/, placement-measured.png/.svg.
figure() {
  mkdir -p "$here/compact"
  rm -f "$here"/compact/*-compact.h5
  local full base app rate arm kind settings line
  for full in "$here"/runs/placement-*-packed-vs-*.h5 "$here"/runs/nodes-*-packed-vs-*.h5; do
    [ -s "$full" ] || continue
    base=$(basename "$full" .h5)
    kind=${base%%-*} arm=${base##*-vs-}
    # shellcheck disable=SC2001
    read -r app rate <<<"$(sed 's/^[a-z]*-\([a-z]*\)-\([0-9]*[kmg]bit\)-.*/\1 \2/' <<<"$base")"
    settings=()
    while IFS= read -r -d '' line; do settings+=(--set "$line"); done < <(python3 - "$here" "$app" "$rate" "$arm" "$kind" <<'EOF'
import json, sys
here, app, rate, arm, kind = sys.argv[1:]
def chosen(name):
    report = json.load(open(f"{here}/json/{app}-{rate}-{name}.json"))
    return next(m for m in report["methods"] if m["method"] == report["chosen"])
a, b = chosen("packed"), chosen(arm)
case = f"{app} {rate}" + (", every rank free on the CPUs" if kind == "nodes" else "")
for key, value in (("case", case), ("arm_A_name", "packed"), ("arm_B_name", arm), ("modelled_A", a["cost"]),
                   ("modelled_B", b["cost"]), ("predicted_A", a["predicted_seconds"]),
                   ("predicted_B", b["predicted_seconds"]), ("link_rate", rate)):
    sys.stdout.write(f"{key}={value}\0")
EOF
    )
    # This machine's paths out of the configuration (the compact file keeps none).
    while IFS= read -r -d '' line; do settings+=(--set "$line"); done < <(/usr/bin/python3 - "$full" <<'EOF'
import re, sys, h5py
config = {k: (v.decode() if isinstance(v, bytes) else str(v)) for k, v in h5py.File(sys.argv[1], "r")["configuration"].attrs.items()}
unpath = lambda text: re.sub(r"/[^\s:]*/([^/\s:]+)", r"\1", text)
for key in ("arm_A", "arm_B", "mca", "programs"):
    sys.stdout.write(f"{key}={unpath(config[key])}\0")
sys.stdout.write("launcher=the launcher of mpimon cluster (mpirun through ip netns exec)\0workdir=\0")
EOF
    )
    "$mpimon" compact "$full" -o "$here/compact/$base-compact.h5" "${settings[@]}" >/dev/null
  done
  "$mpimon" plot placement "$here"/compact/*-compact.h5 -o "$here/placement-measured" \
    --title "Real applications: place's mappings against packed, measured"
}

# records: each recording's output (the application's own lines, then mpimon record's summary of
# the matrices) into records/, this machine's paths made relative.
records() {
  mkdir -p "$here/records"
  local text
  for text in "$here"/runs/record-*.txt; do
    [ -e "$text" ] || continue
    sed "s|$here/||g" "$text" >"$here/records/$(basename "$text" .txt | sed 's/^record-//').txt"
  done
}

for part in "${parts[@]}"; do
  start=$SECONDS
  case $part in
    measure) measure ;;
    nodes) nodes_only ;;
    figure) figure ;;
    records) records ;;
    summary) python3 "$here/summarise.py" "$here" ;;
    *) echo "run.sh: unknown part '$part' (measure, records, nodes, figure, summary)" >&2; exit 2 ;;
  esac
  echo "results/apps/real: $part done in $((SECONDS - start)) s"
done
