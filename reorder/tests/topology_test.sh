#!/usr/bin/env bash
# libmpimon-reorder on one host (docs/reorder.md#tests): 16 processes bound to the cores of this
# machine, 8 per core (mpirun --bind-to core:overload-allowed), so the library places them by core.
#   - `mpimon run`: the command's exit code passed on, its usage and input errors;
#   - `mpimon run --reorder` of mpimon-reorder-topology, an application that does not link the
#     library: the four constructors with reorder=1 on graphs whose world order is costly; every
#     topology's semantics hold on the new communicator (the program's own checks), the cost the
#     library claims is the program's recomputation from where every new rank runs, and it is the
#     brute-force optimum (check_placements.py);
#   - reorder=0 with the library, MPIMON_REORDER=off, and reorder=1 without the library: the ranks
#     stay as they were and the library writes nothing;
#   - the C API's bad inputs (mpimon-reorder-api): every process returns the same error, with a
#     message naming the problem, and "monitoring" on Open MPI 4.1 names its defect;
#   - mpimon-workload --topology-reorder cart|dist-graph (what bench placement --arm times): the
#     stencil's own check passes on the renumbered communicator, the library saw the constructor;
#     `mpimon bench placement --arm launcher --arm reorder` of it keeps each reorder launch's statistics.
# Needs one package of at least 2 cores (the model's distance between cores); skipped otherwise.
# Usage: topology_test.sh MPIMON TOPOLOGY_PROGRAM API_PROGRAM SOURCE_DIR WORKLOAD_PROGRAM
set -u
mpimon=$1 program=$2 api=$3 src=$4 workload=$5
source "$src/cli/tests/test_lib.sh"
packages=$(cat /sys/devices/system/cpu/cpu*/topology/physical_package_id 2>/dev/null | sort -u | wc -l)
[ "$packages" = 1 ] || skip_test "the core model's check needs one package ($packages here)"
[ "$(nproc)" -ge 2 ] || skip_test "one CPU: every process on the same core"
check=$src/reorder/tests/check_placements.py
cases=(cart_mesh cart_torus graph_torus dist_torus adjacent_torus)
# No monitoring component: distgraph-neighbor-crash (docs/defects.md) is not what is tested here.
bound=(mpirun -np 16 --oversubscribe --bind-to core:overload-allowed --map-by core --mca pml ^monitoring
       --mca coll ^monitoring --mca osc ^monitoring)

# mpimon run itself: the command's exit code passed on; usage errors before anything runs.
run "$mpimon" run -- sh -c 'echo ran; exit 5'
expect_eq "$rc:$out" "5:ran" "mpimon run passes the command's exit code on"
run "$mpimon" run --stats s.json -- sh -c 'echo ran'
expect_eq "$rc:$out" "2:" "options without --reorder: usage error, nothing run"
expect_contains "$err" "add --reorder" "the usage error says what is missing"
run "$mpimon" run --reorder --topology missing.xml -- sh -c 'echo ran'
expect_eq "$rc:$out" "1:" "a missing --topology file: error, nothing run"
expect_contains "$err" "--topology missing.xml: no such file" "the error names the option and the file"
run "$mpimon" run --plan plan.rf -- sh -c 'echo ran'
expect_eq "$rc:$out" "2:" "--plan without --reorder: usage error, nothing run"
run "$mpimon" run --reorder --plan /nonexistent-mpimon-dir/plan.rf -- sh -c 'echo ran'
expect_eq "$rc:$out" "1:" "--plan in a missing directory: error, nothing run"
expect_contains "$err" "/nonexistent-mpimon-dir" "the error names the directory"

run "$mpimon" run --reorder --stats stats.json -- "${bound[@]}" "$program" --model core --reorder 1 "${cases[@]}"
expect_eq "$rc" 0 "mpimon run --reorder: exit code ($out $err)"
printf '%s\n' "$out" >reordered.txt
run python3 "$check" reordered.txt --model core --reordering stats.json
expect_eq "$rc" 0 "the placements against the library's claims: $out"
echo "$out"

run "$mpimon" run --reorder --stats stats0.json -- "${bound[@]}" "$program" --model core --reorder 0 "${cases[@]}"
expect_eq "$rc" 0 "reorder=0 preloaded: exit code ($err)"
printf '%s\n' "$out" >untouched.txt
run python3 "$check" untouched.txt --model core --untouched stats0.json
expect_eq "$rc" 0 "reorder=0 with the library is untouched: $out"

run env MPIMON_REORDER=off "$mpimon" run --reorder --stats stats-off.json -- "${bound[@]}" -x MPIMON_REORDER \
  "$program" --model core --reorder 1 "${cases[@]}"
expect_eq "$rc" 0 "MPIMON_REORDER=off: exit code ($err)"
printf '%s\n' "$out" >off.txt
run python3 "$check" off.txt --model core --untouched stats-off.json
expect_eq "$rc" 0 "MPIMON_REORDER=off is untouched: $out"

run "${bound[@]}" "$program" --model core --reorder 1 "${cases[@]}"
expect_eq "$rc" 0 "reorder=1 without the library: exit code ($err)"
printf '%s\n' "$out" >plain.txt
run python3 "$check" plain.txt --model core --untouched
expect_eq "$rc" 0 "reorder=1 without the library keeps the order: $out"

# The stencil on a topology constructor's communicator (bench placement --arm, results/reorder).
for topology in cart:MPI_Cart_create dist-graph:MPI_Dist_graph_create_adjacent; do
  rm -f "workload-${topology%%:*}.json"
  run "$mpimon" run --reorder --stats "workload-${topology%%:*}.json" -- "${bound[@]}" "$workload" --workload stencil \
    --iterations 2 --topology-reorder "${topology%%:*}"
  expect_eq "$rc" 0 "mpimon-workload --topology-reorder ${topology%%:*}: exit code ($out $err)"
  expect_contains "$out" '"passed":true' "the stencil's check on the ${topology%%:*} communicator"
  expect_contains "$out" "\"topology_reorder\":\"${topology%%:*}\"" "the report names the constructor"
  expect_contains "$(cat "workload-${topology%%:*}.json" 2>/dev/null)" \
    "\"call\":\"${topology#*:}\",\"source\":\"declared graph\",\"status\":0" "the library reordered ${topology#*:}"
done
# bench placement --arm launcher --arm reorder (results/reorder's measurements): every launch of the
# reorder arm keeps the library's statistics (reorder_stats), one line for the stencil's one
# MPI_Cart_create over its 16 grid points; the launcher's arm has none (no library).
run "$mpimon" bench placement --arm launcher --arm reorder --np 16 --pairs 2 -o arms.h5 \
  --mca pml=^monitoring --mca coll=^monitoring --mca osc=^monitoring --time-regex '"seconds":([0-9.e+-]+)' -- \
  "$workload" --workload stencil --iterations 2 --topology-reorder cart
expect_eq "$rc" 0 "bench placement --arm launcher --arm reorder: exit code ($err)"
run /usr/bin/python3 - arms.h5 <<'PY'
import json, sys, h5py
text = lambda v: v.decode() if isinstance(v, bytes) else str(v)
for name, group in h5py.File(sys.argv[1], "r")["launches"].items():
    arm, stats = text(group.attrs["arm"]), text(group.attrs.get("reorder_stats", ""))
    lines = [json.loads(line) for line in stats.splitlines()]
    if arm == "A":
        print(f"{name} A {len(lines)} lines")
        continue
    r = lines[0] if len(lines) == 1 else {}
    print(f"{name} B {len(lines)} lines", r.get("call"), r.get("status"), r.get("processes"), r.get("vertices"))
PY
expect_eq "$rc" 0 "the launches of bench placement ($err)"
expect_eq "$(grep -c ' A 0 lines$' <<<"$out")" 2 "the launcher's arm: no statistics ($out)"
expect_eq "$(grep -c ' B 1 lines MPI_Cart_create 0 16 16$' <<<"$out")" 2 \
  "the reorder arm: the statistics of the stencil's MPI_Cart_create in each launch ($out)"
run "${bound[@]}" "$workload" --workload cg --topology-reorder cart
expect_eq "$rc" 2 "--topology-reorder with another workload than the stencil: usage error ($err)"
expect_contains "$out$err" "--topology-reorder runs the stencil alone" "the error says why"

# The API's errors, on 4 unbound processes of this one node.
version=$(mpirun --version 2>/dev/null | head -1)
if [[ "$version" == *" 4."* ]]; then
  monitoring=(2 "defect pml-mpit-invalid-after-init")
else
  monitoring=(0 "")
fi
run mpirun -np 4 --oversubscribe --bind-to none --mca pml_monitoring_enable 1 "$api" \
  --foreign "$src/analysis/tests/data/v1/mode2_sample.h5" --not-mpimon "$src/analysis/tests/data/v1/README.md" \
  --monitoring "${monitoring[@]}"
expect_eq "$rc" 0 "mpimon-reorder-api: exit code ($out $err)"
echo "$out"
for name in unknown_source empty_file_source missing_file not_a_recording foreign_recording unknown_dump monitoring \
  out_of_range_rank negative_rank negative_weight weights_beyond_64_bits bad_time_limit internal_error null_newcomm \
  one_node_keeps_the_order one_node_stats null_comm; do
  expect_contains "$out" "OK $name" "the API check $name"
done
finish reorder.topology
