#!/usr/bin/env bash
# The guard of libmpimon-reorder (docs/reorder.md, "Codes that cannot take a renumbering") on one
# host: 16 processes bound to this machine's cores, 8 per core in turn (mpirun --map-by core), so that
# every graph of mpimon-reorder-guard is renumbered. Every run has a watchdog: a hang is a failure
# (exit 124), never a CI timeout.
#   - the patterns that use the new ranks rightly (cart: GROMACS's way; adjacent: reading the rank
#     and neighbours; gathered: LAMMPS's numa_map; unread) run to the end with the library, renumbered,
#     and their own checks pass;
#   - the patterns that cannot take a renumbering (lammps: LAMMPS's map cart/reorder, also through
#     the PMPI_ names as Open MPI's Fortran bindings call them; arithmetic:
#     the neighbours computed from the coordinates; petsc: PETSc's PetscSF of type neighbor) are right
#     without the library and with MPIMON_REORDER=off, and with the library are stopped with exit code
#     4 and the message that names what they did and the remedy, before any message goes astray;
#     with --plan they run in their own order and the plan (an Open MPI rankfile and a list of
#     hosts) places each of the 16 ranks on a core of this host;
#   - one topology per step (steps: the same Cartesian grid made six times): one mapping, the
#     later calls reuse rank 0's decision (cached in the statistics) and give the same ranks;
#   - a fault injected in the library's decision (MPIMON_REORDER_INJECT_FAULT=decide) is an error a
#     constructor reports (rank 0's stderr, the statistics' status 3) and the call goes to the MPI
#     library as made: the program runs to the end in the order it had.
# Usage: guard_test.sh MPIMON GUARD_PROGRAM SOURCE_DIR
set -u
mpimon=$1 guard=$2 src=$3
source "$src/cli/tests/test_lib.sh"
[ "$(nproc)" -ge 2 ] || skip_test "one CPU: every process on the same core, nothing to renumber"
bound=(mpirun -np 16 --oversubscribe --bind-to core:overload-allowed --map-by core --mca pml ^monitoring
       --mca coll ^monitoring --mca osc ^monitoring)
watchdog=(timeout -k 10 120)

# stats_field FILE FIELD: the field of the file's only JSON line.
stats_field() {
  /usr/bin/python3 -c 'import json, sys
lines = open(sys.argv[1]).read().splitlines()
print(json.loads(lines[0])[sys.argv[2]] if len(lines) == 1 else "%d lines" % len(lines))' "$1" "$2" 2>/dev/null
}

for mode in cart adjacent gathered unread; do
  rm -f "right-$mode.json"
  run "${watchdog[@]}" "$mpimon" run --reorder --stats "right-$mode.json" -- "${bound[@]}" "$guard" "$mode"
  expect_eq "$rc" 0 "$mode with the library: exit code (124: hung) ($err)"
  expect_contains "$out" "DONE $mode ok" "$mode with the library: its exchange reached the processes it meant"
  expect_eq "$(stats_field "right-$mode.json" reordered)" True "$mode: the library renumbered the processes"
done

# One topology per step: one mapping, the next calls reuse it (the same ranks every time).
rm -f steps.json
run "${watchdog[@]}" "$mpimon" run --reorder --stats steps.json -- "${bound[@]}" "$guard" steps
expect_eq "$rc:$out" "0:DONE steps ok" "one topology per step: the same new ranks every time ($err)"
expect_eq "$(/usr/bin/python3 -c 'import json, sys
print(" ".join(str(json.loads(l)["cached"]) for l in open(sys.argv[1])))' steps.json 2>/dev/null)" \
  "False True True True True True" "one mapping, then the decision reused (cached) for each later call"

declare -A says=([lammps]="map cart/reorder" [lammps-pmpi]="map cart/reorder"
                 [arithmetic]="a neighbour of the coordinates it read" [petsc]="before reading anything of its place in it")
for mode in lammps lammps-pmpi arithmetic petsc; do
  run "${watchdog[@]}" "${bound[@]}" "$guard" "$mode"
  expect_eq "$rc:$out" "0:DONE $mode ok" "$mode without the library: right, to the end ($err)"
  run env MPIMON_REORDER=off "${watchdog[@]}" "$mpimon" run --reorder -- "${bound[@]}" -x MPIMON_REORDER "$guard" "$mode"
  expect_eq "$rc:$out" "0:DONE $mode ok" "$mode with MPIMON_REORDER=off: right, to the end ($err)"
  rm -f "stopped-$mode.json"
  run "${watchdog[@]}" "$mpimon" run --reorder --stats "stopped-$mode.json" -- "${bound[@]}" "$guard" "$mode"
  expect_eq "$rc" 4 "$mode with the library: stopped with exit code 4 (124: hung; 0: not stopped) ($out)"
  expect_contains "$err" "Stopped (exit code 4)" "$mode: the library says it stopped the job"
  expect_contains "$err" "${says[$mode]}" "$mode: the message says what the application did"
  expect_contains "$err" "MPIMON_REORDER=off" "$mode: the message names the remedy"
  expect_eq "$(stats_field "stopped-$mode.json" reordered)" True "$mode: the library had renumbered the processes"
  if check && grep -q "DONE $mode" <<<"$out"; then fail "$mode: the program went on after the guard: $out"; fi
  rm -f "plan-$mode.txt" "plan-$mode.json"
  run "${watchdog[@]}" "$mpimon" run --reorder --plan "plan-$mode.txt" --stats "plan-$mode.json" -- "${bound[@]}" \
    "$guard" "$mode"
  expect_eq "$rc:$out" "0:DONE $mode ok" "$mode with --plan: its own order, to the end ($err)"
  expect_eq "$(stats_field "plan-$mode.json" reordered)" False "$mode with --plan: not renumbered"
  expect_contains "$(stats_field "plan-$mode.json" note)" "written to $PWD/plan-$mode.txt" "$mode: the plan's note"
  expect_eq "$(sort -u "plan-$mode.txt.hosts" 2>/dev/null | tr '\n' ' ')" "$(hostname) " "$mode: the plan names this host"
  expect_eq "$(grep -c "^rank [0-9]*=$(hostname) slot=0:[01]$" "plan-$mode.txt" 2>/dev/null)" 16 \
    "$mode: the plan's rankfile binds each of the 16 ranks to a core of this host"
done

# The library's own failure: reported, counted as an error, the constructor passed on as made.
rm -f fault.json
run env MPIMON_REORDER_INJECT_FAULT=decide "${watchdog[@]}" "$mpimon" run --reorder --stats fault.json -- \
  "${bound[@]}" -x MPIMON_REORDER_INJECT_FAULT "$guard" cart
expect_eq "$rc:$out" "0:DONE cart ok" "an internal error: the program runs to the end ($err)"
expect_contains "$err" "mpimon-reorder: MPI_Cart_create: error 3: internal error of libmpimon-reorder while deciding" \
  "an internal error: rank 0 says so"
expect_contains "$err" "the call goes to the MPI library as made" "an internal error: and what the constructor did"
expect_eq "$(stats_field fault.json status):$(stats_field fault.json reordered)" "3:False" \
  "an internal error: status 3 in the statistics, not a success"
finish reorder.guard
