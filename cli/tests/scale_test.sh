#!/usr/bin/env bash
# 10^5 ranks end to end, in bounded memory: a 100,000-rank 7-point stencil dump (one file per
# rank, no histograms and no collective section, so the set stays near 80 MB) merged from its
# directory (the file names alone exceed the shell's usual 2 MB argument limit), then `mpimon show`
# and the graph exports, each under /usr/bin/time: peak RSS must stay far below N^2 bytes
# (an N x N uint64 matrix would be 8 N^2 = 80 GB). A memory bound, never a timing.
# The dense TreeMatch export must be refused, and nothing written.
# Usage: scale_test.sh MPIMON MPIMON_MERGE MPIMON_SYNTH_DUMPS
set -u
mpimon=$1 merge=$2 synth=$3
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"
[ -x /usr/bin/time ] || { echo "/usr/bin/time missing (Debian package time): skipped"; exit 77; }

n=100000
if [ -n "${MPIMON_SANITIZED:-}" ]; then
  echo "SKIP: a build with sanitizers (${MPIMON_SANITIZED}) inflates peak memory: the bound is checked in the plain build"
  exit 77
fi
bound=$((n * n / 25))  # bytes: 400 MB, 1/25 of N^2 (and 1/200 of one dense uint64 matrix)

# peak_rss_bytes CMD...: runs CMD (its stdout to $work/cmd.out); sets rc and peak (bytes)
peak_rss_bytes() {
  /usr/bin/time -f '%M' -o "$work/time.txt" "$@" >"$work/cmd.out" 2>"$work/cmd.err"
  rc=$?
  peak=$(($(tail -1 "$work/time.txt") * 1024))
}

check && "$synth" --pattern stencil --ranks $n --mode 1 --collectives no --histograms no --seed 3 -o prof/stencil_100k ||
  { fail "generator"; finish scale_100k; }
names=$(find prof -name '*.prof' | wc -c)
echo "file names: $names bytes; ARG_MAX: $(getconf ARG_MAX)"
check && [ "$names" -gt "$(getconf ARG_MAX)" ] || fail "the names fit on a command line: the test would not show the directory input at scale"

peak_rss_bytes "$merge" -o s7.h5 prof
expect_eq "$rc" 0 "merge of the directory ($(cat "$work/cmd.err"))"
expect_contains "$(cat "$work/cmd.out")" "dump stencil_100k: $n processes, all $n ranks present" "merge summary"
expect_contains "$(cat "$work/cmd.out")" "csr layout" "CSR layout above --csr-above"
echo "merge: peak RSS $peak bytes"

# Independent expectation: the E lines of the files, counted by awk (find, as prof/*.prof is too long).
pairs=$(find prof -name '*.prof' -exec cat {} + | awk -F'\t' '$1 == "E" { n++ } END { print n + 0 }')

peak_rss_bytes "$mpimon" show s7.h5
expect_eq "$rc" 0 "show ($(cat "$work/cmd.err"))"
expect_eq "$(grep -E '^  external ' "$work/cmd.out" | awk '{ print $4 }')" "$pairs" "show: external pairs = E lines"
check && [ "$peak" -lt "$bound" ] || fail "show: peak RSS $peak bytes, not below N^2/25 = $bound"
echo "show: peak RSS $peak bytes (bound $bound)"

for format in scotch metis; do
  peak_rss_bytes "$mpimon" export $format s7.h5 -o s7.$format
  expect_eq "$rc" 0 "export $format ($(cat "$work/cmd.err"))"
  check && [ "$peak" -lt "$bound" ] || fail "export $format: peak RSS $peak bytes, not below N^2/25 = $bound"
  echo "export $format: peak RSS $peak bytes (bound $bound)"
done
expect_eq "$(sed -n 2p s7.scotch | cut -d' ' -f1)" "$n" "scotch: vertices"
expect_eq "$(($(wc -l <s7.scotch) - 3))" "$n" "scotch: one line per vertex"
if command -v gtst >/dev/null; then
  run gtst s7.scotch
  expect_eq "$rc" 0 "gtst reads the 10^5-vertex graph ($err)"
  expect_contains "$out" "S	Vertex	nbr=$n" "gtst: vertices"
fi
if command -v graphchk >/dev/null; then
  run graphchk s7.metis
  expect_contains "$out" "The format of the graph is correct" "graphchk on the 10^5-vertex graph"
fi

run "$mpimon" export treematch s7.h5 -o s7.mat
expect_eq "$rc" 2 "treematch refused at 10^5"
expect_contains "$err" "100000 x 100000 = 1e+10 entries, at least 20.0 GB of text" "refusal says the size"
expect_contains "$err" "use 'mpimon export scotch' or 'mpimon export metis'" "refusal says what to use"
check && [ ! -e s7.mat ] || fail "s7.mat written"
finish scale_100k
