#!/usr/bin/env bash
# `mpimon cluster` end to end (docs/cluster.md), as root: up, status, hostfile, launcher and down
# leave nothing behind (namespaces, links, /etc/netns, /run/netns, /dev/shm, processes: each
# checked with the system's own tools, never with mpimon); a run killed half-way is cleaned by down;
# a rankfile that `mpimon place --hostfile` writes runs as written (each rank reports the hostname
# it ran on, the expected node is read from the rankfile's text); `mpimon record` across 2 nodes:
# every rank's dump, and the demo ring's counts per pair from its own algorithm.
# Usage: cluster_test.sh MPIMON DEMO_RING WORKLOAD_PROGRAM
set -u
mpimon=$1 ring=$2 workload=$3
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"

# --- Skip, decided before any assertion: namespaces need root and iproute2.
for tool in ip tc unshare; do
  command -v "$tool" >/dev/null || { echo "skipped: $tool is not installed"; exit 77; }
done
unshare --net --uts true 2>/dev/null || { echo "skipped: this process cannot make namespaces (needs root: CAP_SYS_ADMIN)"; exit 77; }
ip netns add "mpimon-probe-$$" 2>/dev/null || { echo "skipped: ip netns add fails here (needs CAP_NET_ADMIN and /run/netns)"; exit 77; }
ip netns del "mpimon-probe-$$"

name=ctest$$
cluster() { "$mpimon" cluster "$1" --name "$name" "${@:2}"; }
trap 'cluster down >/dev/null 2>&1; "$mpimon" cluster down --name "${name}i" >/dev/null 2>&1; rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# What exists on the machine, by the system's tools: this machine's links, and what names this test's
# clusters (other clusters may come and go meanwhile); the processes whose command line names them.
mine() { grep -E "mpimon[.]$name(i)?[.]" | sort | tr '\n' ' '; }
snapshot() {
  echo "netns: $(ip netns list | mine)"
  echo "links: $(ip -o link show | awk -F': ' '{print $2}' | sort | tr '\n' ' ')"
  echo "etc/netns: $(ls /etc/netns 2>/dev/null | mine)"
  echo "run/netns: $(ls /run/netns 2>/dev/null | mine)"
  # vader names its segments after the hostname: the nodes' would hold nodeK (other jobs of this
  # machine may come and go meanwhile).
  echo "dev/shm: $(ls /dev/shm | grep -E '[.]node[0-9]+[.]' | sort | tr '\n' ' ')"
  echo "processes: $(pgrep -f "mpimon[.]$name[.]|cluster/$name/" | tr '\n' ' ')"
}
before=$(snapshot)

# --- up: 2 nodes of 2 slots; the namespaces, their hostnames and addresses, the shaping.
run cluster up --nodes 2 --slots 2 --rate 500mbit
expect_eq "$rc" 0 "up: exit code ($err)"
launcher=$out
expect_eq "$(ip netns list | grep -c "^mpimon[.]$name[.]")" 3 "up: namespaces (2 nodes and the switch) in ip netns list"
for n in 0 1; do
  ns=mpimon.$name.node$n
  expect_eq "$(ip -n "$ns" -4 -o addr show dev eth0 | awk '{print $4}')" "198.18.0.$((n + 1))/16" "node$n: address"
  expect_contains "$(tc -n "$ns" qdisc show dev eth0)" "tbf" "node$n: eth0 shaped"
  expect_contains "$(tc -n "$ns" qdisc show dev eth0)" "rate 500Mbit" "node$n: the rate asked for"
  check && [ -s "/etc/netns/$ns/hosts" ] || fail "node$n: /etc/netns/$ns/hosts"
done
expect_eq "$(ip -n "mpimon.$name.switch" -o link show master br0 | wc -l)" 2 "switch: one port per node on its bridge"
expect_eq "$(ip -o link show | grep -c "port[01]\|br0@\|: br0:")" 0 "up: no link in this machine's own namespace"

run cluster status
expect_eq "$rc" 0 "status: exit code ($err)"
expect_contains "$out" "2 nodes, 2 slots each" "status: the cluster"
expect_contains "$out" "node     1 socket x 2 cores" "status: the node shape"
# hwloc's own count of the node shape the launcher gives Open MPI.
expect_eq "$(hwloc-calc --input "/run/mpimon/cluster/$name/node.xml" --number-of core all)" 2 "node.xml: 2 cores"
run cluster launcher
expect_eq "$out" "$launcher" "launcher: what up printed"
run cluster hostfile
hostfile=$out
expect_eq "$(grep -v '^#' "$hostfile" | awk '{print $1, $2}' | tr '\n' ' ')" "node0 slots=2 node1 slots=2 " "hostfile"
run cluster launcher --srun
expect_eq "$rc" 2 "launcher --srun of a cluster without Slurm: usage error"
expect_contains "$err" "runs no Slurm" "launcher --srun without Slurm: why"
run cluster run -- srun hostname
expect_eq "$rc" 2 "cluster run -- srun without Slurm: usage error"
run cluster up --nodes 2
expect_eq "$rc" 2 "a second up of the same name: usage error"
expect_contains "$err" "mpimon cluster down --name $name" "a second up: what to do"

# --- cluster run: each rank in its node's namespaces (hostname, address).
run cluster run -- mpirun -np 4 sh -c 'echo "rank $OMPI_COMM_WORLD_RANK $(hostname) $(ip -4 -o addr show dev eth0 | awk "{print \$4}")"'
expect_eq "$rc" 0 "run: exit code ($err)"
expect_eq "$(sort <<<"$out" | tr '\n' ' ')" \
  "rank 0 node0 198.18.0.1/16 rank 1 node0 198.18.0.1/16 rank 2 node1 198.18.0.2/16 rank 3 node1 198.18.0.2/16 " \
  "run: ranks by slot over the hostfile's nodes"
run cluster run -- ls
expect_eq "$rc" 2 "run without mpirun: usage error"

# --- record across the 2 nodes: the demo ring's dumps hold exactly its messages (test_lib.sh).
run "$mpimon" record --launcher "$launcher" --np 4 --mode 2 --keep-dumps kept -o ring.h5 -- "$ring"
expect_eq "$rc" 0 "record: exit code ($err)"
expect_ring_dumps kept record
# The merged file, through profile2mat's convention (symmetric: (A[i][j] + A[j][i]) / 2 = 5 messages).
check && mkdir mat && "$mpimon" export mat ring.h5 -o mat >/dev/null 2>&1 || fail "export mat"
expect_eq "$(tr -s ' \n' ' ' <mat/mpimon-demo-ring_msg_external.mat)" "0 5 0 5 5 0 5 0 0 5 0 5 5 0 5 0 " \
  "record: the merged file's external counts"
expect_eq "$(tr -s ' \n' ' ' <mat/mpimon-demo-ring_size_external.mat)" \
  "0 163840 0 163840 163840 0 163840 0 0 163840 0 163840 163840 0 163840 0 " "record: the merged file's external bytes"
# The file names the monitoring components of the Open MPI the launcher runs, as its own ompi_info
# lists them (the cluster's launcher is a script: once, nothing was beside it, and none were recorded).
expected_components=$(ompi_info --parsable | sed -n 's/^mca:\(coll\|osc\|pml\):monitoring:version:.*/\1/p' | sort -u)
check && [ -n "$expected_components" ] || fail "ompi_info lists no monitoring component"
expect_eq "$(h5dump -a /monitoring_components ring.h5 2>/dev/null | sed -n '/DATA {/,/}/p' | grep -o '"[^"]*"' | tr -d '"')" \
  "$expected_components" "record through the cluster's launcher: monitoring_components"

# --- A rankfile of mpimon place, on the cluster's hostfile: each rank runs on the node it names.
# Random mappings (seeds 1-4) of the ring onto 2 nodes x 1 socket x 2 cores; at least one differs
# from mpirun's own placement by slot (ranks 0, 1 on node0), so the check can fail.
moved=0
for seed in 1 2 3 4; do
  run "$mpimon" place ring.h5 --topology 2x1x2 --method random --seed "$seed" --hostfile "$hostfile" --rankfile "rf$seed"
  expect_eq "$rc" 0 "place seed $seed: exit code ($err)"
  run cluster run -- mpirun -np 4 --rankfile "rf$seed" sh -c 'echo "rank $OMPI_COMM_WORLD_RANK $(hostname)"'
  expect_eq "$rc" 0 "rankfile $seed: exit code ($err)"
  for r in 0 1 2 3; do
    want=$(sed -n "s/^rank $r=\([^ ]*\) .*/\1/p" "rf$seed")
    expect_eq "$(sed -n "s/^rank $r //p" <<<"$out")" "$want" "rankfile $seed: node of rank $r"
    [ "$want" == "node$((r / 2))" ] || moved=1
  done
done
expect_eq "$moved" 1 "some rankfile places a rank elsewhere than mpirun would by slot"
# place takes the topology from the cluster's hostfile; a --topology of another shape is refused.
run "$mpimon" place ring.h5 --method random --seed 1 --hostfile "$hostfile" --rankfile rf1-own
expect_eq "$rc" 0 "place without --topology: exit code ($err)"
expect_contains "$err" "topology 2 nodes x 1 socket x 2 cores of cluster $name" "place: the cluster's topology"
expect_eq "$(cat rf1-own)" "$(cat rf1)" "place without --topology: the rankfile of --topology 2x1x2"
# ... and the links' rate (--rate 500mbit) for the time model: the nodes' level, inside a node free.
run "$mpimon" place ring.h5 --method packed --hostfile "$hostfile" --json own.json
expect_contains "$out" "links from mpimon cluster '$name'" "place: the time model's links from the cluster"
expect_eq "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([l["bits_per_second"] for l in d["links"]], d["methods"][0]["predicted_seconds"] > 0)' own.json)" \
  "[500000000.0, 0.0] True" "place: the cluster's rate in the JSON, a prediction"
run "$mpimon" place ring.h5 --topology 2x2x1 --hostfile "$hostfile" --rankfile never.rf
expect_eq "$rc" 2 "a --topology contradicting the cluster: usage error"
expect_contains "$err" "--topology 2x2x1 (2 nodes x 2 sockets x 1 core) contradicts cluster $name" "both shapes named"
expect_contains "$err" "(2 nodes x 1 socket x 2 cores)" "both shapes named"
check && [ -e never.rf ] && fail "a refused place wrote its rankfile"

# --- 4 slots per node on this machine (docs/cluster.md's example): rankfile slots beyond its cores
# (slot=0:2, 0:3) run as written, each rank on the node the rankfile names.
run "$mpimon" cluster up --nodes 2 --slots 4 --name "${name}i"
expect_eq "$rc" 0 "up --slots 4: exit code ($err)"
hostfile4=$("$mpimon" cluster hostfile --name "${name}i")
beyond=0
for seed in 1 2 3; do
  check && "$mpimon" place ring.h5 --method random --seed "$seed" --hostfile "$hostfile4" --rankfile "rf4-$seed" >/dev/null 2>&1 ||
    fail "place on 4 slots, seed $seed"
  grep -q 'slot=0:[23]$' "rf4-$seed" && beyond=1
  run "$mpimon" cluster run --name "${name}i" -- mpirun -np 4 --rankfile "rf4-$seed" sh -c 'echo "rank $OMPI_COMM_WORLD_RANK $(hostname)"'
  expect_eq "$rc" 0 "rankfile on 4 slots, seed $seed: exit code ($(grep -m1 ERROR <<<"$err"))"
  for r in 0 1 2 3; do
    expect_eq "$(sed -n "s/^rank $r //p" <<<"$out")" "$(sed -n "s/^rank $r=\([^ ]*\) .*/\1/p" "rf4-$seed")" \
      "rankfile on 4 slots, seed $seed: node of rank $r"
  done
done
expect_eq "$beyond" 1 "some rankfile names a core this machine lacks (slot 0:2 or 0:3)"
check && "$mpimon" cluster down --name "${name}i" >/dev/null || fail "down of the 4-slot cluster"

# --- A run killed half-way (SIGKILL: nothing cleans up) leaves processes; down removes them.
"$mpimon" cluster run --name "$name" -- mpirun -np 4 "$workload" --workload stencil --iterations 1000000 >/dev/null 2>&1 &
killed=$!
for _ in $(seq 100); do
  [ "$(ip netns pids "mpimon.$name.node1" | wc -l)" -ge 3 ] && break
  sleep 0.3
done
left=$(ip netns pids "mpimon.$name.node0"; ip netns pids "mpimon.$name.node1")
# The ranks share memory within a node through their node's own /dev/shm, never this machine's.
expect_eq "$(ls /dev/shm | grep -E '[.]node[0-9]+[.]')" "" "running: segments of the nodes in this machine's /dev/shm"
check && [ "$(wc -w <<<"$left")" -ge 4 ] || fail "interrupted run: the ranks were not running ($left)"
kill -9 "$killed"
wait "$killed" 2>/dev/null
# What the ranks and daemons do then depends on timing (they notice mpirun's end and go, or not):
# two processes that surely stay, one in node1 and one outside the namespaces that carries the
# launcher's MPIMON_CLUSTER (as a rank whose namespace was deleted by hand would).
ip netns exec "mpimon.$name.node1" sleep 600 &
stray_in_node=$!
env MPIMON_CLUSTER="$name" sleep 600 &
stray_outside=$!
left="$left $stray_in_node $stray_outside"
sleep 0.5

# --- down: nothing of the cluster is left; a second down says there was nothing.
run cluster down
expect_eq "$rc" 0 "down: exit code ($err)"
expect_contains "$out" " in mpimon.$name.node1" "down: says it stopped the processes in the nodes"
expect_contains "$out" "1 process of the cluster outside its namespaces" "down: and the one outside"
wait "$stray_in_node" "$stray_outside" 2>/dev/null
# A zombie has ended (init reaps it); anything else is a process left running.
for pid in $left; do
  state=$(ps -o stat= -p "$pid")
  check && [ -z "$state" ] || [ "${state:0:1}" == Z ] || fail "down: process $pid of the killed run still there ($state)"
done
expect_eq "$(snapshot)" "$before" "down: the machine as before up"
check && [ ! -e "/run/mpimon/cluster/$name" ] || fail "down: /run/mpimon/cluster/$name left"
run cluster down
expect_eq "$rc" 0 "second down: exit code"
expect_contains "$out" "nothing to remove" "second down: says it found nothing"
run cluster status
expect_eq "$rc" 1 "status after down: error"
expect_contains "$err" "no cluster of that name is up" "status after down"

# --- An up killed half-way (SIGKILL, after it made some of its namespaces): down removes what it made.
"$mpimon" cluster up --nodes 40 --slots 1 --name "${name}i" >/dev/null 2>&1 &
upping=$!
for _ in $(seq 100); do
  [ "$(ip netns list | grep -c "^mpimon[.]${name}i[.]")" -ge 3 ] && break
  sleep 0.05
done
kill -9 "$upping"
wait "$upping" 2>/dev/null
check && [ "$(ip netns list | grep -c "^mpimon[.]${name}i[.]")" -ge 1 ] || fail "interrupted up: it had made nothing (the test proves nothing)"
run "$mpimon" cluster status --name "${name}i"
expect_eq "$rc" 1 "status of an interrupted up: error ($err)"
run "$mpimon" cluster down --name "${name}i"
expect_eq "$rc" 0 "down after an interrupted up: exit code ($err)"
expect_eq "$(snapshot)" "$before" "down after an interrupted up: the machine as before"

finish cluster
