#!/usr/bin/env bash
# Real applications that ask for reorder=1 under libmpimon-reorder, Debian's own packages on an
# emulated cluster of 8 nodes of 2 slots (16 ranks), as a user would run them (docs/reorder.md,
# "Applications that ask for reorder=1"). Every launch has a watchdog: a hang is a failure (exit
# 124), never a CI timeout. Expected values come from the applications' own output.
#   gromacs: `gmx_mpi mdrun -ddorder cartesian -npme 4` launched round-robin (--map-by node), on a
#     box of SPC water with PME made by gromacs_input.sh: with the library the PP-PME Cartesian grid
#     is renumbered (the statistics say so, with a lower modelled cost) and rank 0 keeps rank 0, so
#     GROMACS runs to the end; its energies at step 0 equal those of the same run without the library
#     within a relative 2e-5 (check_apps.py: the log prints 6 significant digits, so two printings of
#     one value may differ by 1e-5 of it; the sums over ranks in another order differ by about
#     ranks x float epsilon, 16 x 6e-8 = 1e-6; the pressure, a small difference of large terms, is
#     not compared).
#   lammps: `processors * * * map cart/reorder`, launched packed (--map-by slot): without the library
#     it runs to the end; with the library it is stopped with exit code 4 and the message that names
#     LAMMPS's pattern and the remedy (it would hang); `map cart` with the library is untouched: no
#     statistics line, the same processor table and thermodynamics as without; with --plan the order
#     is kept, the plan written, and the next launch from the plan (its Open MPI rankfile) puts
#     LAMMPS's own grid on the nodes with the number of neighbour pairs between nodes the plan
#     modelled, counted from LAMMPS's own table of ranks and hosts.
# Usage: apps_test.sh MPIMON SOURCE_DIR gromacs|lammps
set -u
mpimon=$1 src=$2 app=$3
source "$src/cli/tests/test_lib.sh"
case $app in
  gromacs) command -v gmx_mpi >/dev/null || skip_test "gmx_mpi is not installed (Debian package gromacs)" ;;
  lammps) command -v lmp >/dev/null || skip_test "lmp is not installed (Debian package lammps)" ;;
  *) echo "apps_test.sh: unknown application '$app'" >&2; exit 2 ;;
esac
for tool in ip tc unshare; do command -v "$tool" >/dev/null || skip_test "$tool is not installed"; done
unshare --net --uts true 2>/dev/null || skip_test "this process cannot make namespaces (needs root: CAP_SYS_ADMIN)"

check=$src/reorder/tests/check_apps.py
name=reoa$$
trap '"$mpimon" cluster down --name "$name" >/dev/null 2>&1; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
run "$mpimon" cluster up --name "$name" --nodes 8 --slots 2
expect_eq "$rc" 0 "cluster up ($err)"
launcher=$out
check && [ -x "$launcher" ] || { fail "no launcher: $out $err"; finish "reorder.$app"; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
quiet=(--mca pml ^monitoring --mca coll ^monitoring --mca osc ^monitoring)
watchdog=(timeout -k 15 300)

# json_of FILE CALL FIELD: FIELD of the statistics line of CALL ("" when none).
json_of() {
  /usr/bin/python3 -c 'import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["call"] == sys.argv[2]:
        print(r[sys.argv[3]])
        break' "$@" 2>/dev/null
}

gromacs() {
  run bash "$src/reorder/tests/gromacs_input.sh" gmx 4 10
  expect_eq "$rc" 0 "the run input (gromacs_input.sh: $err)"
  echo "GROMACS input: $out waters"
  local mdrun=(gmx_mpi mdrun -s "$PWD/gmx/md.tpr" -ddorder cartesian -npme 4 -ntomp 1 -pin off -notunepme -dlb no)
  local launch=("$launcher" -np 16 --map-by node "${quiet[@]}")
  run "${watchdog[@]}" "${launch[@]}" "${mdrun[@]}" -deffnm plain
  expect_eq "$rc" 0 "GROMACS without the library: exit code (124: hung) ($(tail -5 plain.log 2>/dev/null) $err)"
  run "${watchdog[@]}" "$mpimon" run --reorder --verbose --stats reordered.json -- "${launch[@]}" "${mdrun[@]}" \
    -deffnm reordered
  expect_eq "$rc" 0 "GROMACS with the library: exit code (124: hung) ($(grep -A3 'Fatal error' reordered.log) $err)"
  echo "$err" | grep '^mpimon-reorder'
  expect_eq "$(json_of reordered.json MPI_Cart_create reordered)" True "the PP-PME Cartesian grid was renumbered"
  expect_eq "$(json_of reordered.json MPI_Cart_create rank0_kept)" True "rank 0 kept rank 0 (the statistics)"
  local before after kept
  before=$(json_of reordered.json MPI_Cart_create cost_before)
  after=$(json_of reordered.json MPI_Cart_create cost_after)
  kept=$(json_of reordered.json MPI_Cart_create kept_ranks)
  check && awk -v b="$before" -v a="$after" 'BEGIN { exit !(b != "" && a + 0 < b + 0) }' ||
    fail "the modelled cost did not fall: $before -> $after"
  check && awk -v k="$kept" 'BEGIN { exit !(k >= 1 && k < 16) }' || fail "kept ranks $kept: expected 1 to 15"
  echo "modelled cost $before -> $after, $kept of 16 ranks kept"
  run /usr/bin/python3 "$check" gromacs-ranks reordered.log
  expect_eq "$out" "0 0 0 0" "GROMACS's own log: rank 0 is Cartesian rank 0 at (0,0,0)"
  check && grep -q "Finished mdrun" reordered.log || fail "GROMACS did not finish: $(tail -3 reordered.log)"
  run /usr/bin/python3 "$check" gromacs-energies plain.log reordered.log --step 0 --rtol 2e-5
  expect_eq "$rc" 0 "the energies at step 0 with and without the library: $out"
  echo "$out"
}

lammps() {
  local lmp=(lmp -in "$src/reorder/tests/inputs/lammps_lj.in" -log none -var n 8 -var steps 20)
  local launch=("$launcher" -np 16 --map-by slot "${quiet[@]}")
  run "${watchdog[@]}" "${launch[@]}" "${lmp[@]}" -var map cart/reorder -var procs plain.txt
  expect_eq "$rc" 0 "map cart/reorder without the library: exit code (124: hung) ($err)"
  local thermo
  thermo=$(/usr/bin/python3 "$check" lammps-thermo <(printf '%s\n' "$out"))
  check && [ -n "$thermo" ] || fail "no thermodynamics without the library: $out"

  run "${watchdog[@]}" "$mpimon" run --reorder --stats reordered.json -- "${launch[@]}" "${lmp[@]}" \
    -var map cart/reorder -var procs reordered.txt
  expect_eq "$rc" 4 "map cart/reorder with the library: stopped, exit code 4 (124: hung; 0: not stopped) ($out)"
  expect_contains "$err" "map cart/reorder" "the message names LAMMPS's pattern"
  expect_contains "$err" "MPIMON_REORDER=off" "the message names the remedy"
  expect_eq "$(json_of reordered.json MPI_Cart_create reordered)" True "the library had renumbered the grid"
  if check && grep -q "^Loop time" <<<"$out"; then fail "LAMMPS ran on after the guard: $out"; fi

  rm -f untouched.json
  run "${watchdog[@]}" "$mpimon" run --reorder --stats untouched.json -- "${launch[@]}" "${lmp[@]}" \
    -var map cart -var procs untouched.txt
  expect_eq "$rc" 0 "map cart with the library: exit code (124: hung) ($err)"
  expect_eq "$(/usr/bin/python3 "$check" lammps-thermo <(printf '%s\n' "$out"))" "$thermo" \
    "map cart with the library: the thermodynamics of the run without it"
  expect_eq "$(cat untouched.json 2>/dev/null)" "" "map cart (reorder=0): the library wrote no statistics"
  expect_eq "$(/usr/bin/python3 "$check" lammps-grid untouched.txt)" \
    "$(/usr/bin/python3 "$check" lammps-grid plain.txt)" "map cart with the library: the same ranks on the same hosts"

  run "${watchdog[@]}" "$mpimon" run --reorder --plan plan.txt --stats plan.json -- "${launch[@]}" "${lmp[@]}" \
    -var map cart/reorder -var procs kept.txt
  expect_eq "$rc" 0 "map cart/reorder with --plan: exit code ($err)"
  expect_eq "$(json_of plan.json MPI_Cart_create reordered)" False "--plan: not renumbered"
  local note planned
  note=$(json_of plan.json MPI_Cart_create note)
  expect_contains "$note" "written to $PWD/plan.txt" "--plan: the note names the plan"
  planned=$(sed -n 's/.*(between nodes \([0-9]*\)).*/\1/p' <<<"$note")
  expect_eq "$(wc -l 2>/dev/null <plan.txt.hosts)" 16 "the plan has a host for each rank"
  run "${watchdog[@]}" "$launcher" -np 16 --rankfile "$PWD/plan.txt" "${quiet[@]}" "${lmp[@]}" \
    -var map cart/reorder -var procs planned.txt
  expect_eq "$rc" 0 "the next launch from the plan: exit code ($err)"
  expect_eq "$(/usr/bin/python3 "$check" lammps-thermo <(printf '%s\n' "$out"))" "$thermo" \
    "the launch from the plan: the same thermodynamics"
  local grid_plain grid_planned
  grid_plain=$(/usr/bin/python3 "$check" lammps-grid plain.txt)
  grid_planned=$(/usr/bin/python3 "$check" lammps-grid planned.txt)
  echo "packed: $grid_plain; from the plan: $grid_planned (modelled: $planned)"
  expect_eq "${grid_planned##* }" "$planned" "the plan's neighbour pairs between nodes, as LAMMPS's table counts them"
  check && [ -n "$planned" ] && [ "${grid_planned##* }" -lt "${grid_plain##* }" ] ||
    fail "the plan does not put fewer neighbour pairs between nodes: $grid_plain, $grid_planned"
}

"$app"
run "$mpimon" cluster down --name "$name"
expect_eq "$rc" 0 "cluster down ($err)"
expect_eq "$(ip netns list | grep -c "^mpimon[.]$name[.]")" 0 "no namespace of the cluster left"
finish "reorder.$app"
