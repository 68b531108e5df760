#!/usr/bin/env bash
# The parallel merge against the serial one and against `cat`, side by side in one run, on
# synthetic dumps made by mpimon-synth-dumps. A set is N (a 7-point stencil in Open MPI's mode 2
# with the real collective section: every file repeats MPI_COMM_WORLD's procs: list) or
# PATTERN:N:MODE:COLLECTIVES, e.g. stencil27:100000:1:no (a 27-point stencil, mode 1, no
# collective section, as an application at 10^5 ranks would dump it). For each set:
#   cat          every file read once (xargs cat > /dev/null), after one warm-up read
#   serial       mpimon-merge -q -o serial.h5 DIR (its reader threads)
#   np P         mpirun -np P --oversubscribe mpimon-merge -q -o pP.h5 DIR, P from --np
# One run each (the wall time of the whole command, mpirun's start included), the peak RSS of every
# process (/usr/bin/time %M) and the bytes every process read (rchar of /proc/PID/io, which counts
# the bytes of read() calls of the process and of the children it waited for). Every parallel
# output is compared with the serial one (h5diff -r, created_utc aside). Prints a Markdown table
# with the machine's load and the number of cores: P above the cores is oversubscribed.
#
# Usage: bench/merge/parallel.sh [--build DIR] [--ranks "16384 32768 stencil27:100000:1:no"] [--np "2 4"]
# Dumps go to a scratch directory under $TMPDIR (or /tmp), removed at exit.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$repo/build
ranks_list="16384 32768"
np_list="2 4"
source "$repo/bench/common/options.sh"
bench_options=("--build build a directory" "--ranks ranks_list a list" "--np np_list a list")
parse_options "$@"
merge=$build/cli/mpimon-merge
synth=$build/bench/mpimon-synth-dumps
for exe in "$merge" "$synth"; do [ -x "$exe" ] || { echo "parallel.sh: $exe is missing; build it first" >&2; exit 1; }; done
[ -x /usr/bin/time ] || { echo "parallel.sh: /usr/bin/time is missing (Debian package 'time')" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
scratch=$(mktemp -d "${TMPDIR:-/tmp}/mpimon-merge-parallel.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
cores=$(nproc)

# Runs CMD with the rank's peak RSS and bytes read recorded as $scratch/m.RANK (KB, bytes).
cat >"$scratch/probe.sh" <<'EOF'
#!/usr/bin/env bash
r=${OMPI_COMM_WORLD_RANK:-0}
/usr/bin/time -f %M -o "$PROBE_DIR/rss.$r" "$@"
rc=$?
echo "$(cat "$PROBE_DIR/rss.$r") $(awk '/^rchar/ { print $2 }' /proc/$$/io)" >"$PROBE_DIR/m.$r"
exit $rc
EOF
chmod +x "$scratch/probe.sh"
export PROBE_DIR=$scratch

# row LABEL NP CMD...: one run; prints the table row.
row() {
  local label=$1 np=$2
  shift 2
  rm -f "$scratch"/m.* "$scratch"/rss.*
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null
  end=$(date +%s.%N)
  local mem="" io=""
  for ((r = 0; r < np; r++)); do
    read -r kb bytes <"$scratch/m.$r"
    mem+="${mem:+, }$((kb / 1024))"
    io+="${io:+, }$((bytes / 1048576))"
  done
  printf '| %s | %.1f | %s | %s |\n' "$label" "$(awk -v a="$start" -v b="$end" "BEGIN { print b - a }")" "$mem" "$io"
}

echo "mpimon-merge $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?'), $(mpirun --version | head -1), $cores cores"
for set in $ranks_list; do
  IFS=: read -r pattern ranks mode collectives <<<"$set"
  if [ -z "$ranks" ]; then ranks=$pattern pattern=stencil mode=2 collectives=yes; fi
  [[ $pattern:$ranks:$mode:$collectives =~ ^(dense|stencil|stencil27):[1-9][0-9]*:[12]:(yes|no)$ ]] ||
    { echo "parallel.sh: bad set '$set' in --ranks (N or PATTERN:N:MODE:yes|no, see --help)" >&2; exit 2; }
  dir=$scratch/set
  mkdir -p "$dir"
  "$synth" --pattern "$pattern" --ranks "$ranks" --mode "$mode" --collectives "$collectives" --seed 1 -o "$dir/$pattern"
  size=$(du -sm "$dir" | cut -f1)
  find "$dir" -name '*.prof' -print0 | xargs -0 cat >/dev/null  # warm-up read
  echo
  what="$pattern, mode $mode, $([ "$collectives" = yes ] && echo "real procs: lists" || echo "no collective section")"
  echo "### $ranks ranks, $what ($size MiB in $ranks files); load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "| run | wall (s) | peak RSS per process (MiB) | read per process (MiB) |"
  echo "|---|---:|---|---|"
  row "cat (xargs)" 1 "$scratch/probe.sh" bash -c 'find "$0" -name "*.prof" -print0 | xargs -0 cat >/dev/null' "$dir"
  row "serial" 1 "$scratch/probe.sh" "$merge" -q -o "$scratch/serial.h5" "$dir"
  for np in $np_list; do
    label="np $np"
    [ "$np" -gt "$cores" ] && label+=" (oversubscribed: $np processes on $cores cores)"
    row "$label" "$np" mpirun -np "$np" --oversubscribe "$scratch/probe.sh" "$merge" -q -o "$scratch/p$np.h5" "$dir"
    differing=$( (h5diff -r "$scratch/serial.h5" "$scratch/p$np.h5" 2>&1 || true) |
      awk '/^(attribute|dataset|group): / { o = $0 } /differences found/ && $1 != 0 && o !~ /created_utc/ { print o }')
    [ -z "$differing" ] || echo "parallel.sh: np $np differs from the serial merge: $differing" >&2
    rm -f "$scratch/p$np.h5"
  done
  rm -rf "$dir" "$scratch/serial.h5"
done
