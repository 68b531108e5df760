#!/usr/bin/env bash
# The monitoring's cost across a network beside shared memory (results/overhead/README.md, "Across
# the network"): the same `mpimon bench overhead` (send and alltoall, the interleaved design) on two emulated
# nodes of one rank each (`mpimon cluster`: tcp over a 1 Gbit/s tbf-shaped veth link) and on this
# host with 2 ranks (vader). Needs root (network namespaces); run after ci/main.sh (or a build in
# build/; MPIMON=path/to/mpimon for another). Writes, in the current directory: network.h5 and
# shared.h5 (raw), their compact files, analyses and figures, conditions.txt (versions, load
# average sampled every 30 s), then the table (table.py). PAIRS= (default 60) launch pairs each.
# The cluster (named overhead-net, CLUSTER= another) is removed on exit, also when interrupted.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mpimon=${MPIMON:-$here/../../../build/cli/mpimon}
source "$here/../../../ci/common.sh" >/dev/null
cluster=${CLUSTER:-overhead-net}
grid=(--np 2 --ops send,alltoall --sizes 0,64,1024 --design interleaved --pairs "${PAIRS:-60}" --iterations 10000
      --block 50 --seed 25)
sampler= bench=
finish() {
  set +e  # ci/common.sh sets -e: every step of the clean-up runs
  # The sweep first (its launch's ranks are the cluster's processes, which down also stops).
  # The sampler's sleep first: its loop then ends (killed first, it would leave the sleep behind).
  [ -n "$sampler" ] && pkill -P "$sampler" 2>/dev/null
  for pid in $bench $sampler; do kill "$pid" 2>/dev/null; done
  wait 2>/dev/null
  "$mpimon" cluster down --name "$cluster" >/dev/null || echo "run.sh: mpimon cluster down --name $cluster failed" >&2
}
trap finish EXIT
trap 'exit 130' INT TERM
"$mpimon" cluster up --nodes 2 --slots 1 --rate 1gbit --name "$cluster" >/dev/null || exit 1
launcher=$("$mpimon" cluster launcher --name "$cluster")
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git -C "$here" rev-parse HEAD 2>/dev/null || echo unknown)"
  echo "machine: $(hostname), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(. /etc/os-release && echo "$PRETTY_NAME")"
  echo "mpi: $(mpirun --version | head -1)"
  echo "grid (both transports): ${grid[*]}"
  echo "network: mpimon cluster up --nodes 2 --slots 1 --rate 1gbit; --launcher $launcher --transport tcp"
  echo "shared: the plain host, --transport shared (vader), the default launcher mpirun"
  echo "np 2; network: one rank per node, --bind-to none (the cluster's launcher), mpi_yield_when_idle 1; shared: --bind-to core"
  echo "link: veth through a bridge, tbf rate 1gbit on both ends, rps_cpus on every veth, no added delay"
} >conditions.txt
( while sleep 30; do echo "load $(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)"; done ) >>conditions.txt &
sampler=$!
for transport in network shared; do
  start=$(date +%s)
  echo "start $transport $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)" >>conditions.txt
  if [ "$transport" = network ]; then
    options=(--launcher "$launcher" --transport tcp)
  else
    options=(--transport shared)
  fi
  # In the background, so that an interrupt reaches finish at once.
  "$mpimon" bench overhead "${options[@]}" "${grid[@]}" -o "$transport.h5" >"$transport.out" 2>"$transport.err" &
  bench=$!
  wait "$bench" ||
    { status=$?; tail -5 "$transport.err" >&2; echo "run.sh: $transport: exit $status ($transport.err)" >&2; exit 1; }
  bench=
  echo "end $transport $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg) seconds $(($(date +%s) - start))" >>conditions.txt
done
for transport in network shared; do
  "$mpimon" compact "$transport.h5" -o "$transport-compact.h5" >/dev/null &&
    "$mpimon" show "$transport.h5" --csv "$transport-analysis.csv" >"$transport.show" &&
    "$mpimon" plot "$transport-compact.h5" -o "figures/$transport" >/dev/null || exit 1
done
"${PYTHON:-python3}" "$here/table.py" network-analysis.csv shared-analysis.csv
