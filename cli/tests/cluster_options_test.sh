#!/usr/bin/env bash
# `mpimon cluster` without making anything: bad values are usage errors naming the option, and a
# process without CAP_NET_ADMIN/CAP_SYS_ADMIN is refused with what it lacks, before anything is
# made (as root, checked in processes that dropped them with setpriv and capsh).
# Usage: cluster_options_test.sh MPIMON
set -u
mpimon=$1
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"

name=opt$$
netns_before=$(ip netns list 2>/dev/null | grep -F "mpimon.$name.")

# check_usage OPTION ARGS...: exit code 2 and a message naming OPTION.
check_usage() {
  local option=$1
  shift
  run "$mpimon" cluster "$@"
  expect_eq "$rc" 2 "cluster $*: exit code"
  expect_contains "$err" "$option" "cluster $*: the message names $option"
}
check_usage --nodes up --name "$name" --nodes 0
check_usage --nodes up --name "$name" --nodes 201
check_usage --nodes up --name "$name" --nodes x
check_usage --nodes up --name "$name"
check_usage --rate up --name "$name" --nodes 2 --rate fast
check_usage --rate up --name "$name" --nodes 2 --rate 10gbps
check_usage --slots up --name "$name" --nodes 2 --slots 0
check_usage --name up --nodes 2 --name 'a b'
check_usage --name up --nodes 2 --name a.b
check_usage --name status --name ../x
check_usage "mpirun" run --name "$name" -- ls
check_usage --node-topology up --name "$name" --nodes 2 --node-topology 4
check_usage --node-topology up --name "$name" --nodes 2 --node-topology 2x0
check_usage --node-topology up --name "$name" --nodes 2 --node-topology 2x4 --node-xml node.xml
check_usage "--slots 4 contradicts --node-topology 2x4 (2 sockets x 4 cores)" up --name "$name" --nodes 2 \
  --node-topology 2x4 --slots 4
check_usage "--node-xml missing.xml: cannot read it" up --name "$name" --nodes 2 --node-xml missing.xml
echo '<topology>' >broken.xml
if command -v hwloc-calc >/dev/null; then
  check_usage "--node-xml broken.xml: hwloc finds no package" up --name "$name" --nodes 2 --node-xml broken.xml
else
  skip_part "--node-xml read by hwloc-calc (hwloc is not installed)"
fi
run "$mpimon" cluster launcher --srun --name "$name"
expect_eq "$rc" 1 "launcher --srun of no cluster: exit code"
expect_contains "$err" "no cluster of that name is up" "launcher --srun of no cluster"
run "$mpimon" cluster up --help
expect_eq "$rc" 0 "up --help"
expect_contains "$out" "--rate" "up --help lists the options"
run "$mpimon" cluster status --name "$name"
expect_eq "$rc" 1 "status of no cluster: exit code"
expect_contains "$err" "no cluster of that name is up" "status of no cluster"

# refused COMMAND...: run without the capabilities, the refusal names each one missing.
refused() {
  local what=$1 lacks=$2
  shift 2
  run "$@"
  expect_eq "$rc" 1 "$what: exit code ($err)"
  expect_contains "$err" "needs root" "$what: refusal"
  expect_contains "$err" "lacks $lacks" "$what: what it lacks"
}
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && command -v capsh >/dev/null; then
  refused "nobody: up" "CAP_NET_ADMIN and CAP_SYS_ADMIN" \
    setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$mpimon" cluster up --nodes 2 --name "$name"
  refused "root without CAP_NET_ADMIN: up" "CAP_NET_ADMIN" \
    capsh --drop=cap_net_admin -- -c "'$mpimon' cluster up --nodes 2 --name $name"
  refused "root without CAP_SYS_ADMIN: down" "CAP_SYS_ADMIN" \
    capsh --drop=cap_sys_admin -- -c "'$mpimon' cluster down --name $name"
elif [ "$(id -u)" -ne 0 ]; then
  refused "up as $(id -un)" "CAP_NET_ADMIN and CAP_SYS_ADMIN" "$mpimon" cluster up --nodes 2 --name "$name"
else
  skip_part "the refusals (setpriv and capsh are needed to drop root's capabilities)"
fi
# --slurm where Slurm is not installed: PATH holding what a cluster needs but no Slurm or munge.
if [ "$(id -u)" -eq 0 ]; then
  mkdir bin
  for tool in ip tc unshare mpirun lstopo hwloc-calc sh; do ln -s "$(command -v "$tool")" bin/; done
  run env PATH="$PWD/bin" "$mpimon" cluster up --nodes 2 --slurm --name "$name"
  expect_eq "$rc" 1 "up --slurm without Slurm: exit code ($err)"
  expect_contains "$err" "--slurm: needs munged (package munge), slurmctld (package slurmctld), slurmd (package slurmd), srun (package slurm-client), sinfo (package slurm-client)" \
    "up --slurm without Slurm: the refusal names the programs and packages"
fi
expect_eq "$(ip netns list 2>/dev/null | grep -F "mpimon.$name.")" "$netns_before" "nothing made"
check && [ ! -e "/run/mpimon/cluster/$name" ] || fail "a refused up wrote /run/mpimon/cluster/$name"
finish cluster_options
