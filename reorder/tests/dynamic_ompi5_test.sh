#!/usr/bin/env bash
# The dynamic path on Open MPI 5.0 across 4 emulated nodes of 4 processes (docs/reorder.md#tests):
# mpimon-reorder-demo, built against Open MPI 5 in the Debian 13 root of ci/ompi5.sh (`ci/ompi5.sh
# build mpimon_reorder_ompi5`: the library, the demo, mpimon and the collector; the objects are
# the ompi5 stage's own, so that stage does not build them again), run by that root's
# `mpimon collect` through the host's cluster launcher (docs/cluster.md, "Open MPI 5 across the
# nodes"). The demo exchanges halos on a scrambled torus (every byte between nodes), calls
# mpimon_reorder(MPI_COMM_WORLD, "monitoring", &c), which reads Open MPI's PML counters through
# MPI_T, and exchanges the same halos on c. The collected file, read here with h5py: phase_2 (the
# second exchange alone) holds the demo's ledger, half of it between nodes, exactly the weight
# the library modelled after the call; the weight it read before is the first exchange's
# (check_dynamic.py).
# Needs root and the prepared root (bash ci/ompi5.sh root); skipped with the reason otherwise.
# Usage: dynamic_ompi5_test.sh MPIMON SOURCE_DIR BUILD_DIR
set -u
mpimon=$1 src=$2 build=$3
source "$src/cli/tests/test_lib.sh"
root=${MPIMON_CHROOT_DIR:-/var/cache/mpimon/debian13}
for tool in ip tc unshare; do command -v "$tool" >/dev/null || skip_test "$tool is not installed"; done
unshare --net --uts true 2>/dev/null || skip_test "this process cannot make namespaces (needs root: CAP_SYS_ADMIN)"
[ -x "$root/usr/bin/prterun" ] && [ -x "$root/usr/bin/mpicc" ] ||
  skip_test "no Debian 13 root with Open MPI 5 at $root (bash ci/ompi5.sh root makes it)"
/usr/bin/python3 -c "import h5py" 2>/dev/null || skip_test "h5py missing for /usr/bin/python3"

# What the run needs, built in the root (Open MPI 5): ci/ompi5.sh's own build directory.
if check && ! MPIMON_BUILD_DIR=$build bash "$src/ci/ompi5.sh" build mpimon_reorder_ompi5 >ompi5-build.log 2>&1; then
  tail -30 ompi5-build.log
  fail "ci/ompi5.sh build mpimon_reorder_ompi5 (log above)"
  finish reorder.dynamic_ompi5
fi

# ci/chroot.sh's in_chroot, as ci/ompi5.sh uses it, with the host's clusters visible.
name=ompi5 suite=trixie chroot_dir=$root out=$work jobs=2
export MPIMON_CI_START=${MPIMON_CI_START:-0}
source "$src/ci/chroot.sh"
inner=/mpimon/build
cluster=r5x$$
results=$build/ompi5/build/reorder-dynamic-$$
trap '"$mpimon" cluster down --name "$cluster" >/dev/null 2>&1; rm -rf "$results" "$work"' EXIT
trap 'exit 130' INT TERM
mkdir -p "$results"
run "$mpimon" cluster up --name "$cluster" --nodes 4 --slots 4
expect_eq "$rc" 0 "cluster up ($err)"
CHROOT_CLUSTERS=1
run in_chroot "$root" "cd $inner && mpirun --version | head -1 && cli/mpimon collect \
  --launcher /run/mpimon/cluster/$cluster/mpirun --np 16 -o $inner/${results##*/}/dynamic.h5 -- \
  reorder/tests/mpimon-reorder-demo --source monitoring --bytes 4096 --iterations 5" "$build/ompi5/build" "$inner"
expect_eq "$rc" 0 "mpimon collect of the demo with \"monitoring\", Open MPI 5 across the nodes ($out $err)"
expect_contains "$out" "(Open MPI) 5." "the root's mpirun is Open MPI 5"
printf '%s\n' "$out" >demo.txt
run /usr/bin/python3 "$src/reorder/tests/check_dynamic.py" demo.txt --collected "$results/dynamic.h5"
expect_eq "$rc" 0 "the collected phases against the library's model: $out"
echo "$out"
grep '^REORDER' demo.txt

run "$mpimon" cluster down --name "$cluster"
expect_eq "$rc" 0 "cluster down ($err)"
expect_eq "$(ip netns list | grep -c "^mpimon[.]$cluster[.]")" 0 "no namespace of the cluster left"
expect_eq "$(awk -v d="$root" 'index($2, d) == 1' /proc/self/mounts)" "" "no mount left in the root"
finish reorder.dynamic_ompi5
