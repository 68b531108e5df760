#!/usr/bin/env bash
# `mpimon cluster up --slurm` end to end (docs/cluster.md, "Slurm"), as root: munge, slurmctld and
# one slurmd per node come up (sinfo shows every node idle with the cluster's slots as CPUs), a
# second Slurm cluster runs beside it, srun spreads tasks over the nodes, `mpimon record` through
# the cluster's srun (every rank's dump, exact on the demo ring), mpirun inside salloc, and a
# placement applied by Slurm: `mpimon place --slurm-hostfile` on random mappings, each rank
# checked against the mapping file (node from its hostname, core from the map_cpu entry of its
# local id: Slurm's own assignment, SLURM_LOCALID and SLURM_CPU_BIND_LIST). `down` leaves no
# daemon, namespace or file. Needs root and Slurm's packages: a skip with the reason elsewhere,
# a failure under CI=true (ci/install-deps.sh installs them).
# Usage: cluster_slurm_test.sh MPIMON DEMO_RING
set -u
mpimon=$1 ring=$2
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"

cannot_run() {
  [ "${CI:-}" == true ] && { echo "FAILED: the Slurm cluster test cannot run here, and CI=true requires it: $1"; exit 1; }
  skip_test "$1"
}
for tool in ip tc unshare munged slurmctld slurmd srun sinfo salloc; do
  command -v "$tool" >/dev/null || cannot_run "$tool is not installed (ci/install-deps.sh installs it)"
done
unshare --net --uts true 2>/dev/null || cannot_run "this process cannot make namespaces (needs root: CAP_SYS_ADMIN)"
ip netns add "mpimon-probe-$$" 2>/dev/null || cannot_run "ip netns add fails here (needs CAP_NET_ADMIN and /run/netns)"
ip netns del "mpimon-probe-$$"

name=slurm$$ second=slurm$$b
trap '"$mpimon" cluster down --name "$name" >/dev/null 2>&1; "$mpimon" cluster down --name "$second" >/dev/null 2>&1; rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cluster() { "$mpimon" cluster "$1" --name "$name" "${@:2}"; }
# The cluster's processes, by the system's tools: those whose command line names its directory.
daemons() { pgrep -f "cluster/$1/" | sort | tr '\n' ' '; }

# --- up: 2 nodes of 2 sockets x 2 cores, Slurm on them.
start=$SECONDS
run cluster up --nodes 2 --node-topology 2x2 --slurm
expect_eq "$rc" 0 "up --slurm: exit code ($err)"
echo "up --slurm: $((SECONDS - start)) s"
expect_eq "$(pgrep -fc "munged.*cluster/$name/")" 1 "up: one munged of the cluster"
expect_eq "$(pgrep -fc "slurmctld -f .*cluster/$name/")" 1 "up: one slurmctld of the cluster"
expect_eq "$(pgrep -fc "slurmd -f .*cluster/$name/")" 2 "up: one slurmd per node"
run cluster run -- sinfo -h -N -o "%N %T %c %X %Y"
expect_eq "$out" $'node0 idle 4 2 2\nnode1 idle 4 2 2' "sinfo: every node idle, CPUs = slots, 2 sockets x 2 cores"
# One fence algorithm for the modex and the barrier of MPI_Init (docs/cluster.md, "One fence
# algorithm"): Slurm's default mix let a rank leave MPI_Init before its peers had left the modex.
run cluster run -- scontrol show config
expect_eq "$(awk '$1 == "PMIxCollFence" { print $3 }' <<<"$out")" "tree" "scontrol: the PMIx plugin's fence algorithm"
run cluster status
expect_contains "$out" "node     2 sockets x 2 cores" "status: the node shape"
expect_contains "$out" "slurm    node0 idle, node1 idle" "status: Slurm's nodes"
srun=$("$mpimon" cluster launcher --srun --name "$name")
expect_eq "$srun" "/run/mpimon/cluster/$name/srun" "launcher --srun"

# A second Slurm cluster beside it: its own daemons, both answer.
run "$mpimon" cluster up --nodes 1 --slots 1 --slurm --name "$second"
expect_eq "$rc" 0 "a second cluster with Slurm: exit code ($err)"
run "$mpimon" cluster run --name "$second" -- srun -n 1 hostname
expect_eq "$out" "node0" "the second cluster runs its own job"

# --- srun across the nodes: each task in its node's namespaces (hostname and address).
run cluster run -- srun -N 2 --ntasks-per-node=2 sh -c 'echo "$SLURM_PROCID $(hostname) $(ip -4 -o addr show dev eth0 | awk "{print \$4}")"'
expect_eq "$(sort <<<"$out" | tr '\n' ' ')" \
  "0 node0 198.18.0.1/16 1 node0 198.18.0.1/16 2 node1 198.18.0.2/16 3 node1 198.18.0.2/16 " "srun: 2 tasks per node"

# --- record through the cluster's srun, 2 ranks per node: the demo ring's dumps hold exactly its
# messages (test_lib.sh), every rank's dump merged.
run "$mpimon" record --launcher "$srun --ntasks-per-node=2" --np 4 --mode 2 --keep-dumps kept -o ring.h5 -- "$ring"
expect_eq "$rc" 0 "record through srun: exit code ($err)"
expect_ring_dumps kept "record through srun"
# The merged file: 4 pairs of 10 messages of 32768 bytes (mpimon show's totals of E).
expect_eq "$("$mpimon" show ring.h5 | awk '$1 == "external" { print $2, $3, $4 }')" "40 1310720 4" \
  "record through srun: the merged file's external messages, bytes and pairs"
expect_contains "$("$mpimon" show ring.h5)" "Open MPI $(ompi_info --version | sed -n 's/^Open MPI v//p')" \
  "record through srun: the Open MPI of the run in its provenance"

# --- validate through srun across the nodes: the job spread over both, at most 2 tasks a node
# (--spread-job alone gives 4 tasks 3 + 1 on nodes of 4 CPUs), its ranks dealt round-robin
# (--distribution=cyclic), checked first from the ranks' own hostnames; then a subset of the suite,
# its matrices exact, and the runs made those --list-runs selects.
spread="$srun --spread-job --ntasks-per-node=2 --distribution=cyclic"
for np in 2 3 4; do
  run $spread -n "$np" sh -c 'echo "$SLURM_PROCID $(hostname)"'
  expect_eq "$(sort <<<"$out" | tr '\n' ' ')" "$(for r in $(seq 0 $((np - 1))); do printf '%d node%d ' "$r" $((r % 2)); done)" \
    "srun $np tasks spread and cyclic: rank r on node r mod 2"
done
cases=(--case p2p --case coll.allreduce --case coll.gather --case workload.cg --np 4)
run "$mpimon" validate --launcher "$spread" "${cases[@]}" --json validate.json
expect_eq "$rc" 0 "validate through srun: exit code ($(grep -E 'FAILS|ERROR' <<<"$out" | head -3))"
expect_contains "$out" " 0 failing" "validate through srun: no run failing"
expect_eq "$(python3 -c 'import json,sys; [print(c["case"], c["np"], c["pml_monitoring_enable"]) for c in json.load(open(sys.argv[1]))["cases"]]' validate.json | sort)" \
  "$("$mpimon" validate --list-runs "${cases[@]}" | sort)" "validate through srun: the runs made are the runs selected"

# --- mpirun inside salloc: Open MPI reads the allocation and starts its daemons through srun.
run cluster run -- salloc -N 2 --ntasks-per-node=2 mpirun --map-by node sh -c 'echo "$OMPI_COMM_WORLD_RANK $(hostname)"'
expect_eq "$rc" 0 "mpirun inside salloc: exit code ($err)"
expect_eq "$(grep '^[0-9]' <<<"$out" | sort | tr '\n' ' ')" "0 node0 1 node1 2 node0 3 node1 " \
  "mpirun --map-by node inside salloc: rank r on node r mod 2"

# --- A placement applied by Slurm, rank by rank. The ring at np 8 fills the 8 cores; random
# mappings (seeds 1-6) through `mpimon place --slurm-hostfile` (the topology from the hostfile).
# Where each rank should run comes from the mapping file (RANK LEAF; node = leaf / 4, core =
# leaf % 4); where it ran from the rank itself: its hostname, and the map_cpu entry Slurm gives its
# local id (task/none here records the binding without applying it: the nodes share 2 cores).
run "$mpimon" record --launcher "$srun -N 2" --np 8 -o ring8.h5 -- "$ring"
expect_eq "$rc" 0 "record at np 8: exit code ($err)"
hostfile=$("$mpimon" cluster hostfile --name "$name")
moved=0 bound=0
for seed in 1 2 3 4 5 6; do
  run "$mpimon" place ring8.h5 --hostfile "$hostfile" --method random --seed "$seed" --mapping-out "m$seed" \
    --slurm-hostfile "h$seed" --rankfile "rf$seed"
  expect_eq "$rc" 0 "place seed $seed: exit code ($err)"
  cpus=$(sed -n 's/^slurm: .* --cpu-bind=map_cpu:\([0-9,]*\) COMMAND$/\1/p' <<<"$out")
  [ -n "$cpus" ] || expect_contains "$out" "takes one list for every node" "seed $seed: no map_cpu, and why"
  bind=()
  [ -n "$cpus" ] && bind=(--cpu-bind=map_cpu:"$cpus") && bound=$((bound + 1))
  run env SLURM_HOSTFILE="$PWD/h$seed" "$mpimon" cluster run --name "$name" -- srun --distribution=arbitrary -n 8 \
    "${bind[@]}" sh -c 'echo "$SLURM_PROCID $(hostname) $SLURM_LOCALID $SLURM_CPU_BIND_LIST"'
  expect_eq "$rc" 0 "seed $seed: srun with the hostfile: exit code ($err)"
  while read -r r leaf; do
    read -r host localid list < <(sed -n "s/^$r //p" <<<"$out")
    expect_eq "$host" "node$((leaf / 4))" "seed $seed: node of rank $r"
    [ "$host" == "node$((r / 4))" ] || moved=1
    if [ -n "$cpus" ]; then
      IFS=, read -r -a entries <<<"$list"
      expect_eq "${entries[$localid]}" "$((leaf % 4))" "seed $seed: core of rank $r (local id $localid, map_cpu $list)"
    fi
  done <"m$seed"
  # The rankfile names the same places (mpirun's view of the same mapping).
  expect_eq "$(sed 's/^rank \([0-9]*\)=\(node[0-9]\) slot=\([0-9]\):\([0-9]\)$/\1 \2 \3 \4/' "rf$seed" |
    awk '{ print $1, substr($2, 5) * 4 + $3 * 2 + $4 }')" "$(cat "m$seed")" "seed $seed: the rankfile names the mapping's leaves"
done
expect_eq "$moved" 1 "some mapping puts a rank elsewhere than srun's block distribution"
check && [ "$bound" -ge 1 ] || fail "no seed gave one map_cpu list: the cores were never checked"

# --- down: no daemon, namespace or file of either cluster is left.
for c in "$name" "$second"; do
  run "$mpimon" cluster down --name "$c"
  expect_eq "$rc" 0 "down $c: exit code ($err)"
  expect_contains "$out" "of the cluster outside its namespaces" "down $c: says it stopped munged"
  expect_eq "$(daemons "$c")" "" "down $c: no process of the cluster left"
  expect_eq "$(ip netns list | grep -c "^mpimon[.]$c[.]")" 0 "down $c: no namespace left"
  check && [ ! -e "/run/mpimon/cluster/$c" ] || fail "down $c: /run/mpimon/cluster/$c left"
done
finish cluster_slurm
