# Sourced by the ci/*.sh scripts: repository root, build directory, and the build step.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${MPIMON_BUILD_DIR:-$repo/build}
jobs=${MPIMON_JOBS:-$(nproc)}
# Open MPI refuses to run as root, and more ranks than cores, unless told (the PRTE_ variable is
# how Open MPI 5's launcher is told; 4.1 ignores it).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe

step() { printf '\n== %s\n' "$*"; }

# configure_and_build DIR [CMAKE ARGS...]
configure_and_build() {
  local dir=$1
  shift
  mkdir -p "$dir"
  cmake -S "$repo" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >"$dir/configure.log" 2>&1 ||
    { cat "$dir/configure.log"; return 1; }
  cmake --build "$dir" -j "$jobs"
}
