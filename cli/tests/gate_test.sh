#!/usr/bin/env bash
# End-to-end test of `mpimon gate`'s deterministic measure: a known extra cost per recording,
# injected with libmpimon-gate-inject.so (a two-instruction loop run LOOPS times before each of
# Open MPI's monitoring record functions), must fail the gate, with exactly 2 x LOOPS more
# instructions per message and per put; the same run without it must pass. The expected deltas
# come from the injected loop, not from the gate. Also: a baseline from another build asks for a
# re-record, bad baselines and options are rejected with the file named and no report left.
# Usage: gate_test.sh MPIMON INJECT_LIBRARY
set -u
mpimon=$1
inject=$2
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"

loops=25
common=(--measure instructions --count 20 --runs 2 --probe-ops send,put,get,bcast --env "LD_PRELOAD=$inject")
value() {  # value FILE OP FIELD: a number from the JSON report's instruction row of OP
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print([x for x in r['instructions'] if x['op']==sys.argv[2]][0][sys.argv[3]])" "$@"
}

# The baseline and the passing run both load the library with 0 loops: its forwarding cost is in both.
"$mpimon" gate "${common[@]}" --on-env MPIMON_GATE_INJECT_LOOPS=0 --update-baseline --baseline base.json \
  >record.out 2>record.err || fail "recording the baseline: $(tail -5 record.err)"
grep -q '"valgrind": "valgrind-' base.json || fail "no valgrind version in the baseline"
grep -q '"open_mpi": ' base.json || fail "no Open MPI version in the baseline"

"$mpimon" gate "${common[@]}" --on-env MPIMON_GATE_INJECT_LOOPS=0 --baseline base.json --json pass.json \
  --junit pass.xml >pass.out 2>pass.err
rc=$?
[ $rc -eq 0 ] || fail "the unchanged build failed the gate (exit $rc): $(cat pass.out)"
grep -q "no confirmed regression" pass.out || fail "no pass verdict: $(tail -3 pass.out)"
python3 - pass.xml <<'PY' || fail "JUnit report of the passing run"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suite = root.find("testsuite")
assert suite.get("tests") == "4" and suite.get("failures") == "0", ET.tostring(suite)
PY

"$mpimon" gate "${common[@]}" --on-env MPIMON_GATE_INJECT_LOOPS=$loops --baseline base.json --json fail.json \
  --junit fail.xml >fail.out 2>fail.err
rc=$?
[ $rc -eq 3 ] || fail "the injected cost did not fail the gate with exit code 3 (exit $rc): $(cat fail.out)"
for op in send put; do
  base=$(value fail.json $op baseline_per_op)
  now=$(value fail.json $op now_per_op)
  [ "$(python3 -c "print(int($now - $base))")" -eq $((2 * loops)) ] ||
    fail "$op: expected exactly $((2 * loops)) more instructions per operation, baseline $base now $now"
  [ "$(value fail.json $op verdict)" = REGRESSION ] || fail "$op not reported as a regression"
done
for op in get bcast; do  # one recording or more per operation
  [ "$(value fail.json $op verdict)" = REGRESSION ] || fail "$op not reported as a regression"
done
python3 - fail.xml <<'PY' || fail "JUnit report of the failing run"
import sys, xml.etree.ElementTree as ET
suite = ET.parse(sys.argv[1]).getroot().find("testsuite")
assert suite.get("failures") == "4", ET.tostring(suite)
assert len(suite.findall("testcase/failure")) == 4
PY

# A baseline recorded by another valgrind: nothing is judged, a re-record is asked for, exit 0.
sed 's/"valgrind": "valgrind-[^"]*"/"valgrind": "valgrind-0.0"/' base.json >other.json
"$mpimon" gate "${common[@]}" --on-env MPIMON_GATE_INJECT_LOOPS=$loops --baseline other.json --json o.json \
  --junit o.xml >other.out 2>&1 || fail "a baseline from another build failed the gate: $(tail -3 other.out)"
grep -q "baseline from another build: re-record" other.out || fail "no re-record notice: $(cat other.out)"

# Bad input: the file is named, the exit code is 1, no report is written.
echo '{"format": "something else"}' >bad.json
"$mpimon" gate "${common[@]}" --baseline bad.json --json bad-report.json >bad.out 2>&1
rc=$?
[ $rc -eq 1 ] || fail "bad baseline: exit $rc"
grep -q "bad.json: not an mpimon-gate-baseline file" bad.out || fail "bad baseline message: $(cat bad.out)"
printf '{"format": "mpimon-gate-baseline",\n "format_version": 1,\n "instructions": [' >broken.json
"$mpimon" gate "${common[@]}" --baseline broken.json >broken.out 2>&1 && fail "a truncated baseline was accepted"
grep -q "broken.json:3:" broken.out || fail "truncated baseline: no file:line: $(cat broken.out)"
"$mpimon" gate "${common[@]}" --baseline missing.json >missing.out 2>&1
[ $? -eq 1 ] && grep -q "missing.json: no baseline: record one with --update-baseline" missing.out ||
  fail "missing baseline: $(cat missing.out)"
[ ! -e bad-report.json ] && [ ! -e gate-report.json ] || fail "a report was written after an error"
"$mpimon" gate --measure nothing >usage.out 2>&1
[ $? -eq 2 ] || fail "a bad --measure is not a usage error"

finish gate
