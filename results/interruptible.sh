# Sourced by the results scripts that launch long sweeps on an emulated cluster
# (results/placement/measured/run.sh, results/reorder/run.sh, results/apps/real/run.sh).
#
# interruptible COMMAND...: runs COMMAND in the background and waits for it, so that a signal
# reaches the caller's trap at once instead of after a sweep of minutes.
#
# Sourcing it also installs the traps: on exit (a signal exits 130) the running command is stopped
# first (bash runs a trap only between commands: hence `interruptible`), then the cluster named
# $name is taken down with $mpimon when $cluster_is_up is 1 (its `down` also ends any rank still
# running in its namespaces), then $scratch, if set, is removed.
child=
interruptible() {
  "$@" &
  child=$!
  local rc=0
  wait "$child" || rc=$?
  child=
  return "$rc"
}

cleanup() {
  if [ -n "$child" ]; then kill -TERM "$child" 2>/dev/null || true; wait "$child" 2>/dev/null || true; fi
  if [ "${cluster_is_up:-0}" = 1 ]; then "$mpimon" cluster down --name "$name" >/dev/null || true; fi
  if [ -n "${scratch:-}" ]; then rm -rf "$scratch"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
