#!/usr/bin/env bash
# End-to-end test of `mpimon record`: a monitored run merged into one file that equals what the
# application sent (the demo ring's own algorithm, the workload's ledger) and an independent
# merge of the kept dumps (Open MPI's profile2mat when installed); the settings that make Open MPI
# record nothing without a word; a failing application; ranks without a dump.
# Usage: record_test.sh MPIMON MPIMON_MERGE DEMO_RING [WORKLOAD_PROGRAM]   (PROFILE2MAT in the environment)
set -u
mpimon=$1
merge=$2
ring=$3
workload=${4:-}
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"
# The line of class $2 in the `show` summary $1: "messages bytes".
class_totals() { awk -v c="$2" '$1 == c { print $2, $3; exit }' <<<"$1"; }
# A root attribute of an HDF5 file as h5dump (an independent reader) prints it: its strings, one a line.
root_attribute() { h5dump -a "/$2" "$1" 2>/dev/null | sed -n '/DATA {/,/}/p' | grep -o '"[^"]*"' | tr -d '"'; }
no_private_directory_left() { check && [ -z "$(ls -A | grep '^\.mpimon-record-')" ] || fail "$1: private dump directory left behind"; }

# --- The demo ring at np 4, dumps kept. validation/programs/demo_ring.cpp: each rank sends one
# MPI_Sendrecv message of 4096 doubles to its right neighbour in each of 10 steps.
run "$mpimon" record -o ring.h5 --np 4 --keep-dumps kept -- "$ring"
expect_eq "$rc" 0 "ring: exit code ($err)"
expect_contains "$out" "demo ring: 10 steps on 4 ranks" "the application's own output is passed on"
expect_contains "$err" "4 of 4 ranks wrote their dumps; merged into ring.h5" "ring: summary line"
expect_contains "$err" "dumps kept in" "ring: where the dumps are"
expect_contains "$out" "dump mpimon-demo-ring" "ring: show summary"
expect_contains "$out" "processes: 4 (4 rank files present)" "ring: ranks"
expect_eq "$(class_totals "$out" external)" "40 1310720" "ring: external messages and bytes (4 ranks x 10 x 32768 B)"
internal=$(class_totals "$out" internal)
check && [ "${internal%% *}" -gt 0 ] 2>/dev/null || fail "ring: mode 2 tells the collectives' messages apart: internal $internal"
for r in 0 1 2 3; do check && [ -s "kept/mpimon-demo-ring.$r.prof" ] || fail "ring: dump of rank $r not kept"; done
# The merged file equals an independent merge of the kept dumps, matrix by matrix.
check && "$merge" -q -o independent.h5 kept/mpimon-demo-ring.*.prof || fail "independent merge"
mkdir recorded_mat independent_mat
check && "$mpimon" export mat --compat profile2mat ring.h5 -o recorded_mat >/dev/null || fail "export recorded"
check && "$mpimon" export mat --compat profile2mat independent.h5 -o independent_mat >/dev/null || fail "export independent"
check && diff -r recorded_mat independent_mat >/dev/null || fail "recorded file differs from a merge of its kept dumps"
check && [ -n "$(ls recorded_mat)" ] || fail "export wrote no matrix"
if [ -n "${PROFILE2MAT:-}" ] && [ -x "${PROFILE2MAT:-}" ]; then
  mkdir peer && cat kept/mpimon-demo-ring.{0,1,2,3}.prof >peer/mpimon-demo-ring.prof
  check && (cd peer && "$PROFILE2MAT" mpimon-demo-ring.prof >/dev/null) || fail "profile2mat"
  rm peer/mpimon-demo-ring.prof
  check && diff -r peer recorded_mat >/dev/null || fail "recorded file differs from Open MPI's profile2mat on the dumps"
else
  skip_part "profile2mat not installed (package openmpi-bin): the recorded file against Open MPI's own merge"
fi

# The file says which Open MPI ran and which monitoring components it loaded: as mpirun --version
# and ompi_info (Open MPI's own tools) say.
expected_release=$(mpirun --version | sed -n '1s/.*(Open MPI) \([0-9][0-9.a-z]*\).*/\1/p')
expected_components=$(ompi_info --parsable | sed -n 's/^mca:\(coll\|osc\|pml\):monitoring:version:.*/\1/p' | sort -u)
check && [ -n "$expected_release" ] && [ -n "$expected_components" ] || fail "mpirun --version or ompi_info said nothing"
expect_eq "$(root_attribute ring.h5 open_mpi_version)" "$expected_release" "ring: open_mpi_version attribute"
expect_eq "$(root_attribute ring.h5 monitoring_components)" "$expected_components" "ring: monitoring_components"
expect_contains "$out" "Open MPI $expected_release, monitoring components: $(echo $expected_components | sed 's/ /, /g')" \
  "ring: show names the run's Open MPI"
check && [[ "$out" == *"version not recorded"* ]] && fail "ring: show says the version is not recorded"
check && [[ "$out" == *"osc-list-disables-monitoring"* ]] && fail "ring: osc monitoring was loaded, yet show warns it was not"

# --- Without --keep-dumps: the private directory is removed; the default output is named after
# the application; mode 1 counts every message as external.
run "$mpimon" record --np 2 --mode 1 -- "$ring"
expect_eq "$rc" 0 "default output: exit code ($err)"
check && [ -s mpimon-demo-ring.h5 ] || fail "default output file mpimon-demo-ring.h5 not written"
expect_contains "$err" "--mca pml_monitoring_enable 1" "the launch line says the mode"
expect_eq "$(class_totals "$out" internal)" "0 0" "mode 1: nothing internal"
no_private_directory_left "default output"

# --- The built-in CG workload against its ledger (every message each rank sent).
if [ -n "$workload" ]; then
  mkdir ledger
  run "$mpimon" record --np 2 -o cg.h5 -- "$workload" --workload cg --class small --ledger ledger/cg
  expect_eq "$rc" 0 "cg: exit code ($err)"
  read -r sent sent_bytes < <(cat ledger/cg.*.ledger | awk '$1 == "E" { n++; b += $3 } END { print n, b }')
  expect_eq "$(class_totals "$out" external)" "$sent $sent_bytes" "cg: external messages and bytes against the ledger"
else
  echo "mpimon-workload not built: the workload is not checked against its ledger"
fi

# --- Monitoring silently disabled: stopped before the launch, nothing written, nothing left.
run "$mpimon" record --np 2 -o off.h5 --mca pml=ob1 -- "$ring"
expect_eq "$rc" 2 "--mca pml=ob1: usage error"
expect_contains "$err" "--mca pml=ob1: a pml list without 'monitoring' switches the monitoring off" "--mca pml=ob1"
expect_contains "$err" "pml=ob1,monitoring" "--mca pml=ob1: the fix"
run env OMPI_MCA_pml='^monitoring' "$mpimon" record --np 2 -o off.h5 -- "$ring"
expect_eq "$rc" 1 "OMPI_MCA_pml=^monitoring: input error"
expect_contains "$err" "OMPI_MCA_pml=^monitoring in the environment" "the environment variable is named"
mkdir -p home/.openmpi && printf '# site settings\npml = ob1   # fast path\n' >home/.openmpi/mca-params.conf
run env HOME="$PWD/home" "$mpimon" record --np 2 -o off.h5 -- "$ring"
expect_eq "$rc" 1 "pml in mca-params.conf: input error"
expect_contains "$err" "pml = ob1 in $PWD/home/.openmpi/mca-params.conf" "the parameter file is named"
# The user's --mca comes first: it repairs the environment's list.
run env OMPI_MCA_pml=ob1 "$mpimon" record --np 2 -o repaired.h5 --mca pml=ob1,monitoring -- "$ring"
expect_eq "$rc" 0 "--mca pml=ob1,monitoring over OMPI_MCA_pml=ob1 ($err)"
run "$mpimon" record --np 2 -o off.h5 --keep-dumps /proc -- "$ring"
expect_eq "$rc" 1 "unwritable dump directory"
expect_contains "$err" "/proc: the ranks could not write their dumps here" "unwritable directory named"
run "$mpimon" record --np 2 -o off.h5 --keep-dumps /proc/mpimon-record-test -- "$ring"
expect_eq "$rc" 1 "a dump directory that cannot be made"
expect_contains "$err" "--keep-dumps: cannot make the directory" "cannot make"
run "$mpimon" record --np 2 -o off.h5 --keep-dumps kept -- "$ring"
expect_eq "$rc" 1 "--keep-dumps over an earlier run's dumps"
expect_contains "$err" "already holds mpimon-demo-ring.RANK.prof dumps" "earlier dumps named"
run "$mpimon" record --np 2 -o off.h5 --mca pml_monitoring_filename=x -- "$ring"
expect_eq "$rc" 2 "--mca of a parameter record sets"
expect_contains "$err" "is set by mpimon record" "record's own parameters"
check && [ -e off.h5 ] && fail "a refused run wrote its output"
no_private_directory_left "refused runs"
# An osc (or coll) list without monitoring: the run goes on, with a warning of what is missing.
# (coll=^monitoring is not run here: with pml monitoring on, the ring crashes in Open MPI 4.1.4.)
run "$mpimon" record --np 2 -o noosc.h5 --mca osc=^monitoring -- "$ring"
expect_eq "$rc" 0 "osc=^monitoring ($err)"
expect_contains "$err" "warning: --mca osc=^monitoring leaves the osc monitoring out: one-sided operations" "osc warning"
expect_eq "$(root_attribute noosc.h5 monitoring_components)" "$(grep -v '^osc$' <<<"$expected_components")" \
  "osc=^monitoring: the components recorded"
expect_contains "$out" "    osc-list-disables-monitoring: " "osc=^monitoring: show warns of it"

# --- A failing application, and ranks without a dump. The wrapper runs the ring (so every rank
# writes its dump at MPI_Finalize), then rank 1 deletes its dump and exits with $2 (the others
# with 0: mpirun would kill rank 1 before its deletion if another rank failed first).
cat >drop_rank1.sh <<'EOF'
#!/bin/sh
"$1" >/dev/null || exit 9
rank=${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-}}
[ "$rank" = 1 ] || exit 0
rm -f "$3/drop_rank1.sh.1.prof"
exit "$2"
EOF
chmod +x drop_rank1.sh
run "$mpimon" record --np 3 -o dropped.h5 --keep-dumps dropped -- ./drop_rank1.sh "$ring" 0 "$PWD/dropped"
expect_eq "$rc" 1 "a rank without a dump, the application fine: exit 1"
expect_contains "$err" "error: rank 1 wrote no dump (of 3)" "the missing rank is named"
expect_contains "$out" "processes: 3 (2 rank files present)" "the others are merged"
run "$mpimon" record --np 3 -o failed.h5 --keep-dumps failed -- ./drop_rank1.sh "$ring" 5 "$PWD/failed"
expect_eq "$rc" 5 "the application's exit code is passed on"
expect_contains "$err" "the application failed (exit code 5)" "failure said"
expect_contains "$err" "failed.h5 holds what the ranks recorded until then" "what was recorded is kept, and said so"
expect_contains "$err" "rank 1 wrote no dump (of 3): they ended before MPI_Finalize" "missing rank of a failed run"
check && [ -s failed.h5 ] || fail "a failed application's dumps were not merged"
run "$mpimon" record --np 2 -o nothing.h5 -- sh -c 'exit 7'
expect_eq "$rc" 7 "a failure before any dump: exit code passed on"
expect_contains "$err" "nothing recorded: no rank wrote its dump" "nothing recorded said"
check && [ -e nothing.h5 ] && fail "nothing recorded, yet an output file"
no_private_directory_left "failed runs"

# --- Usage.
run "$mpimon" record --np 2
expect_eq "$rc" 2 "no application"
expect_contains "$err" "no application: give it after --" "no application message"
run "$mpimon" record --mode 3 -- "$ring"
expect_eq "$rc" 2 "--mode 3"
run "$mpimon" record --help
expect_eq "$rc" 0 "--help"
expect_contains "$out" "--keep-dumps" "--help lists the options"

finish "record"
