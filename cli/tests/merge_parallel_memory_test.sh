#!/usr/bin/env bash
# Rank 0 of mpimon-merge under mpirun joins the processes' summaries one at a time: its peak memory
# does not grow with the number of processes, though every process's summary carries its share's
# communicator table, MPI_COMM_WORLD's N members included (docs/merge-at-scale.md).
# The set: 16 files of a dump whose MPI_COMM_WORLD has N = 10^6 processes (ranks 0 to 15 present,
# each file with the whole procs: list, 6.9 MB), merged at 2 and at 8 processes. Rank 0 holds the
# same at both but for the summaries of the others: one at a time, its peak at 8 processes stays
# within its peak at 2 plus two member lists (2 x 8 bytes x N, 16 MB: the table keeps members as
# int64); all summaries at once would add 6 x 8 x N (48 MB).
# Usage: merge_parallel_memory_test.sh MPIEXEC MPIMON_MERGE [SANITIZERS]
set -u
mpiexec=$1 merge=$2 sanitizers=${3:-}
[ -z "$sanitizers" ] || { echo "built with -fsanitize=$sanitizers: peak memory is the sanitizer's: skipped"; exit 77; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time missing (Debian package 'time'): skipped"; exit 77; }
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

n=1000000
seq -s, 0 $((n - 1)) >procs.txt
mkdir set
for r in $(seq 0 15); do
  {
    printf '# POINT TO POINT\nE\t%d\t%d\t64 bytes\t1 msgs sent\n# OSC\n# COLLECTIVES\nD\tMPI_COMM_WORLD\tprocs: ' $r $(((r + 1) % 16))
    cat procs.txt
    printf 'O2A\t%d\t0 bytes\t0 msgs sent\nA2O\t%d\t0 bytes\t0 msgs sent\nA2A\t%d\t8 bytes\t1 msgs sent\n' $r $r $r
  } >set/big.$r.prof
done

# peak_of_rank_zero NP: sets peak to rank 0's peak resident memory (KB) in a merge of the set at
# NP processes.
peak_of_rank_zero() {
  rm -f rss.* out.h5
  run "$mpiexec" -n "$1" bash -c 'exec /usr/bin/time -f %M -o "rss.$OMPI_COMM_WORLD_RANK" "$0" "$@"' \
    "$merge" -o out.h5 set
  expect_eq "$rc" 0 "np $1: exit code ($err)"
  expect_contains "$out" "dump big: $n processes, 16 of $n ranks present" "np $1: the merge saw the whole world"
  peak=$(tail -1 rss.0 2>/dev/null)
  check && [ -n "$peak" ] || fail "np $1: no peak memory recorded"
}
peak_of_rank_zero 2
at2=${peak:-0}
peak_of_rank_zero 8
at8=${peak:-0}
bound=$((at2 + 2 * 8 * n / 1024))
echo "rank 0's peak RSS: $at2 KB at 2 processes, $at8 KB at 8 (bound $bound KB)"
check && [ "$at8" -le "$bound" ] ||
  fail "rank 0's peak at 8 processes ($at8 KB) exceeds its peak at 2 plus two member lists ($bound KB)"
finish merge_parallel_memory
