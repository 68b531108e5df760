# Sourced by the ci/*.sh scripts: repository root, build directory, and the build step.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${MPIMON_BUILD_DIR:-$repo/build}
jobs=${MPIMON_JOBS:-$(nproc)}
# Open MPI refuses to run as root, and more ranks than cores, unless told (the PRTE_ variable is
# how Open MPI 5's launcher is told; 4.1 ignores it).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe

# Every step prints the time since the test command began (ci/ompi5.sh's steps too, under it), and
# ci/test.sh's summary ends with how long each of its own steps took.
export MPIMON_CI_START=${MPIMON_CI_START:-$(date +%s)}
step_names=() step_starts=()
minutes() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }
step() {
  local at=$(($(date +%s) - MPIMON_CI_START))
  step_names+=("$*") step_starts+=("$at")
  printf '\n== [%s] %s\n' "$(minutes "$at")" "$*"
}
# print_step_times: one line per step, its duration (the last one ends now).
print_step_times() {
  local i end now=$(($(date +%s) - MPIMON_CI_START))
  for i in "${!step_names[@]}"; do
    end=${step_starts[i + 1]:-$now}
    printf '  %6s  %s\n' "$(minutes $((end - step_starts[i])))" "${step_names[i]}"
  done
  printf '  %6s  in all\n' "$(minutes "$now")"
}

# Line tables only (-g1): backtraces keep functions, files and lines, and the CI's builds take a
# fifth less time than with full debug information (the code generated is the same).
readonly ci_flags="-O2 -g1 -DNDEBUG"

# configure_and_build DIR [CMAKE ARGS...]; the compiler flags are $build_flags if set, else ci_flags.
# unity_build=ON compiles each target's sources in batches (CMake's unity build; the test command's
# builds: a third less compile time there); off by default, so that a developer's build still
# compiles one file at a time and a missing #include shows.
configure_and_build() {
  local dir=$1 flags=${build_flags:-$ci_flags}
  shift
  mkdir -p "$dir"
  cmake -S "$repo" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$flags" \
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=$flags" "-DCMAKE_UNITY_BUILD=${unity_build:-OFF}" "$@" >"$dir/configure.log" 2>&1 ||
    { cat "$dir/configure.log"; return 1; }
  cmake --build "$dir" -j "$jobs"
}

# ci_build [CMAKE ARGS...]: the one build of $build that the README's two commands share (ci/main.sh,
# ci/test.sh, and ci/readme_setup.sh's run of the first inside the second): CMake's unity build (a
# third less compile time) and warnings as errors (-DMPIMON_WERROR=ON, the CI's), so that whichever
# runs second compiles nothing again. A build with other settings in the same directory (e.g.
# -DMPIMON_WERROR=OFF) is compiled again by the next ci_build.
ci_build() { unity_build=ON configure_and_build "$build" -DMPIMON_WERROR=ON "$@"; }
