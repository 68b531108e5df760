#!/usr/bin/env bash
# mpimon probe end to end on this host (docs/placement.md, "Measuring the links"): two ranks on
# cores 0 and 1 (tleaf 1 16 1: leaf 0 and leaf 1), the links file it writes (format, one link, the
# hosts the ranks reported), read back by mpimon place --links on the 16-rank stencil; errors
# before any launch. Never a timing: only that the numbers are there and positive.
# Usage: probe_test.sh MPIMON MERGE FIXTURE_DIR
mpimon=$1 merge=$2 fixtures=$3
source "$(dirname "$0")/test_lib.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
json_field() { python3 -c "import json,sys; d=json.load(open('$1')); print(eval(sys.argv[1]))" "$2"; }
small=(--repetitions 50 --size 65536 --messages 4 --rounds 2)

run "$mpimon" probe --topology "tleaf 1 16 1" --hosts "$(hostname)" -o links.json "${small[@]}"
expect_eq "$rc" 0 "probe ($err)"
expect_eq "$(json_field links.json 'd["format"], d["version"], d["topology"], len(d["links"])')" \
  "('mpimon-links', 1, 'tleaf 1 16 1', 1)" "the links file's header"
expect_eq "$(json_field links.json 'd["links"][0]["bits_per_second"] > 0 and d["links"][0]["latency_seconds"] >= 0')" True \
  "a rate and a latency"
expect_contains "$(json_field links.json 'd["links"][0]["how"]')" "ranks on leaves 0 and 1 ($(hostname), $(hostname))" \
  "where the two ranks ran, as they reported it"
expect_contains "$out" "below level 0:" "the table"
expect_contains "$err" "--rankfile" "the launch line on stderr"
check && "$merge" -q -o run.h5 "$fixtures"/stencil.*.prof || fail "merge"
run "$mpimon" place run.h5 --topology "tleaf 1 16 1" --links links.json --method packed --json p.json
expect_eq "$rc" 0 "place --links ($err)"
expect_eq "$(json_field p.json 'd["methods"][0]["predicted_seconds"] > 0')" True "a prediction from the measured links"

# Errors: exit 2 naming the option (or 1 naming the file), nothing launched, no file written.
for bad in "--mca nokeyvalue" "--rounds 0" "--topology 2x2" "--hosts a --hostfile x"; do
  # shellcheck disable=SC2086
  run "$mpimon" probe --topology "tleaf 1 16 1" -o e.json "${small[@]}" $bad
  expect_eq "$rc" 2 "$bad: exit code ($err)"
done
run "$mpimon" probe --topology "tleaf 1 16 1"
expect_eq "$rc" 2 "no -o"
run "$mpimon" probe --topology "tleaf 1 16 1" -o missing/e.json "${small[@]}"
expect_eq "$rc" 1 "-o in a missing directory"
expect_contains "$err" "missing" "-o in a missing directory: named"
run "$mpimon" probe --topology "tleaf 1 16 1" --launcher false -o e.json "${small[@]}"
expect_eq "$rc" 9 "a launch that fails"
check && [ ! -e e.json ] || fail "a links file after a failure"
finish "probe"
