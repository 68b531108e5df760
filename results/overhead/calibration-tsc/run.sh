#!/usr/bin/env bash
# The calibration table of results/overhead/README.md ("Calibration on a quiet machine"): np 2,
# send and alltoall at 0 and 64 B, both designs, 100 pairs per requested cost. Run after
# ci/main.sh (or a build in build/; MPIMON=path/to/mpimon for another); writes calNS.h5, calNS.out
# (the report) and calNSns-analysis.csv (the analysis) in the current directory, then the
# table (table.py, which first extracts calNSns-delivered.csv from calNS.h5), then context.py (the
# loop's recovered cost per operation in the same interleaved launches, calNSns-interleaved.csv).
set -u
mpimon=${MPIMON:-$(dirname "${BASH_SOURCE[0]}")/../../../build/cli/mpimon}
source "$(dirname "${BASH_SOURCE[0]}")/../../../ci/common.sh" >/dev/null
for ns in 2 5 10 20 50; do
  start=$(date +%s)
  "$mpimon" bench overhead --np 2 --ops send,alltoall --sizes 0,64 --calibrate $ns --design both --pairs 100 \
    --iterations 1000 --block 50 --seed $ns -o cal$ns.h5 >cal$ns.out 2>cal$ns.err ||
    { status=$?; tail -5 cal$ns.err >&2; echo "run.sh: $ns ns: mpimon bench overhead exit $status (cal$ns.err)" >&2; exit 1; }
  echo "ns $ns seconds $(($(date +%s) - start))"
  "$mpimon" show cal$ns.h5 --csv cal${ns}ns-analysis.csv >cal$ns.show
done
"${PYTHON:-python3}" "$(dirname "${BASH_SOURCE[0]}")/table.py"  # needs h5py (python3-h5py); PYTHON= another interpreter
"${PYTHON:-python3}" "$(dirname "${BASH_SOURCE[0]}")/context.py"  # the same loop per operation (calNSns-interleaved.csv)
