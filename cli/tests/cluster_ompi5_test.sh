#!/usr/bin/env bash
# Open MPI 5.0 across the nodes of `mpimon cluster` (docs/cluster.md, "Open MPI 5"): the cluster's
# launcher run inside the Debian 13 root of ci/ompi5.sh (in_chroot with CHROOT_CLUSTERS=1), where
# its mpirun is Open MPI 5's and PRRTE starts the other node's daemon through the cluster's agent
# (plm_ssh_agent). A ring of 4 ranks mapped by node: each rank reports the node it ran on (rank r
# on node r mod 2), and each rank's monitoring dump holds exactly the ring's messages (10 of
# 1024 B to rank r+1, the program's own count), every one of them across the network. The root is
# left as it was (its /run, no mount), and so is the machine (no namespace).
# Needs root and the prepared root (bash ci/ompi5.sh prepare); skipped with the reason otherwise.
# Usage: cluster_ompi5_test.sh MPIMON SOURCE_DIR
set -u
mpimon=$1 src=$2
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"
root=${MPIMON_CHROOT_DIR:-/var/cache/mpimon/debian13}
for tool in ip tc unshare; do command -v "$tool" >/dev/null || skip_test "$tool is not installed"; done
unshare --net --uts true 2>/dev/null || skip_test "this process cannot make namespaces (needs root: CAP_SYS_ADMIN)"
[ -x "$root/usr/bin/prterun" ] && [ -x "$root/usr/bin/mpicc" ] ||
  skip_test "no Debian 13 root with Open MPI 5 at $root (bash ci/ompi5.sh prepare makes it)"

# ci/chroot.sh's in_chroot, as ci/ompi5.sh uses it.
name=ompi5 suite=trixie chroot_dir=$root out=$work jobs=2
export MPIMON_CI_START=${MPIMON_CI_START:-0}
source "$src/ci/chroot.sh"

cluster=co5x$$
trap '"$mpimon" cluster down --name "$cluster" >/dev/null 2>&1; rm -rf "$work"' EXIT
check && "$mpimon" cluster up --nodes 2 --slots 2 --name "$cluster" >/dev/null || { fail "cluster up"; finish cluster_ompi5; }
dir=$(dirname "$("$mpimon" cluster launcher --name "$cluster")")
cat >"$dir/ring.c" <<'RING'
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
/* 10 times, 256 ints (1024 B) to rank r+1, from rank r-1. */
int main(int argc, char** argv) {
  int r, n, buf[256] = {0};
  char host[64];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  for (int i = 0; i < 10; ++i)
    MPI_Sendrecv_replace(buf, 256, MPI_INT, (r + 1) % n, 0, (r + n - 1) % n, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  gethostname(host, sizeof host);
  printf("rank %d on %s\n", r, host);
  MPI_Finalize();
  return 0;
}
RING
run_before=$(ls -A "$root/run")
CHROOT_CLUSTERS=1
run in_chroot "$root" "cd $dir && mpirun --version | head -1 && mpicc -o ring ring.c && ./mpirun -np 4 --map-by node \
   --mca pml_monitoring_enable 1 --mca pml_monitoring_enable_output 3 --mca pml_monitoring_filename $dir/prof ./ring"
expect_eq "$rc" 0 "the ring through the cluster's launcher in the root: exit code ($err)"
expect_contains "$out" "(Open MPI) 5." "the root's mpirun is Open MPI 5"
expect_eq "$(grep '^rank ' <<<"$out" | sort)" "$(printf 'rank %d on node%d\n' 0 0 1 1 2 0 3 1)" "rank r on node r mod 2"
for r in 0 1 2 3; do
  lines=$(grep -P '^[EI]\t' "$dir/prof.$r.prof" 2>/dev/null)
  expect_eq "$(cut -f1-5 <<<"$lines")" "$(printf 'E\t%d\t%d\t10240 bytes\t10 msgs sent' "$r" $(((r + 1) % 4)))" \
    "rank $r's dump: the ring's messages to rank $(((r + 1) % 4)) and nothing else"
done

check && "$mpimon" cluster down --name "$cluster" >/dev/null || fail "cluster down"
expect_eq "$(ls -A "$root/run")" "$run_before" "the root's /run as it was"
expect_eq "$(awk -v d="$root" 'index($2, d) == 1' /proc/self/mounts)" "" "no mount left in the root"
expect_eq "$(ip netns list | grep -c "^mpimon[.]$cluster[.]")" 0 "no namespace of the cluster left"
finish cluster_ompi5
