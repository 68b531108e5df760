#!/usr/bin/env bash
# libmpimon-reorder across 4 emulated nodes of 4 processes (docs/reorder.md#tests), on the host's
# Open MPI. The processes are not bound (the cluster's nodes share this machine's cores), so the
# library places them by node.
#   - `mpimon run --reorder` of mpimon-reorder-topology (it does not link the library), the four
#     constructors: every topology's semantics hold on the new communicator, the weight between
#     nodes (and the cost) the library claims is the program's recomputation from the host of every
#     new rank, and it is the brute-force optimum: a scrambled 4 x 4 torus with all 32 grid edges
#     between nodes ends with 16 (check_placements.py); the periodic grid, whose rows already sit
#     on one node each, keeps its order;
#   - reorder=0 with the library and reorder=1 without it: the ranks stay as they were;
#   - the dynamic path (mpimon-reorder-demo): a first run recorded by `mpimon record`, then the
#     same program calling mpimon_reorder(MPI_COMM_WORLD, "file:first-run.h5"): the weight between
#     nodes the library claims equals the recording's, read with h5py, on the hosts the program
#     reports; its second exchange puts half its bytes between nodes where the first put all
#     (check_dynamic.py). On Open MPI 4.1, "monitoring" fails on every process with the error that
#     names pml-mpit-invalid-after-init (on 5.0 reorder.dynamic_ompi5 checks it instead).
# The cluster is taken down at the end, also when interrupted.
# Usage: cluster_test.sh MPIMON TOPOLOGY_PROGRAM DEMO SOURCE_DIR
set -u
mpimon=$1 program=$2 demo=$3 src=$4
source "$src/cli/tests/test_lib.sh"
for tool in ip tc unshare; do command -v "$tool" >/dev/null || skip_test "$tool is not installed"; done
unshare --net --uts true 2>/dev/null || skip_test "this process cannot make namespaces (needs root: CAP_SYS_ADMIN)"
/usr/bin/python3 -c "import h5py" 2>/dev/null || skip_test "h5py missing for /usr/bin/python3"

name=reo$$
trap '"$mpimon" cluster down --name "$name" >/dev/null 2>&1; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
run "$mpimon" cluster up --name "$name" --nodes 4 --slots 4
expect_eq "$rc" 0 "cluster up ($err)"
launcher=$out
check && [ -x "$launcher" ] || { fail "no launcher: $out $err"; finish reorder.cluster; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cases=(cart_mesh cart_torus graph_torus dist_torus adjacent_torus)
quiet=(--mca pml ^monitoring --mca coll ^monitoring --mca osc ^monitoring)
check=$src/reorder/tests/check_placements.py

run "$mpimon" run --reorder --stats stats.json -- "$launcher" -np 16 "${quiet[@]}" "$program" --model node --reorder 1 \
  "${cases[@]}"
expect_eq "$rc" 0 "mpimon run --reorder across the nodes: exit code ($out $err)"
printf '%s\n' "$out" >reordered.txt
run /usr/bin/python3 "$check" reordered.txt --model node --reordering stats.json
expect_eq "$rc" 0 "the placements against the library's claims: $out"
echo "$out"
expect_contains "$(grep '^CASE graph_torus' reordered.txt)" "before=64 cost_before=6400" \
  "the scrambled torus: all 32 grid edges (64 messages) between nodes before"
expect_contains "$(grep '^CASE graph_torus' reordered.txt)" "between=32 " "the scrambled torus: 16 of 32 edges after"

run "$mpimon" run --reorder --stats stats0.json -- "$launcher" -np 16 "${quiet[@]}" "$program" --model node --reorder 0 \
  "${cases[@]}"
expect_eq "$rc" 0 "reorder=0 preloaded: exit code ($err)"
printf '%s\n' "$out" >untouched.txt
run /usr/bin/python3 "$check" untouched.txt --model node --untouched stats0.json
expect_eq "$rc" 0 "reorder=0 with the library is untouched: $out"

run "$launcher" -np 16 "${quiet[@]}" "$program" --model node --reorder 1 "${cases[@]}"
expect_eq "$rc" 0 "reorder=1 without the library: exit code ($err)"
printf '%s\n' "$out" >plain.txt
run /usr/bin/python3 "$check" plain.txt --model node --untouched
expect_eq "$rc" 0 "reorder=1 without the library (Open MPI's own topo components) keeps the order: $out"

# --- The dynamic path, from a recording.
demo_args=(--bytes 4096 --iterations 5)
run "$mpimon" record --launcher "$launcher" --np 16 -o first-run.h5 -- "$demo" --source none "${demo_args[@]}"
expect_eq "$rc" 0 "mpimon record of the first run ($err)"
run "$launcher" -np 16 "$demo" --source file:first-run.h5 "${demo_args[@]}"
expect_eq "$rc" 0 "the demo with file:first-run.h5 ($err)"
printf '%s\n' "$out" >file-run.txt
run /usr/bin/python3 "$src/reorder/tests/check_dynamic.py" file-run.txt --recording first-run.h5
expect_eq "$rc" 0 "the dynamic path from a recording: $out"
echo "$out"

version=$(mpirun --version 2>/dev/null | head -1)
if [[ "$version" == *" 4."* ]]; then
  run timeout 120 "$launcher" -np 16 --mca pml_monitoring_enable 1 "$demo" --source monitoring "${demo_args[@]}"
  expect_eq "$rc" 3 "\"monitoring\" on $version: the demo's exit code for a failed call (not a hang: 124)"
  expect_contains "$out" "REORDER ERROR 2: source 'monitoring' needs the PML's monitoring counters through MPI_T" \
    "\"monitoring\" on $version: the error"
  expect_contains "$out" "defect pml-mpit-invalid-after-init" "\"monitoring\" on $version names the defect"
else
  echo "\"monitoring\" on $version: checked by reorder.dynamic_ompi5's kind of run"
fi

run "$mpimon" cluster down --name "$name"
expect_eq "$rc" 0 "cluster down ($err)"
expect_eq "$(ip netns list | grep -c "^mpimon[.]$name[.]")" 0 "no namespace of the cluster left"
finish reorder.cluster
