#!/usr/bin/env bash
# The validation suite across emulated nodes (docs/cluster.md, "Validation across the network"):
# `mpimon validate` with its ranks spread over 2 and then 4 nodes of `mpimon cluster` (ranks of one
# node on vader, across nodes on tcp), its matrices against the programs' ledgers as on one host.
# Ranks are placed round-robin over the nodes (rmaps_base_mapping_policy node: rank r on node
# r mod N, checked first), so every pair of consecutive ranks crosses a node boundary: on 2 nodes
# every point-to-point send mode, every one-sided operation and synchronisation, all 44
# collectives (np 4, root 1), MPI_T phases and the workloads; on 4 nodes (one rank per node, every
# message crosses the network) the point-to-point suite, one-sided, one collective of each family
# and two workloads. One-sided goes through osc/pt2pt: Open MPI 4.1.4's osc/rdma cannot make a
# window across nodes linked by tcp only (MPI_ERR_WIN in MPI_Win_create, with or without
# monitoring), so the cases that force osc/rdma (rma.rdma.*, defect.osc_list) are left out.
# Needs root; on a machine that cannot make namespaces: a skip with the reason (exit 77), a
# failure under CI=true (the stage is required there).
# Usage: cluster_validate_test.sh MPIMON PROGRAMS_DIR
set -u
mpimon=$1 programs=$2
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"

cannot_run() {
  if [ "${CI:-}" == true ]; then
    echo "FAILED: the cluster validation stage cannot run here, and CI=true requires it: $1"
    exit 1
  fi
  echo "skipped: $1"
  exit 77
}
for tool in ip tc unshare; do command -v "$tool" >/dev/null || cannot_run "$tool is not installed"; done
unshare --net --uts true 2>/dev/null || cannot_run "this process cannot make namespaces (needs root: CAP_SYS_ADMIN)"
ip netns add "mpimon-probe-$$" 2>/dev/null || cannot_run "ip netns add fails here (needs CAP_NET_ADMIN and /run/netns)"
ip netns del "mpimon-probe-$$"

names=()
trap 'for n in "${names[@]}"; do "$mpimon" cluster down --name "$n" >/dev/null 2>&1; done; rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_mapping_policy=node OMPI_MCA_osc=pt2pt,monitoring

# validate_on NODES VALIDATE_OPTIONS...: a cluster of NODES nodes, its placement checked, the suite.
validate_on() {
  local nodes=$1 name=cv$1x$$
  shift
  names+=("$name")
  check && "$mpimon" cluster up --nodes "$nodes" --slots 1 --name "$name" >/dev/null || { fail "$nodes nodes: cluster up"; return; }
  local launcher
  launcher=$("$mpimon" cluster launcher --name "$name")
  # Where the ranks run, from the ranks themselves: rank r on node r mod N.
  local placed expected=""
  placed=$("$mpimon" cluster run --name "$name" -- mpirun -np 4 sh -c 'echo "$OMPI_COMM_WORLD_RANK $(hostname)"' | sort)
  for r in 0 1 2 3; do expected+="$r node$((r % nodes))"$'\n'; done
  expect_eq "$placed" "${expected%$'\n'}" "$nodes nodes: ranks round-robin over the nodes"
  local start=$SECONDS
  run "$mpimon" validate --launcher "$launcher" --programs "$programs" --json "validate-$nodes.json" "$@"
  echo "$out"
  expect_eq "$rc" 0 "$nodes nodes: mpimon validate exit code ($(grep -E 'FAILS|ERROR|FIXED' <<<"$out" | head -5))"
  expect_contains "$out" " 0 failing" "$nodes nodes: no run failing"
  # Every run the options select was made, and no other: the runs of its JSON against what
  # `validate --list-runs` says the same options select (a probe that dropped cases would differ).
  local made selected
  made=$(python3 -c 'import json,sys; [print(c["case"], c["np"], c["pml_monitoring_enable"]) for c in json.load(open(sys.argv[1]))["cases"]]' \
    "validate-$nodes.json" | sort)
  selected=$("$mpimon" validate --list-runs "$@" | sort)
  check && [ -n "$selected" ] || fail "$nodes nodes: validate --list-runs selects nothing"
  expect_eq "$made" "$selected" "$nodes nodes: the runs made are the runs selected"
  expect_contains "$out" "$(wc -l <<<"$selected") runs" "$nodes nodes: the count printed"
  echo "$nodes nodes: $((SECONDS - start)) s"
  check && "$mpimon" cluster down --name "$name" >/dev/null || fail "$nodes nodes: cluster down"
}

validate_on 2 --case 'p2p*' --case 'rma.pt2pt.*' --case 'coll.*' --case 'mpit.*' --case 'workload.*' \
  --case defect.persistent_send --case defect.pml_list --case defect.coll_list_crash
validate_on 4 --np 4 --case p2p --case p2p.subcomm --case 'rma.pt2pt.*.fence' --case 'rma.pt2pt.get.lock' \
  --case 'rma.pt2pt.put.pscw' --case coll.bcast --case coll.gather --case coll.reduce --case coll.allreduce \
  --case coll.alltoallw --case coll.scan --case coll.iscatterv --case coll.ineighbor_alltoall \
  --case coll.neighbor_allgather --case workload.stencil --case workload.cg

check && [ -z "$(ip netns list | grep "^mpimon[.]cv")" ] || fail "namespaces left behind: $(ip netns list)"
finish cluster.validate
