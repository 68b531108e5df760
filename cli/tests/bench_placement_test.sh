#!/usr/bin/env bash
# End-to-end test of `mpimon bench placement` at np 2 with two rankfiles that put the two ranks on
# different cores of this host (A: rank r on core r; B: swapped): the table's structure, the
# launches (each arm's own rankfile, on the launch line and in the bindings mpirun reported), resume,
# `mpimon show`, exit codes and errors; never the timings (docs/placement.md).
# Usage: bench_placement_test.sh MPIMON DEMO_RING [WORKLOAD_PROGRAM]
set -u
mpimon=$1
ring=$2
workload=${3:-}
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"

if [ "$(nproc)" -lt 2 ]; then
  echo "skipped: two cores are needed to place two ranks on different cores"
  exit 77
fi
host=$(hostname)
printf 'rank 0=%s slot=0\nrank 1=%s slot=1\n' "$host" "$host" >a.rf
printf 'rank 0=%s slot=1\nrank 1=%s slot=0\n' "$host" "$host" >b.rf
# The application: a tiny built-in workload when it is built, else the demo ring (a command).
if [ -n "$workload" ]; then
  app=(--workload stencil --iterations 2 --workload-program "$workload")
  label=stencil.small
else
  skip_part "mpimon-workload not built: the built-in workload (the demo ring is timed instead)"
  app=(-- "$ring")
  label=mpimon-demo-ring
fi

# --- Two pairs, then a third with --resume.
run "$mpimon" bench placement --rankfile a.rf --rankfile b.rf --np 2 --pairs 2 -o p.h5 "${app[@]}"
expect_eq "$rc" 0 "bench placement exit code ($err)"
expect_contains "$err" "4 launches planned, 0 already in p.h5" "plan"
check && [ "$(grep -c "^\[[1-4]/4\] $label np 2 pair [12] [AB]   ok" <<<"$err")" -eq 4 ] || fail "progress lines: $err"
# The table: its header, one row for the application, the arms' rankfiles, the results file.
header=$(grep "^application " <<<"$out")
for column in "np" "pairs" "A s" "B s" "B - A s [95% CI]" "B vs A % [95% CI]" "p (t)" "p (W)" "faster"; do
  expect_contains "$header" "$column" "table header"
done
row=$(grep "^$label " <<<"$out")
check && [ "$(wc -l <<<"$row")" -eq 1 ] || fail "expected one row for $label: $out"
read -r -a cells <<<"$row"
expect_eq "${cells[1]}" 2 "np column"
expect_eq "${cells[2]}" 2 "pairs column"
check && [[ "${cells[3]}" =~ ^[0-9.]+$ && "${cells[4]}" =~ ^[0-9.]+$ ]] || fail "A s, B s not times: $row"
check && [[ "${cells[-1]}" =~ ^(A|B|inconclusive)$ ]] || fail "faster column: $row"
expect_contains "$out" "A: $work/a.rf" "A's rankfile"
expect_contains "$out" "B: $work/b.rf" "B's rankfile"
expect_contains "$out" "results: p.h5" "results line"
if [ "${cells[-1]}" = inconclusive ]; then
  expect_contains "$out" "$label np 2: inconclusive: the 95 % CI" "the inconclusive line"
fi

run "$mpimon" bench placement --rankfile a.rf --rankfile b.rf --np 2 --pairs 2 -o p.h5 "${app[@]}"
expect_eq "$rc" 1 "an existing results file without --resume"
expect_contains "$err" "exists: use --resume" "existing file"
run "$mpimon" bench placement --rankfile a.rf --rankfile b.rf --np 2 --pairs 3 --resume -o p.h5 "${app[@]}"
expect_eq "$rc" 0 "resume ($err)"
expect_contains "$err" "6 launches planned, 4 already in p.h5" "resume skips the done launches"
run "$mpimon" bench placement --rankfile b.rf --rankfile a.rf --np 2 --pairs 4 --resume -o p.h5 "${app[@]}"
expect_eq "$rc" 1 "resume with the rankfiles swapped"
expect_contains "$err" "was recorded with other arms" "resume with other arms"
run "$mpimon" show p.h5
expect_eq "$rc" 0 "show ($err)"
expect_contains "$out" "launches: 6, 6 ok" "show: launches"
expect_contains "$out" "B vs A % [95% CI]" "show: the placement table"
check && grep -q "^$label  *2  *3 " <<<"$out" || fail "show: the row with 3 pairs: $out"

# --- Each launch ran under its own rankfile: its launch line, and mpirun's report of the bindings.
if /usr/bin/python3 -c "import h5py" 2>/dev/null; then
  check && /usr/bin/python3 - p.h5 "$work/a.rf" "$work/b.rf" <<'PY' || fail "the launches in p.h5"
import re, sys, h5py
f = h5py.File(sys.argv[1], "r")
text = lambda v: v.decode() if isinstance(v, bytes) else str(v)
rankfile = {"A": sys.argv[2], "B": sys.argv[3]}
core_of = {"A": {0: 0, 1: 1}, "B": {0: 1, 1: 0}}  # what a.rf and b.rf say
launches = [f["launches"][k].attrs for k in f["launches"]]
assert len(launches) == 6, len(launches)
assert sorted((int(a["pair"]), text(a["arm"])) for a in launches) == [(p, x) for p in (1, 2, 3) for x in "AB"]
for a in launches:
    arm, command, bindings = text(a["arm"]), text(a["command"]), text(a["bindings"])
    assert f"--rankfile {rankfile[arm]} " in command, command
    assert "pml ^monitoring" in command and "pml_monitoring_enable" not in command, command  # monitoring off
    # Open MPI 4.1: "MCW rank 0 bound to socket 0[core 1[hwt 0]]"; 5.0: "Rank 0 bound to package[0][core:1]"
    seen = {int(r): int(c) for r, c in re.findall(r"[Rr]ank (\d+) bound to .*?core[ :\[]*(\d+)", bindings)}
    assert seen == core_of[arm], (arm, bindings)
config = f["configuration"].attrs
assert text(config["arms"]) == "A,B"
for arm in "AB":
    assert text(config["arm_" + arm]) == f"rankfile {rankfile[arm]}:\n" + open(rankfile[arm]).read()
for key in ("mpi_library", "launcher", "np", "pairs", "host", "cpus", "seed", "time_source"):
    assert key in config, key
assert [text(x) for x in f["analysis"]["app"]] and len(f["pairs"]["relative"]) == 3
assert "A_mean_s" in f["analysis"] and "B_mean_s" in f["analysis"]
PY
else
  skip_part "h5py missing for /usr/bin/python3: the launches' rankfiles and bindings in the results file"
fi

# --- Errors: clear, exit 1 (a file) or 2 (usage), nothing launched, no results file.
printf 'rank 0=%s slot=0\n' "$host" >short.rf
cp a.rf same.rf
check_error() {  # CODE WORDS ARGS...
  local code=$1 words=$2
  shift 2
  run "$mpimon" bench placement "$@" -o e.h5 -- "$ring"
  expect_eq "$rc" "$code" "bench placement $* (exit code; $err)"
  expect_contains "$err" "$words" "bench placement $*"
  check && [ -e e.h5 ] && fail "bench placement $*: left a results file"
  rm -f e.h5
}
check_error 1 "missing.rf: cannot read this rankfile" --rankfile a.rf --rankfile missing.rf
check_error 2 "hold the same placement" --rankfile a.rf --rankfile same.rf
check_error 2 "give exactly two rankfiles" --rankfile a.rf
check_error 2 "give exactly two rankfiles" --rankfile a.rf --rankfile b.rf --rankfile same.rf
check_error 1 "short.rf: no 'rank 1=' line" --rankfile a.rf --rankfile short.rf
check_error 1 "a.rf: no 'rank 2=' line" --np 3 --rankfile a.rf --rankfile b.rf
check_error 2 "Open MPI's mpirun or mpiexec" --launcher srun --rankfile a.rf --rankfile b.rf
check_error 2 "--np" --np 0 --rankfile a.rf --rankfile b.rf
run "$mpimon" bench placement --help
expect_eq "$rc" 0 "--help"
expect_contains "$out" "--rankfile A.rf --rankfile B.rf" "--help synopsis"
run "$mpimon" --help
expect_contains "$out" "bench placement" "mpimon --help lists bench placement"

finish "bench placement"
