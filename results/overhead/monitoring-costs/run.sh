#!/usr/bin/env bash
# The monitoring's own costs per call, np 2, the five operations at 0 to 256 B, both designs
# (results/overhead/README.md, "The monitoring's own costs"): the pairs design gives `on` and
# `mpit_off` (loaded, counting stopped through MPI_T) against `off` (not loaded); the interleaved
# design gives the counting alone (switched on and off through MPI_T inside each launch).
# Run after ci/main.sh (or a build in build/; MPIMON=path/to/mpimon for another); writes
# costs.h5, costs.out (the report) and costs-analysis.csv (the analysis) in the current directory, then the
# table (table.py).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mpimon=${MPIMON:-$here/../../../build/cli/mpimon}
source "$here/../../../ci/common.sh" >/dev/null
start=$(date +%s)
"$mpimon" bench overhead --np 2 --ops send,bcast,alltoall,put,get --sizes 0,1,4,16,64,256 --design both \
  --pairs ${PAIRS:-60} --iterations 1000 --block 50 --seed 18 -o costs.h5 >costs.out 2>costs.err ||
  { status=$?; tail -5 costs.err >&2; echo "run.sh: mpimon bench overhead exit $status (costs.err)" >&2; exit 1; }
echo "seconds $(($(date +%s) - start))"
"$mpimon" show costs.h5 --csv costs-analysis.csv >costs.show
"${PYTHON:-python3}" "$here/table.py" costs-analysis.csv  # numpy; PYTHON= another interpreter
