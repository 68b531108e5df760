#!/usr/bin/env bash
# End-to-end test of `mpimon gate`'s deterministic measure: the smallest known extra cost per
# recording, injected with libmpimon-gate-inject.so (a two-instruction loop run once before each
# of Open MPI's monitoring record functions), must fail the gate with its default options for
# every operation, with exactly 2 x RECORDS more instructions per operation; the same run without
# it must pass. The expected deltas come from the injected loop and from how many record calls
# Open MPI's monitoring makes per operation (below), not from the gate. Also: a baseline from
# another build (exit 6), operations of the baseline not measured (exit 7), their --accept, bad
# baselines and options rejected with the file named and no report left.
# Usage: gate_test.sh MPIMON INJECT_LIBRARY
set -u
mpimon=$1
inject=$2
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"

loops=1
ops=send,put,get,bcast,allreduce,alltoall
# Record calls per operation on rank 0 (the rank under callgrind) of 2 processes, from Open MPI
# 4.1's monitoring components and the algorithms coll/tuned picks for 2 processes and 8 bytes:
#   send       1: pml record of the message
#   put        1: osc record (SEND, the data)
#   get        2: osc records a SEND of 0 bytes and a RECV of the data (osc_monitoring_comm.h)
#   bcast      2: coll record towards the one other process (rank 0 is the root) + pml record of
#                 the one message the root sends
#   allreduce  2: coll record towards the other process + pml record of the one message each
#                 process sends at 2 processes (recursive doubling, one exchange)
#   alltoall   2: coll record towards the other process + pml record of the one message to it
declare -A records=([send]=1 [put]=1 [get]=2 [bcast]=2 [allreduce]=2 [alltoall]=2)
base_options=(--measure instructions --count 20 --runs 2 --env "LD_PRELOAD=$inject")
common=("${base_options[@]}" --probe-ops $ops)
# One callgrind run where only the verdict on the build identity or the operations is checked
# (re-record, missing): the two runs' agreement is checked by the runs above them.
once=(--measure instructions --count 20 --runs 1 --env "LD_PRELOAD=$inject" --probe-ops $ops)
value() {  # value FILE OP FIELD: a number from the JSON report's instruction row of OP
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print([x for x in r['instructions'] if x['op']==sys.argv[2]][0][sys.argv[3]])" "$@"
}

# The baseline and the passing run both load the library with 0 loops: its forwarding cost is in both.
check && "$mpimon" gate "${common[@]}" --on-env MPIMON_GATE_INJECT_LOOPS=0 --update-baseline --baseline base.json \
  >record.out 2>record.err || fail "recording the baseline: $(tail -5 record.err)"
check && grep -q '"valgrind": "valgrind-' base.json || fail "no valgrind version in the baseline"
check && grep -q '"open_mpi": ' base.json || fail "no Open MPI version in the baseline"

"$mpimon" gate "${common[@]}" --on-env MPIMON_GATE_INJECT_LOOPS=0 --baseline base.json --json pass.json \
  --junit pass.xml >pass.out 2>pass.err
rc=$?
check && [ $rc -eq 0 ] || fail "the unchanged build failed the gate (exit $rc): $(cat pass.out)"
check && grep -q "no confirmed regression" pass.out || fail "no pass verdict: $(tail -3 pass.out)"
check && python3 - pass.xml <<'PY' || fail "JUnit report of the passing run"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suite = root.find("testsuite")
assert suite.get("tests") == "6" and suite.get("failures") == "0", ET.tostring(suite)
PY

"$mpimon" gate "${common[@]}" --on-env MPIMON_GATE_INJECT_LOOPS=$loops --baseline base.json --json fail.json \
  --junit fail.xml >fail.out 2>fail.err
rc=$?
check && [ $rc -eq 3 ] || fail "the injected cost did not fail the gate with exit code 3 (exit $rc): $(cat fail.out)"
for op in ${ops//,/ }; do
  base=$(value fail.json $op baseline_per_op)
  now=$(value fail.json $op now_per_op)
  check && [ "$(python3 -c "print(int($now - $base))")" -eq $((2 * loops * records[$op])) ] ||
    fail "$op: expected exactly $((2 * loops * records[$op])) more instructions per operation, baseline $base now $now"
  check && [ "$(value fail.json $op verdict)" = REGRESSION ] || fail "$op not reported as a regression"
done
check && python3 - fail.xml <<'PY' || fail "JUnit report of the failing run"
import sys, xml.etree.ElementTree as ET
suite = ET.parse(sys.argv[1]).getroot().find("testsuite")
assert suite.get("failures") == "6", ET.tostring(suite)
assert len(suite.findall("testcase/failure")) == 6
PY

# A baseline recorded by another valgrind: nothing is judged, exit 6 with what to do; accepted
# explicitly with --accept rerecord.
sed 's/"valgrind": "valgrind-[^"]*"/"valgrind": "valgrind-0.0"/' base.json >other.json
"$mpimon" gate "${once[@]}" --on-env MPIMON_GATE_INJECT_LOOPS=0 --baseline other.json --json o.json \
  --junit o.xml >other.out 2>&1
rc=$?
check && [ $rc -eq 6 ] || fail "a baseline from another build: exit $rc, expected 6: $(tail -3 other.out)"
check && grep -q "baseline from another build: re-record" other.out || fail "no re-record notice: $(cat other.out)"
check && grep -q "re-record it on this machine with --update-baseline" other.out || fail "no advice: $(cat other.out)"
check && "$mpimon" gate "${once[@]}" --on-env MPIMON_GATE_INJECT_LOOPS=0 --baseline other.json --accept rerecord \
  --json o2.json --junit o2.xml >other2.out 2>&1 || fail "--accept rerecord: $(tail -3 other2.out)"

# An operation of the baseline that this run does not measure (a copy of send renamed "scan"):
# exit 7, the operation named; --accept missing passes. (Measuring fewer operations instead would
# also change the libraries loaded, hence a re-record.)
check && python3 - base.json extra.json <<'PY' || fail "writing a baseline with an extra operation"
import json, sys
b = json.load(open(sys.argv[1]))
ops = b["instructions"]["operations"]
extra = dict([o for o in ops if o["op"] == "send"][0]); extra["op"] = "scan"
ops.append(extra)
json.dump(b, open(sys.argv[2], "w"), indent=1)
PY
"$mpimon" gate "${once[@]}" --on-env MPIMON_GATE_INJECT_LOOPS=0 --baseline extra.json \
  --json m.json --junit m.xml >miss.out 2>&1
rc=$?
check && [ $rc -eq 7 ] || fail "an operation of the baseline not measured: exit $rc, expected 7: $(tail -3 miss.out)"
check && [ "$(value m.json scan verdict)" = missing ] || fail "scan: not reported as missing: $(cat miss.out)"
check && "$mpimon" gate "${once[@]}" --on-env MPIMON_GATE_INJECT_LOOPS=0 --baseline extra.json \
  --accept missing --json m2.json --junit m2.xml >miss2.out 2>&1 || fail "--accept missing: $(tail -3 miss2.out)"
"$mpimon" gate --accept everything >usage2.out 2>&1
rc=$?
check && [ $rc -eq 2 ] && grep -q "accept.*rerecord, missing and unstable" usage2.out || fail "a bad --accept: $(cat usage2.out)"

# Bad input: the file is named, the exit code is 1, no report is written.
echo '{"format": "something else"}' >bad.json
"$mpimon" gate "${common[@]}" --baseline bad.json --json bad-report.json >bad.out 2>&1
rc=$?
check && [ $rc -eq 1 ] || fail "bad baseline: exit $rc"
check && grep -q "bad.json: not an mpimon-gate-baseline file" bad.out || fail "bad baseline message: $(cat bad.out)"
printf '{"format": "mpimon-gate-baseline",\n "format_version": 1,\n "instructions": [' >broken.json
check && "$mpimon" gate "${common[@]}" --baseline broken.json >broken.out 2>&1 && fail "a truncated baseline was accepted"
check && grep -q "broken.json:3:" broken.out || fail "truncated baseline: no file:line: $(cat broken.out)"
"$mpimon" gate "${common[@]}" --baseline missing.json >missing.out 2>&1
rc=$?
check && [ $rc -eq 1 ] && grep -q "missing.json: no baseline: record one with --update-baseline" missing.out ||
  fail "missing baseline: $(cat missing.out)"
check && [ ! -e bad-report.json ] && [ ! -e gate-report.json ] || fail "a report was written after an error"
"$mpimon" gate --measure nothing >usage.out 2>&1
rc=$?
check && [ $rc -eq 2 ] || fail "a bad --measure is not a usage error"

finish gate
