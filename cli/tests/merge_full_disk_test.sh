#!/usr/bin/env bash
# mpimon-merge on a file system that fills up while it writes: a small tmpfs mounted as the output
# directory in a private mount namespace, and a set whose merged file (dense layout, 6.5 MB) does not
# fit in it. The serial merge and the parallel one (under mpirun at 1, 2 and 3 processes; with
# MPI-IO's collective buffering only the aggregators' writes fail, the other processes wait in the
# collective call) must end, no process with code 0 (1, or killed by the abort), with
# the failing process's message naming the file and the reason, and leave the tmpfs empty. Then a
# failure in one process other than rank 0 alone (its file size limit).
# Needs root (unshare -m, mount): otherwise skipped (77) with the reason.
# Usage: merge_full_disk_test.sh MPIEXEC MPIMON_MERGE MPIMON_SYNTH_DUMPS
set -u
mpiexec=$1 merge=$2 synth=$3
if [ -z "${MPIMON_PRIVATE_MOUNTS:-}" ]; then
  [ "$(id -u)" -eq 0 ] || { echo "not root: cannot mount a small tmpfs: skipped"; exit 77; }
  command -v unshare >/dev/null || { echo "unshare missing (package util-linux): skipped"; exit 77; }
  why=$(unshare -m --propagation private true 2>&1) || { echo "unshare -m not possible ($why): skipped"; exit 77; }
  MPIMON_PRIVATE_MOUNTS=1 exec unshare -m --propagation private bash "$0" "$@"
fi
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir full
why=$(mount -t tmpfs -o size=256k mpimon-full-disk-test full 2>&1) || { echo "mount failed ($why): skipped"; exit 77; }
trap 'umount "$work/full"; rm -rf "$work"' EXIT

check && "$synth" --pattern stencil --ranks 256 --mode 2 --seed 3 -o prof/st || fail "generator"
# The merge fits elsewhere, and is larger than the tmpfs: only the full disk makes it fail.
check && "$merge" -q --layout dense -o fits.h5 prof || fail "the merge outside the tmpfs"
size=$(stat -c %s fits.h5 2>/dev/null || echo 0)
check && [ "$size" -gt $((256 * 1024)) ] || fail "the merged file ($size bytes) would fit in the 256 KB tmpfs"

# expect_clean_failure WHAT: the merge failed cleanly, with the message, and left nothing.
expect_clean_failure() {
  expect_contains "$err" "full/out.h5" "$1: the message names the file"
  expect_contains "$err" "no space left on device" "$1: the message gives the reason"
  check && [ -z "$(ls -A full)" ] || fail "$1: left in the tmpfs: $(ls -A full)"
  # Every process has ended (a hung one would still hold the file system).
  check && pgrep -f -- "$work/full/out.h5" >/dev/null && fail "$1: processes still running: $(pgrep -af -- "$work/full/out.h5")"
}

# check_exit_codes WHAT NP: no process exited 0. Each process's wrapper records its exit code: 1,
# or 143 when the launcher's SIGTERM ended it; none when its SIGKILL, which follows the SIGTERM
# closely, ended the wrapper too (then the process was killed as well: expect_clean_failure finds none running).
check_exit_codes() {
  local r code
  for ((r = 0; r < $2; r++)); do
    code=$(cat rc.$r 2>/dev/null)
    check && [ "$code" != 0 ] || fail "$1: process $r exited 0"
  done
  check && [ -n "$(cat rc.* 2>/dev/null)" ] || fail "$1: no exit code recorded at all"
}

run timeout 120 "$merge" -q --layout dense -o "$work/full/out.h5" prof
expect_eq "$rc" 1 "serial: exit code ($err)"
expect_clean_failure serial
for np in 1 2 3; do
  rm -f rc.*
  run timeout 120 "$mpiexec" -n $np bash -c 'trap : TERM; "$0" "$@"; echo $? >rc.$OMPI_COMM_WORLD_RANK' \
    "$merge" -q --layout dense -o "$work/full/out.h5" prof
  expect_eq "$rc" 1 "np $np: exit code of mpirun ($err)"
  [ $np -eq 1 ] || expect_contains "$err" " of $np; the merge is aborted" "np $np: the message names the process"
  check_exit_codes "np $np" $np
  expect_clean_failure "np $np"
done
# One process alone fails: process 2's file size limit (RLIMIT_FSIZE, its writes then fail with
# EFBIG), every process an MPI-IO aggregator (Open MPI's OMPIO), so that it writes past its limit
# while the others wait for it in the collective calls. Its message reaches the user's stderr.
rm -f rc.*
run timeout 120 env OMPI_MCA_io_ompio_num_aggregators=3 "$mpiexec" -n 3 bash -c \
  'trap : TERM; trap "" XFSZ; [ $OMPI_COMM_WORLD_RANK != 2 ] || ulimit -f 1024; "$0" "$@"; echo $? >rc.$OMPI_COMM_WORLD_RANK' \
  "$merge" -q --layout dense -o "$work/limited.h5" prof
if [ "$rc" -eq 0 ]; then
  skip_part "process 2 wrote nothing past its file size limit (not an MPI-IO aggregator here)"
else
  expect_eq "$rc" 1 "file size limit: exit code of mpirun ($err)"
  expect_contains "$err" "limited.h5" "file size limit: the message names the file"
  expect_contains "$err" "(process 2 of 3; the merge is aborted" "file size limit: process 2's message"
  check_exit_codes "file size limit" 3
fi
check && [ -z "$(ls | grep limited)" ] || fail "file size limit: left: $(ls | grep limited)"
finish merge_full_disk
