#!/usr/bin/env bash
# End-to-end test of the gate for applications (`mpimon bench app --fail-above PCT --time-regex`):
# a fake application whose reported time is chosen per arm, so every verdict is known in advance
# (this is not a timing test). The application runs the demo ring (so the monitored arm writes its
# dumps), then prints "fake time: T s": 10 in the unmonitored arm; in the monitored arm (the only
# one whose environment has OMPI_MCA_pml_monitoring_enable) 10 x (1 + the next overhead of the
# list FAKE_OVERHEADS), one per monitored launch in pair order.
# Usage: app_gate_test.sh MPIMON DEMO_RING
set -u
mpimon=$1
ring=$2
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"

cat >fake_app.sh <<'EOF'
#!/bin/sh
"$1" >/dev/null || exit 9
if [ -n "${OMPI_MCA_pml_monitoring_enable:-}" ]; then
  n=$(($(cat "$FAKE_STATE" 2>/dev/null || echo 0) + 1))
  echo "$n" >"$FAKE_STATE"
  overhead=$(echo "$FAKE_OVERHEADS" | cut -d' ' -f"$n")
  awk -v o="$overhead" 'BEGIN { printf "fake time: %.6f s\n", 10 * (1 + o) }'
else
  echo "fake time: 10.000000 s"
fi
EOF
chmod +x fake_app.sh
regex='fake time: ([0-9.]+) s'

# gate NAME OVERHEADS [OPTIONS...]: a 4-pair sweep at np 1 against a 10 % limit.
gate() {
  local name=$1 overheads=$2
  shift 2
  rm -f "state.$name"
  run env FAKE_STATE="$PWD/state.$name" FAKE_OVERHEADS="$overheads" "$mpimon" bench app --np 1 --pairs 4 \
    -o "$name.h5" --time-regex "$regex" --fail-above 10 --json "$name.json" --junit "$name.xml" "$@" \
    -- ./fake_app.sh "$ring"
}

# Overheads 29, 30, 31, 30 %: d = 2.9, 3.0, 3.1, 3.0 s on 10 s; mean 3, sd 0.0816497,
# t_{0.975,3} = 3.182446: the 95 % CI [+28.70 %, +31.30 %] lies above 10 %.
gate above "0.29 0.30 0.31 0.30"
expect_eq "$rc" 6 "above the limit: exit code 6 ($err)"
expect_contains "$out" "ABOVE        fake_app.sh np 1: the whole 95 % CI [+28.70 %, +31.30 %] lies above 10.00 %" "above: verdict line"
expect_contains "$(cat above.json)" '"verdict": "above"' "above: JSON verdict"
expect_contains "$(cat above.json)" '"exit_code": 6' "above: JSON exit code"
expect_contains "$(cat above.xml)" 'failures="1"' "above: JUnit failure"
expect_contains "$(cat above.csv)" ",reported," "the time source is the reported time"
# Overheads 1, 1, 2, 0 %: d mean 0.1 s, sd 0.0816497: [-0.30 %, +2.30 %], wholly below 10 %.
gate pass "0.01 0.01 0.02 0.00"
expect_eq "$rc" 0 "below the limit: exit code 0 ($err)"
expect_contains "$out" "pass         fake_app.sh np 1: the whole 95 % CI [-0.30 %, +2.30 %] lies below 10.00 %" "pass: verdict line"
expect_contains "$(cat pass.xml)" 'failures="0" errors="0" skipped="0"' "pass: JUnit"
# Overheads -20, +30, -10, +40 %: d mean 1 s, sd 2.94392 s: [-36.8 %, +56.8 %]: spans both 0 and 10 %.
gate open "-0.20 0.30 -0.10 0.40"
expect_eq "$rc" 7 "inconclusive: exit code 7 ($err)"
expect_contains "$out" "inconclusive fake_app.sh np 1: inconclusive: the 95 % CI [-36.84 %, +56.84 %] spans both no cost and 10.00 %" \
  "inconclusive: verdict line"
expect_contains "$out" "pairs would narrow it to +-5.00 %" "inconclusive: the pairs needed"
expect_contains "$(cat open.json)" '"verdict": "inconclusive"' "inconclusive: JSON"
gate open_allowed "-0.20 0.30 -0.10 0.40" --allow-inconclusive
expect_eq "$rc" 0 "inconclusive allowed: exit code 0 ($err)"
expect_contains "$(cat open_allowed.xml)" 'skipped="1"' "inconclusive allowed: JUnit skipped"

# The table without a gate says "inconclusive" too, against 5 %.
expect_contains "$(cat open.csv)" ",inconclusive," "CSV verdict column"

# Errors: a regex that never matches; a regex with a workload; gate options without --fail-above.
run env FAKE_STATE="$PWD/state.nomatch" FAKE_OVERHEADS="0.1 0.1" "$mpimon" bench app --np 1 --pairs 1 -o nomatch.h5 \
  --time-regex 'no such line ([0-9]+)' -- ./fake_app.sh "$ring"
expect_eq "$rc" 9 "no match of --time-regex: a failed launch"
expect_contains "$err" "no match of --time-regex 'no such line ([0-9]+)' in the output" "no-match message"
run "$mpimon" bench app --np 1 --pairs 2 -o x.h5 --time-regex '(' -- ./fake_app.sh "$ring"
expect_eq "$rc" 2 "a bad regex: usage error"
run "$mpimon" bench app --workload cg --time-regex 'x' -o x.h5
expect_eq "$rc" 2 "--time-regex with a workload: usage error"
run "$mpimon" bench app --np 1 --json x.json -o x.h5 -- ./fake_app.sh "$ring"
expect_eq "$rc" 2 "--json without --fail-above: usage error"
check && [ -e x.h5 ] && fail "a usage error left a results file"

finish "app gate"
