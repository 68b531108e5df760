# Sourced by the results scripts that launch long sweeps on an emulated cluster
# (results/placement/measured/run.sh, results/reorder/run.sh).
#
# interruptible COMMAND...: runs COMMAND in the background and waits for it, so that a signal
# reaches the caller's trap at once instead of after a sweep of minutes; the caller's EXIT trap
# stops "$child" if it is still running.
child=
interruptible() {
  "$@" &
  child=$!
  local rc=0
  wait "$child" || rc=$?
  child=
  return "$rc"
}
