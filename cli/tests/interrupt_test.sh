#!/usr/bin/env bash
# Stopping mpimon while it runs an MPI launch (Ctrl-C, kill) stops the launch too: mpirun runs in
# its own process group, which mpimon signals before it dies of the signal it was sent.
# Usage: interrupt_test.sh MPIMON
set -u
mpimon=$1
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"
# Job control: a background job of a script otherwise starts with SIGINT ignored.
set -m

# A sleep long enough to outlive the test unless it is killed; its argument marks it as ours.
marker="$((600 + $$ % 100)).$$"
for signal in TERM INT; do
  "$mpimon" bench app --np 2 --pairs 1 -o "r_$signal.h5" -- sleep "$marker" >/dev/null 2>&1 &
  pid=$!
  # Wait (bounded) until both ranks run, so the signal arrives during the launch.
  for _ in $(seq 100); do
    [ "$(pgrep -fc "^sleep $marker\$")" -eq 2 ] && break
    sleep 0.2
  done
  [ "$(pgrep -fc "^sleep $marker\$")" -eq 2 ] || fail "SIG$signal: the launch never started"
  kill -s "$signal" "$pid"
  wait "$pid"
  rc=$?
  expect_eq "$rc" "$((128 + $(kill -l "$signal")))" "SIG$signal: mpimon's exit status"
  # mpirun has a grace period of 10 s to take its ranks down before they are killed.
  for _ in $(seq 75); do
    pgrep -f "^sleep $marker\$" >/dev/null || break
    sleep 0.2
  done
  pgrep -f "^sleep $marker\$" >/dev/null && { fail "SIG$signal: ranks left running"; pkill -KILL -f "^sleep $marker\$"; }
done
finish interrupt
