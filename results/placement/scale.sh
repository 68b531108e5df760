#!/usr/bin/env bash
# Reproduces results/placement/scale*: `mpimon place` (every method, default time limit) on synthetic
# scrambled process graphs of 256 to 10^5 ranks (instances.py), on clusters of N nodes x 2 sockets x
# 16 cores (link costs 100/10/1). Costs are MODELLED; times are wall clock on whatever machine runs
# this (provenance in scale-provenance.txt). The KaHIP column comes from scale/kahip.csv, measured
# off-repository by kahip.sh (it needs a KaHIP build; this script does not).
# Usage: results/placement/scale.sh [BUILD_DIR] [SIZES...]   (default: build; 256 1024 4096 10240 100000)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build}" && pwd)
shift || true
sizes=("${@:-256 1024 4096 10240 100000}")
read -r -a sizes <<<"${sizes[*]}"
mpimon=$build/cli/mpimon merge=$build/cli/mpimon-merge
[ -x /usr/bin/time ] || { echo "scale.sh needs /usr/bin/time (Debian package time)"; exit 1; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$here/scale"
csv=$here/scale/runs.csv
[ -e "$csv" ] || echo "kind,ranks,topology,wall_s,user_s,peak_kb" >"$csv"
for n in "${sizes[@]}"; do
  kinds="mesh rgg delaunay reduce planted"
  [ "$n" -ge 100000 ] && kinds="mesh"  # one instance at 10^5: the time and memory figure
  for kind in $kinds; do
    rm -rf "$scratch/prof"
    python3 "$here/instances.py" "$kind" "$n" "$scratch/prof/$kind"
    "$merge" -q -o "$scratch/$kind.h5" "$scratch/prof"
    nodes=$(((n + 31) / 32))
    topo="${nodes}x2x16"
    /usr/bin/time -f "%e %U %M" -o "$scratch/time.txt" \
      "$mpimon" place "$scratch/$kind.h5" --topology "$topo" --json "$here/scale/$kind-$n.json" >"$here/scale/$kind-$n.txt"
    read -r wall user peak <"$scratch/time.txt"
    echo "$kind,$n,$topo,$wall,$user,$peak" >>"$csv"
    echo "$kind $n: $wall s wall, $user s user, $peak KB"
  done
done
{
  echo "Host: $(nproc) cores, $(awk '/MemTotal/ {print $2 " kB"}' /proc/meminfo), load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "mpimon: $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown); METIS $(dpkg-query -W -f='${Version}' libmetis-dev 2>/dev/null), Scotch $(dpkg-query -W -f='${Version}' libscotch-dev 2>/dev/null)"
  echo "Date: $(date -u +%FT%TZ)"
  if [ -e "$here/scale/kahip-provenance.txt" ]; then cat "$here/scale/kahip-provenance.txt"; fi
} >"$here/scale-provenance.txt"
# Debian's python3-matplotlib (a python3 earlier on PATH may lack it).
"$([ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)" "$here/plot_scale.py" "$here/scale" "$here/scale"
