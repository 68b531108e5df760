#!/usr/bin/env bash
# `mpimon simulate` with SimGrid's SMPI (docs/simulate.md), correctness only:
#   rankfiles: a 16-rank ring under two rankfiles is placed by SMPI where each rankfile says (SMPI's
#     own -map lines, kept with each run, against the rankfiles read here with awk), and SMPI's
#     smpirun reruns the written platform and hostfile;
#   property: on a network-dominated platform (10 Mbit/s between nodes) the ring kept inside the nodes
#     (packed: 4 of 16 edges cross nodes) simulates faster than the ring crossing nodes on every edge
#     (cyclic); never a number;
#   jobs: with --jobs 2 both mappings run at once (each waits for the other to start), each where its
#     rankfile says, with the same times;
#   platform: the platforms --topology writes are read by SimGrid itself (mpimon-simgrid-platform):
#     their hosts, cores and routes, a two-level fat tree included.
# Usage: simulate_test.sh MPIMON SIMGRID_PLATFORM_READER DEMO_RING_SMPI
source "$(dirname "$0")/test_lib.sh"
mpimon=$1 reader=$2 ring=$3

# packed: rank r on node r/4; scrambled: a fixed permutation, every node still holding 4 ranks.
for r in $(seq 0 15); do echo "rank $r=node$((r / 4)) slot=0:$((r % 4))"; done >packed.rf
perm=(5 12 0 9 14 3 7 10 1 15 8 2 11 6 13 4)
for r in $(seq 0 15); do
  p=${perm[r]}
  echo "rank $r=node$((p / 4)) slot=0:$((p % 4))"
done >scrambled.rf
for r in $(seq 0 15); do echo "rank $r=node$((r % 4)) slot=0:$((r / 4))"; done >cyclic.rf

# 1. Each rank where its rankfile says, by SMPI's -map.
run "$mpimon" simulate --topology 4x1x4 --rankfile packed.rf --rankfile scrambled.rf --np 16 -o ring.h5 \
  --json ring.json -- "$ring"
expect_eq "$rc" 0 "simulate exit code ($err)"
expect_contains "$out" "SIMULATED" "the table says simulated"
for arm in A B; do
  rf=$([ $arm = A ] && echo packed.rf || echo scrambled.rf)
  want=$(sed -E 's/^rank ([0-9]+)=([^ ]+) .*/\1 \2/' "$rf" | sort -n)
  got=$(/usr/bin/python3 - ring.h5 "$arm" <<'EOF'
import re, sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    for launch in f["launches"].values():
        text = lambda k: launch.attrs[k].decode() if isinstance(launch.attrs[k], bytes) else str(launch.attrs[k])
        if text("arm") == sys.argv[2]:
            for rank, host in re.findall(r"\[rank (\d+)\] -> (\S+)", text("bindings")):
                print(rank, host)
EOF
  )
  expect_eq "$(sort -n <<<"$got")" "$want" "SMPI's -map of mapping $arm ($rf)"
  expect_eq "$(paste -d' ' <(seq 0 15) ring.$arm.hosts)" "$want" "the hostfile written beside the results for $arm"
done
# The written platform and hostfile run under SMPI's own smpirun, as docs/simulate.md says.
run smpirun -platform ring.platform.xml -hostfile ring.B.hosts -np 16 --cfg=smpi/privatization:no "$ring"
expect_eq "$rc" 0 "smpirun on the written platform ($out $err)"
expect_contains "$out" "demo ring: 10 steps on 16 ranks" "smpirun's run of the ring"
run "$mpimon" show ring.h5
expect_contains "$out" "kind                   simulated" "show: the results are labelled simulated"
expect_contains "$out" "scrambled" "show: the table of mappings"
expect_eq "$(awk '$1 == "np" { print $2 }' <<<"$out")" 16 "show: np as --np gave it"

# 2. Network-dominated: the ring inside the nodes is faster than the ring across them.
run "$mpimon" simulate --topology 4x1x4 --rate 10mbit --node-rate 100gbit --rankfile packed.rf \
  --rankfile cyclic.rf --np 16 -o property.h5 --json property.json -- "$ring"
expect_eq "$rc" 0 "simulate exit code on the slow network ($err)"
faster=$(/usr/bin/python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["mappings"]; print(int(m[0]["simulated_seconds"] < m[1]["simulated_seconds"]), m[0]["rankfile"].endswith("packed.rf"))' property.json)
expect_eq "$faster" "1 True" "packed (ring inside nodes) simulated faster than cyclic (every edge across nodes)"

# 3. SimGrid reads what --topology writes: hosts, cores and routes (the reader checks the routes
#    from the first host named to every other and back).
hosts() { "$reader" "$1" "${@:2}" | awk '$1 == "host" { print $2 ":" $3 }' | sort -V | tr '\n' ' '; }
expect_eq "$(hosts ring.platform.xml node0 node1 node2 node3)" "node0:4 node1:4 node2:4 node3:4 " "the 4x1x4 platform's hosts"
run "$mpimon" simulate --topology "tleaf 4 4 1000 4 100 2 10 4 1" --rankfile packed.rf --np 16 -o tree.h5 -- "$ring"
expect_eq "$rc" 0 "simulate on a two-level fat tree ($err)"
expect_contains "$(cat tree.platform.xml)" 'topo_parameters="2;4,4;1,4;1,1"' "the fat tree's parameters"
expect_eq "$("$reader" tree.platform.xml node0 node5 node15 | awk '$1 == "host"' | wc -l)" 16 "16 hosts of the fat tree, routed"
expect_eq "$(hosts tree.platform.xml | awk '{ print $1, $16 }')" "node0:8 node15:8" "8 cores per host of the fat tree"
# 4. --jobs 2: both mappings simulated at once, each rank still where its rankfile says, the rows in
#    the order given, the simulated times those of one at a time (communication only: SMPI would time
#    the ring's computation on this machine, shared by the two). "At once" without a clock: smpirun is
#    a wrapper that lets each simulation start only once the other has started (one at a time, the
#    first would wait for a second that never comes, and fail after 60 s).
quiet=(--topology 4x1x4 --rate 10mbit --node-rate 100gbit --rankfile packed.rf --rankfile cyclic.rf --np 16
  --smpi smpi/simulate-computation=no)
run "$mpimon" simulate "${quiet[@]}" -o one.h5 --json one.json -- "$ring"
expect_eq "$rc" 0 "simulate, one at a time, exit code ($err)"
mkdir met
cat >meet.sh <<'EOF'
#!/bin/sh
met=$(dirname "$0")/met
touch "$met/$$"
for i in $(seq 600); do
  [ "$(ls "$met" | wc -l)" -ge 2 ] && exec smpirun "$@"
  sleep 0.1
done
echo "the other simulation never started" >&2
exit 1
EOF
chmod +x meet.sh
run "$mpimon" simulate "${quiet[@]}" --jobs 2 --smpirun ./meet.sh -o jobs.h5 --json jobs.json -- "$ring"
expect_eq "$rc" 0 "simulate --jobs 2: both simulations ran at once ($err)"
seconds() { /usr/bin/python3 -c 'import json, sys; print(" ".join(m["rankfile"].rsplit("/", 1)[1] + "=" + repr(m["simulated_seconds"]) for m in json.load(open(sys.argv[1]))["mappings"]))' "$1"; }
expect_contains "$(seconds jobs.json)" "packed.rf=" "--jobs 2: the JSON rows"
expect_eq "$("$mpimon" show jobs.h5 | awk '$1 == "np" || $1 == "jobs" { print $1, $2 }' | tr '\n' ' ')" "jobs 2 np 16 " \
  "--jobs 2: np and jobs recorded"
expect_eq "$(seconds jobs.json)" "$(seconds one.json)" "--jobs 2: the rows in order, the times of one simulation at a time"
for arm in A B; do
  rf=$([ $arm = A ] && echo packed.rf || echo cyclic.rf)
  expect_eq "$(paste -d' ' <(seq 0 15) jobs.$arm.hosts)" "$(sed -E 's/^rank ([0-9]+)=([^ ]+) .*/\1 \2/' "$rf" | sort -n)" \
    "--jobs 2: the hostfile of $arm ($rf)"
done
run "$mpimon" simulate --topology 4x1x4 --rankfile packed.rf --np 16 --jobs 0 -o zero.h5 -- "$ring"
expect_eq "$rc" 2 "--jobs 0 refused"
expect_contains "$err" "--jobs" "--jobs 0: the error names the option"
finish simulate
