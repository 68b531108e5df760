#!/usr/bin/env bash
# Runs mpimon against a second Open MPI: Open MPI 5.0 from Debian 13 ("trixie"), in a chroot
# prepared with debootstrap on the Debian 12 host (docs/open-mpi-versions.md).
source "$(dirname "$0")/common.sh"

usage() {
  cat <<EOF
Usage: ci/ompi5.sh [validate|bench|prepare|root|shell|status] [--help]
       ci/ompi5.sh run COMMAND...   (one command in the prepared root, e.g. run ompi_info; it sees
                                     the host's emulated clusters, docs/cluster.md)
       ci/ompi5.sh build TARGET...  (the root, and only these targets built in it: what a host test
                                     that runs Open MPI 5 across emulated nodes needs)

Prepares a Debian 13 root (debootstrap, from the host's own Debian mirror), installs mpimon's
dependencies there (Open MPI 5.0 with its monitoring components), builds mpimon in it against
Open MPI 5.0 and runs, in it:
  validate  (default) 'ctest -L validation -LE suite' and 'mpimon validate --json' (the suite's
            cases, label suite, run once, by the latter); results with the
            Open MPI version in BUILD/ompi5/ (ctest.log, ctest.xml, validate.json, validate.txt,
            ompi_info.txt); ci/test.sh counts ctest.xml and validate.json, each with its
            command's own exit code (saved in ctest.exit and validate.exit)
  bench     'mpimon bench overhead' with a small grid on the host (its Open MPI) and in the
            chroot (Open MPI 5), and both analyses side by side in BUILD/ompi-versions/
  prepare   only prepare the root (and build), run nothing
  root      only the root and its packages, no build (the host's tests that run Open MPI 5
            across emulated nodes need it: cli.cluster_ompi5)
  shell     an interactive shell in the prepared root, with the mounts (for debugging)
  status    what is prepared
  mirror    the Debian mirror it would use (from \$MPIMON_APT_DIR, default /etc/apt)

The root is kept in \$MPIMON_CHROOT_DIR (default /var/cache/mpimon/debian13), outside the clone,
so later runs reuse it; each stage leaves a stamp there and a stage interrupted is redone from a
clean state. The chroot's mounts live in a private mount namespace (unshare), so they vanish with
the script whatever happens, and are unmounted on exit in any case.

Environment:
  MPIMON_CHROOT_DIR     where the Debian 13 root is kept
  MPIMON_DEBIAN_MIRROR  Debian mirror URL (default: the host's, from /etc/apt)
  MPIMON_SKIP_OMPI5=1   skip (exit code 3)
  MPIMON_BUILD_DIR      the host's build directory (default: BUILD = the clone's build/)
  MPIMON_BENCH_PAIRS, MPIMON_BENCH_SIZES   the bench grid (default 3 pairs, sizes 0,64,4096,65536)

Exit codes: 0 done, 1 a step failed (tests included), 2 usage,
            3 the environment cannot be prepared here (the reason is printed and saved in
              BUILD/ompi5/skipped.txt), which ci/test.sh reports as skipped.
EOF
}

readonly name=ompi5 suite=trixie
readonly chroot_dir=${MPIMON_CHROOT_DIR:-/var/cache/mpimon/debian13}
readonly out=$build/ompi5
# Where the chroot sees the clone (read-only) and the host's build directory.
readonly inner_src=/mpimon/src inner_build=/mpimon/build
source "$repo/ci/chroot.sh"

# The packages of ci/install-deps.sh, plus ccache (later builds in a fresh clone are fast), less
# those for fuzzing and formatting (clang, clang-format), plots (python3-*), the report test (chromium)
# and Slurm (its emulated cluster runs on the host): the root runs none of them, and they are most of
# the download on a fresh machine.
wanted_packages() {
  "$repo/ci/install-deps.sh" --list | grep -v -E '^(clang|clang-format|libclang-rt-.*|python3-.*|chromium|slurmctld|slurmd|slurm-client|munge)$'
  echo ccache
}

stage_packages() {
  local list
  list=$(wanted_packages | sort -u | tr '\n' ' ')
  [ -f "$stamps/packages" ] && [ "$(cat "$stamps/packages")" = "$list" ] && return
  rm -f "$stamps/packages"
  step "ompi5: installing mpimon's dependencies in the root"
  in_root "apt-get update -qq"
  # Names that do not exist in $suite (e.g. a versioned clang runtime) are left out, and said.
  local available=() p
  for p in $list; do
    if in_root "apt-cache show $p >/dev/null 2>&1"; then available+=("$p"); else log "not in $suite: $p (skipped)"; fi
  done
  in_root "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ${available[*]} >/dev/null"
  in_root "apt-get clean"
  echo "$list" >"$stamps/packages"
}

check_monitoring() {
  in_root "ompi_info --parsable" >"$out/ompi_info.txt" 2>&1 || true
  grep -q '^mca:pml:monitoring:' "$out/ompi_info.txt" ||
    skip "Open MPI in the $suite root has no pml/monitoring component (see $out/ompi_info.txt)"
  log "$(in_root 'mpirun --version' | head -1) with $(grep -c '^mca:[a-z]*:monitoring:version' "$out/ompi_info.txt") monitoring components"
}

# Runs a command in the root, with the clone (read-only) and the host's build directory mounted.
in_root() {
  mkdir -p "$out/build"
  in_chroot "$chroot_dir" "$1" "$repo" "$inner_src:ro" "$out/build" "$inner_build"
}

# stage_build [TARGET]: everything by default; the validation stage builds only what its tests run.
stage_build() {
  local target=${1:-all}
  step "ompi5: building mpimon ($target) against Open MPI 5 ($out/build, seen as $inner_build in the root)"
  in_root "set -e; cmake -S $inner_src -B $inner_build -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    '-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$ci_flags' '-DCMAKE_C_FLAGS_RELWITHDEBINFO=$ci_flags' \
    -DMPIMON_WERROR=ON -DCMAKE_UNITY_BUILD=ON -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache \
    >$inner_build/configure.log 2>&1 || { cat $inner_build/configure.log; exit 1; }
    cmake --build $inner_build --target $target -j \$MPIMON_JOBS"
}

run_validation() {
  local status=0 ctest_status=0
  # ci/test.sh counts these results (ctest.xml and validate.json, each with its command's exit code
  # in ctest.exit and validate.exit): none may be left from an earlier run.
  rm -f "$out/ctest.xml" "$out/ctest.exit" "$out/validate.txt" "$out/validate.json" "$out/validate.exit" \
    "$out/build/ctest.xml" "$out/build/validate.json"
  # The suite's cases (label suite) are what mpimon validate runs below: each runs once.
  step "ompi5: ctest -L validation -LE suite (Open MPI 5)"
  in_root "cd $inner_build && ctest -j \$MPIMON_JOBS -L validation -LE suite --output-on-failure --timeout 600 --output-junit $inner_build/ctest.xml" \
    >"$out/ctest.log" 2>&1 || ctest_status=$?
  # ctest's own verdict, kept whole: ci/summary.py counts the report with it (a non-zero exit code
  # with no failed test in the report is a failure too).
  echo "$ctest_status" >"$out/ctest.exit"
  ((ctest_status == 0)) || status=1
  cp "$out/build/ctest.xml" "$out/ctest.xml" 2>/dev/null || true
  grep -E "tests passed|tests failed|^\s+[0-9]+ - " "$out/ctest.log" || true
  step "ompi5: mpimon validate --json (Open MPI 5)"
  local validate_status=0
  in_root "$inner_build/cli/mpimon validate --json $inner_build/validate.json" \
    >"$out/validate.txt" 2>&1 || validate_status=$?
  echo "$validate_status" >"$out/validate.exit"
  ((validate_status == 0)) || status=1
  cp "$out/build/validate.json" "$out/validate.json" 2>/dev/null || true
  tail -1 "$out/validate.txt"
  grep -E "FAILS|ERROR|DEFECT FIXED" "$out/validate.txt" || true
  log "results in $out (validate.json: $(grep -m1 '"mpi_library"' "$out/validate.json" 2>/dev/null | tr -s ' '))"
  return $status
}

# One column per version: the analysis CSV of `mpimon show --csv` joined on (transport, arm, op,
# np, size), keeping the figures that compare.
combine_analyses() {
  local host_csv=$1 host_label=$2 root_csv=$3 root_label=$4
  awk -F, -v OFS=, -v a="$host_label" -v b="$root_label" '
    FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    { key = $col["transport"] OFS $col["arm"] OFS $col["op"] OFS $col["np"] OFS $col["size"]
      v = $col["pairs"] OFS $col["off_ns"] OFS $col["difference_ns"] OFS $col["difference_ci_low_ns"] OFS \
          $col["difference_ci_high_ns"] OFS $col["relative"] OFS $col["p_bh"]
      if (FILENAME == ARGV[1]) { first[key] = v; order[++n] = key } else second[key] = v }
    END {
      h = "pairs,off_ns,difference_ns,difference_ci_low_ns,difference_ci_high_ns,relative,p_bh"
      split(h, f, ",")
      line = "transport,arm,op,np,size"
      for (i = 1; i <= 7; i++) line = line OFS f[i] "_" a
      for (i = 1; i <= 7; i++) line = line OFS f[i] "_" b
      print line
      for (k = 1; k <= n; k++) print order[k], first[order[k]], (order[k] in second ? second[order[k]] : ",,,,,,")
    }' "$host_csv" "$root_csv"
}

# The overhead harness with a small grid on the host's Open MPI and on Open MPI 5 in the root.
run_bench() {
  local dir=$build/ompi-versions
  local grid=(--np 2 --sizes "${MPIMON_BENCH_SIZES:-0,64,4096,65536}" --pairs "${MPIMON_BENCH_PAIRS:-3}"
              --iterations 300 --warmup 30)
  safe_remove "$dir"
  mkdir -p "$dir" "$out/build/ompi-versions"
  rm -f "$out/build/ompi-versions/overhead.h5"
  [ -x "$build/cli/mpimon" ] || { step "ompi5: building mpimon on the host ($build)"; configure_and_build "$build"; }
  local host_version root_version
  host_version=$(mpirun --version | head -1 | awk '{ print $NF }')
  root_version=$(in_root 'mpirun --version' | head -1 | awk '{ print $NF }')
  step "ompi5: mpimon bench overhead ${grid[*]} on the host (Open MPI $host_version)"
  "$build/cli/mpimon" bench overhead "${grid[@]}" -o "$dir/overhead-$host_version.h5"
  step "ompi5: mpimon bench overhead ${grid[*]} in the root (Open MPI $root_version)"
  in_root "$inner_build/cli/mpimon bench overhead ${grid[*]} -o $inner_build/ompi-versions/overhead.h5"
  cp "$out/build/ompi-versions/overhead.h5" "$dir/overhead-$root_version.h5"
  for v in "$host_version" "$root_version"; do
    "$build/cli/mpimon" show "$dir/overhead-$v.h5" --csv "$dir/analysis-$v.csv" >/dev/null
  done
  combine_analyses "$dir/analysis-$host_version.csv" "$host_version" "$dir/analysis-$root_version.csv" \
    "$root_version" >"$dir/combined.csv"
  {
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: $(git -C "$repo" rev-parse HEAD 2>/dev/null || echo unknown)"
    echo "machine: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "host: $(. /etc/os-release && echo "$PRETTY_NAME"), $(mpirun --version | head -1)"
    echo "root: Debian 13 ($suite) chroot, $(in_root 'mpirun --version' | head -1)"
    echo "command (both): mpimon bench overhead ${grid[*]} (binding, arms and MCA: see each HDF5 file's configuration)"
    echo "analysis: mpimon show FILE --csv (paired t-test over the pairs, 95 % CI, BH-adjusted p)"
  } >"$dir/provenance.txt"
  step "ompi5: overhead side by side (ns per call; difference = monitoring arm - off, 95 % CI)"
  cat "$dir/provenance.txt"
  awk -F, 'NR == 1 { printf "%-8s %-9s %6s   %-30s %-30s\n", "arm", "op", "size", "Open MPI " substr($8, 15), "Open MPI " substr($15, 15); next }
           { printf "%-8s %-9s %6s   %9.1f [%8.1f, %8.1f]   %9.1f [%8.1f, %8.1f]\n", $2, $3, $5, $8, $9, $10, $15, $16, $17 }' \
    "$dir/combined.csv"
  log "results in $dir"
}

prepare() {
  mkdir -p "$out"
  rm -f "$out/skipped.txt"
  check_chroot_host MPIMON_SKIP_OMPI5
  lock_root
  bootstrap_root
  stage_packages
  check_monitoring
  [ "${1:-all}" = none ] || stage_build "${1:-all}"
}

command=validate
if [ "${1:-}" = build ]; then
  shift
  [ $# -gt 0 ] || { echo "ompi5: build needs a target" >&2; exit 2; }
  prepare "$*"
  exit
fi
if [ "${1:-}" = run ]; then
  shift
  [ $# -gt 0 ] || { echo "ompi5: run needs a command" >&2; exit 2; }
  prepare >/dev/null
  # The host's emulated clusters are visible: `mpimon cluster up` on the host, then e.g.
  # ci/ompi5.sh run cli/mpimon validate --launcher /run/mpimon/cluster/NAME/mpirun (docs/cluster.md).
  CHROOT_CLUSTERS=1 in_root "cd $inner_build && $*"
  exit
fi
for arg in "$@"; do
  case $arg in
    -h | --help) usage; exit 0 ;;
    validate | bench | prepare | root | shell | status | mirror) command=$arg ;;
    *) echo "ompi5: unknown argument '$arg'" >&2; usage >&2; exit 2 ;;
  esac
done

case $command in
  mirror) print_mirror ;;
  status)
    echo "root: $chroot_dir"
    for s in bootstrap packages; do printf '  %-10s %s\n' "$s" "$([ -f "$stamps/$s" ] && echo done || echo 'not done')"; done
    echo "mirror: $(host_mirror)"
    ;;
  prepare) prepare ;;
  root) prepare none ;;
  shell) prepare; CHROOT_CLUSTERS=1 in_root "cd $inner_build && exec bash -i" ;;
  validate) prepare mpimon_validation_stage; run_validation ;;
  bench) prepare; run_bench ;;
esac
