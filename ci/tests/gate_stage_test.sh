#!/usr/bin/env bash
# ci/test.sh's gate step (`ci/summary.py gate`) with the real `mpimon gate`, each measure
# counted on its own, against a baseline whose timing is from another CPU (as on any machine but
# the one that recorded results/gate/baseline.json):
# - an injected instruction cost (libmpimon-gate-inject.so, one two-instruction loop per record
#   call) reaches the summary as a failure, while the timing re-record stays a skip saying so;
# - without it the instruction measure passes;
# - an operation missing from the run (a baseline with one more) fails too: the timing re-record
#   (exit 6) no longer hides it, as it did when both measures ran as one (6 outranks 7 and 8).
# Usage: gate_stage_test.sh REPO MPIMON INJECT_LIBRARY
set -u
repo=$1 mpimon=$2 inject=$3
source "$repo/cli/tests/test_lib.sh"
# A small grid for both measures (each run ignores the other measure's options).
grid=(--probe-ops send,put --count 20 --runs 2 --env "LD_PRELOAD=$inject" --ops send --sizes 8 --pairs 2
      --iterations 20 --warmup 2)
stage() {  # stage BASELINE LOOPS: the gate step and the summary, with "rc=N" last
  (export MPIMON_SUMMARY=$work/state.$2.$RANDOM MPIMON_EXPECTED_SKIPS=$work/skips.txt
   /usr/bin/python3 "$repo/ci/summary.py" gate "$mpimon" "$1" "$work" "${grid[@]}" \
     --on-env "MPIMON_GATE_INJECT_LOOPS=$2" >"$work/stage.out" 2>&1
   /usr/bin/python3 "$repo/ci/summary.py" print; echo "rc=$?")
}
echo "gate timing  sometimes: another CPU" >skips.txt

"$mpimon" gate "${grid[@]}" --on-env MPIMON_GATE_INJECT_LOOPS=0 --update-baseline --baseline base.json \
  >record.out 2>&1 || { echo "recording the baseline failed: $(tail -5 record.out)"; exit 1; }
python3 - base.json other.json extra.json <<'PY' || { echo "writing the baselines failed"; exit 1; }
import json, sys
b = json.load(open(sys.argv[1]))
b["timing"]["machine"]["cpu_model"] = "another CPU"
json.dump(b, open(sys.argv[2], "w"), indent=1)
ops = b["instructions"]["operations"]
extra = dict([o for o in ops if o["op"] == "send"][0]); extra["op"] = "scan"
ops.append(extra)
json.dump(b, open(sys.argv[3], "w"), indent=1)
PY

out=$(stage other.json 0)
expect_contains "$out" "1 passed, 0 failed, 1 skipped" "unchanged build: instructions pass, timing re-record skipped ($(cat stage.out))"
expect_contains "$(cat stage.out)" "gate: skipped (expected: sometimes: another CPU): timing: re-record" \
  "the timing re-record says what it is"
expect_contains "$out" "rc=0" "unchanged build: the summary passes"

out=$(stage other.json 1)
expect_contains "$out" "0 passed, 1 failed, 1 skipped" "injected cost: counts ($(cat stage.out))"
expect_contains "$out" "failed: gate: instructions: REGRESSION (mpimon gate exit code 3" "injected cost: named in the summary"
expect_contains "$out" "rc=1" "injected cost: the summary fails"
check && python3 -c "import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if r['exit_code'] == 3 and all(x['verdict'] == 'REGRESSION' for x in r['instructions']) else 1)" \
  gate-instructions.json || fail "the instruction report does not show the regression: $(cat gate-instructions.json)"

out=$(stage extra.json 0)
expect_contains "$out" "failed: gate: instructions: missing (exit code 7)" "missing operation: not hidden by the timing re-record ($(cat stage.out))"
expect_contains "$out" "rc=1" "missing operation: the summary fails"

finish "gate stage"
