#!/usr/bin/env bash
# The CMake package: mpimon installed into a scratch prefix, docs/example-consumer configured
# against it (find_package(mpimon COMPONENTS matrices), mpimon::matrices) as a project of its own,
# with pkg-config unable to find hwloc and no Boost on the search path, so that it can only build if
# reading a matrix needs HDF5 alone; built, and run on real Open MPI dumps and the matrices file merged from them; its totals must equal the sums of the
# dumps' text (awk), the source both files come from.
# With MPI (MPIMON_CONSUMER_MPI=1), the reorder component too: docs/example-consumer/reorder, a C program, configured
# with HDF5, Boost and hwloc unfindable (it needs MPI alone), built, its own needs read with readelf,
# and run under mpirun on 2 processes.
# Usage: example_consumer_test.sh BUILD_DIR SOURCE_DIR [SANITIZERS]
# SANITIZERS: the build's MPIMON_SANITIZER. A sanitized library needs a consumer built with the
# same sanitizers, which is not what a user's project does: the test runs in the plain build and
# is a visible skip (77) in a sanitized one.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"
build=$1 source_dir=$2 sanitizers=${3:-} mpi=${MPIMON_CONSUMER_MPI:-0}
if [ -n "$sanitizers" ]; then
  echo "skipped: a build with sanitizers ($sanitizers); the CMake package is tested in the plain build"
  exit 77
fi
data=$source_dir/analysis/tests/data

check && cmake --install "$build" --prefix "$work/prefix" >install.log 2>&1 || { cat install.log; fail "cmake --install"; }
cp -r "$source_dir/docs/example-consumer" example
# What the package would look for beyond HDF5 made unfindable: hwloc through pkg-config, Boost's
# CMake package (disabled).
run env PKG_CONFIG_LIBDIR=/nonexistent PKG_CONFIG_PATH= cmake -S example -B example-build \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release -DCMAKE_DISABLE_FIND_PACKAGE_Boost=ON
expect_eq "$rc" 0 "configuring the example (matrices alone, no hwloc, no Boost) against the installed package: $out $err"
run cmake --build example-build
expect_eq "$rc" 0 "building the example: $out $err"
check && [ -x example-build/traffic-totals ] || { fail "no traffic-totals built"; finish "example consumer"; }
# What it links: HDF5, and nothing of placement (hwloc, Scotch) or of the MPI library.
libs=$(ldd example-build/traffic-totals)
expect_contains "$libs" "libhdf5" "traffic-totals links HDF5"
for lib in libhwloc libscotch libmpi libboost; do
  check && ! grep -q "$lib" <<<"$libs" || fail "traffic-totals links $lib: $libs"
done
# The whole package (no components) still configures for a project using every library.
mkdir -p whole && cat >whole/CMakeLists.txt <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(mpimon_whole LANGUAGES CXX)
find_package(mpimon 0.1 REQUIRED)
foreach(t IN ITEMS base matrices models placement results analysis)
  if(NOT TARGET mpimon::${t})
    message(FATAL_ERROR "no mpimon::${t}")
  endif()
endforeach()
CMAKE
run cmake -S whole -B whole-build -DCMAKE_PREFIX_PATH="$work/prefix"
expect_eq "$rc" 0 "configuring a project that takes the whole package: $out $err"

# The expected totals, from the dumps' text: class letter -> bytes, messages.
totals() { awk -F'\t' -v c="$1" '$1 == c { split($4, b, " "); split($5, m, " "); s += b[1]; n += m[1] }
                                  END { printf "%d bytes, %d messages\n", s, n }' "${@:2}"; }
run example-build/traffic-totals "$data/real/mode2_sample.1.prof" "$data/v1/mode2_sample.h5"
expect_eq "$rc" 0 "traffic-totals: $err"
declare -A names=([E]=external [I]=internal [S]=osc_sent [R]=osc_recv [C]=coll)
for letter in E I S R C; do
  expect_contains "$out" "mode2_sample.1.prof rank 1 ${names[$letter]}: $(totals $letter "$data"/real/mode2_sample.1.prof)" \
    "rank 1's ${names[$letter]} totals"
  expect_contains "$out" "(3 processes) ${names[$letter]}: $(totals $letter "$data"/real/mode2_sample.?.prof)" \
    "the merged file's ${names[$letter]} totals"
done
# An error of the library reaches the consumer as mpimon::Error, naming the file.
run example-build/traffic-totals "$data/v1/README.md"
expect_eq "$rc" 1 "a file that is not HDF5"
expect_contains "$err" "README.md" "the error names the file"

if [ "$mpi" = 1 ]; then
  cp -r "$source_dir/docs/example-consumer/reorder" reorder
  run env PKG_CONFIG_LIBDIR=/nonexistent PKG_CONFIG_PATH= cmake -S reorder -B reorder-build \
    -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release -DCMAKE_DISABLE_FIND_PACKAGE_Boost=ON \
    -DCMAKE_DISABLE_FIND_PACKAGE_HDF5=ON
  expect_eq "$rc" 0 "configuring the reorder consumer (MPI alone) against the installed package: $out $err"
  run cmake --build reorder-build
  expect_eq "$rc" 0 "building the reorder consumer: $out $err"
  needed=$(readelf -d reorder-build/reorder-ring 2>/dev/null | grep NEEDED)
  expect_contains "$needed" "libmpimon-reorder.so" "reorder-ring needs libmpimon-reorder.so"
  for lib in libhdf5 libhwloc libscotch libboost; do
    check && ! grep -q "$lib" <<<"$needed" || fail "reorder-ring needs $lib itself: $needed"
  done
  run mpirun -np 2 --oversubscribe --bind-to none reorder-build/reorder-ring
  expect_eq "$rc" 0 "reorder-ring under mpirun: $out $err"
  expect_contains "$out" "2 processes on 1 node(s): order kept, modelled cost 0 -> 0, 1 edge(s): all processes on one node" \
    "reorder-ring's statistics (one node, unbound: the order is kept, with a note)"
fi
finish "example consumer"
