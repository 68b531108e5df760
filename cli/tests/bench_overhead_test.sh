#!/usr/bin/env bash
# End-to-end test of `mpimon bench overhead` on a tiny grid: it checks what is recorded (launches,
# arms, pairing, resume, failures), never what the timings are.
# Usage: bench_overhead_test.sh MPIMON
set -u
mpimon=$1
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"

tiny=(--np 2 --sizes 0,64 --ops send,alltoall --iterations 20 --warmup 2)

# One pair first, then a second one with --resume: 3 arms x 2 pairs in the end.
check && "$mpimon" bench overhead "${tiny[@]}" --pairs 1 -o r.h5 >out1 2>err1 || fail "first sweep: $(tail -3 err1)"
check && grep -q "3 launches planned, 0 already" err1 || fail "plan of the first sweep: $(head -1 err1)"
check && "$mpimon" bench overhead "${tiny[@]}" --pairs 1 -o r.h5 >/dev/null 2>err2 && fail "an existing file was overwritten"
check && grep -q "exists: use --resume" err2 || fail "no advice on an existing file: $(cat err2)"
check && "$mpimon" bench overhead "${tiny[@]}" --pairs 2 --resume -o r.h5 >out3 2>err3 || fail "resumed sweep"
check && grep -q "6 launches planned, 3 already" err3 || fail "resume did not skip the done launches: $(head -1 err3)"

check && "$mpimon" show r.h5 --csv a.csv --launches-csv l.csv >show.txt || fail "show"
check && grep -q "launches: 6, 6 ok" show.txt || fail "launch count: $(grep launches: show.txt)"
# 2 arms against off x 2 ops x 2 sizes = 8 cells, each from 2 pairs.
check && [ "$(tail -n +2 a.csv | wc -l)" -eq 8 ] || fail "analysis rows: $(wc -l <a.csv)"
check && awk -F, 'NR > 1 && $6 != 2 { bad = 1 } END { exit bad }' a.csv || fail "cells not built from 2 pairs"
for arm in off on mpit_off; do
  check && [ "$(awk -F, -v a=$arm 'NR > 1 && $5 == a' l.csv | wc -l)" -eq 8 ] || fail "arm $arm: not 2 launches x 4 benchmarks"
done
check && awk -F, 'NR > 1 && $11 != 20 { bad = 1 } END { exit bad }' l.csv || fail "not 20 samples per benchmark"

# The figures: one Fig. 1 per arm, one Fig. 2 per arm and operation, each as PNG and SVG.
if /usr/bin/python3 -c "import matplotlib, h5py" 2>/dev/null; then
  check && "$mpimon" plot r.h5 -o fig >plot.txt 2>&1 || fail "plot: $(cat plot.txt)"
  for stem in fig1_shared_on fig1_shared_mpit_off fig2_shared_on_send fig2_shared_mpit_off_alltoall; do
    check && [ "$(head -c 8 fig/$stem.png | od -An -tx1 | tr -d ' ')" == "89504e470d0a1a0a" ] || fail "$stem.png is not a PNG"
    check && grep -q "<svg" fig/$stem.svg || fail "$stem.svg is not an SVG"
  done
  check && [ "$(ls fig | wc -l)" -eq 12 ] || fail "expected 12 figure files, got: $(ls fig | tr '\n' ' ')"
  check && "$mpimon" plot l.csv -o fig2 >/dev/null 2>errp && fail "plot accepted a CSV file"
  check && grep -q "l.csv: not a readable HDF5 file" errp || fail "plot error message: $(cat errp)"
else
  skip_part "matplotlib or h5py missing for /usr/bin/python3 (ci/install-deps.sh installs them): the figures"
fi

# Both designs in one sweep (docs/overhead.md, "Designs"): off, on, mpit_off and one interleaved
# launch per pair; the analysis has the pairs rows (on, mpit_off, and counting = on vs mpit_off)
# and the interleaved counting rows from 2 ABBA block pairs (20 iterations in blocks of 5), one
# observation per launch: 1 pair.
check && "$mpimon" bench overhead "${tiny[@]}" --pairs 1 --design both --block 5 -o d.h5 >outd 2>errd ||
  fail "design both: $(tail -3 errd)"
check && grep -q "4 launches planned" errd || fail "design both plan: $(head -1 errd)"
check && "$mpimon" show d.h5 --csv d.csv >showd.txt || fail "show of design both"
check && grep -q "launches: 4, 4 ok" showd.txt || fail "design both launches: $(grep -A3 launches: showd.txt)"
check && grep -Eq "^  clock: (tsc \([0-9.]+( to [0-9.]+)? ticks/ns\)|monotonic_raw), 4 launches" showd.txt || fail "show names no clock: $(cat showd.txt)"
# The analysis CSV's design column, found by its name (awk: c).
design_column='NR == 1 { for (i = 1; i <= NF; i++) if ($i == "design") c = i }'
for design_arm in pairs,on pairs,mpit_off pairs,counting interleaved,counting; do
  n=$(awk -F, -v d=${design_arm%,*} -v a=${design_arm#*,} "$design_column"' NR > 1 && $c == d && $2 == a' d.csv | wc -l)
  check && [ "$n" -eq 4 ] || fail "$design_arm: $n rows, expected 2 ops x 2 sizes"
done
check && awk -F, "$design_column"' NR > 1 && $c == "interleaved" && $6 != 1 { bad = 1 } END { exit bad }' d.csv ||
  fail "interleaved cells not one observation per launch (1 launch)"
# A calibration by the interleaved design alone: the library's loop switched per block (4 loops
# of the instruction loop), one launch, no off launch; the report gives the delivered cost.
if [ -e "$(dirname "$mpimon")/../bench/libmpimon-pmpi-delay.so" ]; then
  check && "$mpimon" bench overhead "${tiny[@]}" --pairs 1 --design interleaved --block 5 --calibrate-loops 4 -o k.h5 >outk 2>errk ||
    fail "interleaved calibration: $(tail -3 errk)"
  check && grep -q "1 launches planned" errk || fail "interleaved calibration plan: $(head -1 errk)"
  check && grep -q "calibration: 4 loops per call" outk || fail "no calibration report: $(tail -5 outk)"
  check && "$mpimon" show k.h5 --csv k.csv >/dev/null || fail "show of the interleaved calibration"
  # Each rank's delivered cost is kept (two ranks: two numbers).
  check && h5dump -a /launches/000001/spin_ranks_ns k.h5 | grep -Eq '"[0-9.]+,[0-9.]+"' ||
    fail "no per-rank delivered cost: $(h5dump -a /launches/000001/spin_ranks_ns k.h5 2>&1 | tail -3)"
  check && [ "$(awk -F, "$design_column"' NR > 1 && $c == "interleaved" && $2 == "loops4"' k.csv | wc -l)" -eq 4 ] ||
    fail "interleaved calibration rows: $(cat k.csv)"
else
  skip_part "libmpimon-pmpi-delay.so not built (sanitizer build): the interleaved calibration"
fi
"$mpimon" bench overhead --design both --iterations 30 --block 10 -o y.h5 >/dev/null 2>erry
rc=$?
check && [ $rc -eq 2 ] || fail "--iterations not a multiple of 2 blocks is not a usage error"
check && grep -q "must be a non-zero multiple of twice the block length" erry || fail "bad --block message: $(cat erry)"

# A launch that fails is recorded with its reason and its log; with --keep-going the sweep goes on,
# and the exit code is 9 either way (docs/cli.md, "Failed launches").
"$mpimon" bench overhead "${tiny[@]}" --pairs 1 --arms on --mca btl=no_such_transport -o f.h5 --keep-going \
  >/dev/null 2>errf
rc=$?
check && [ "$rc" -eq 9 ] || fail "failed launches: exit code $rc, expected 9"
check && grep -q "2 of 2 launches run failed, the first: shared np 2 pair 1 o[nf]f*: exit code" errf ||
  fail "failed launches message: $(cat errf)"
check && [ "$(ls f.h5.logs | wc -l)" -eq 2 ] || fail "two logs expected in f.h5.logs: $(ls f.h5.logs)"
"$mpimon" show f.h5 >showf.txt
check && grep -q "launches: 2, 0 ok" showf.txt || fail "failed launches not recorded: $(grep launches: showf.txt)"
check && grep -q "failed: shared np 2 pair 1 on: exit code" showf.txt || fail "no reason recorded"

"$mpimon" bench overhead --ops send --transport infiniband -o x.h5 >/dev/null 2>errx
rc=$?
check && [ $rc -eq 2 ] || fail "bad --transport is not a usage error"
check && grep -q "transport takes shared and tcp" errx || fail "bad --transport message: $(cat errx)"

finish "bench overhead"
