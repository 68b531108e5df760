#!/usr/bin/env bash
# `mpimon simulate --matrices`: the bytes between hosts in the simulation (SMPI's trace) equal the
# monitoring's matrix folded onto the mapping's hosts. The recording is Open MPI's (mpirun,
# monitoring on, `mpimon record --keep-dumps`); the fold is done here with awk from Open MPI's own
# per-rank dumps (E and I lines: the PML's view, collectives decomposed) and the rankfile; the
# simulated bytes are read with h5py from the results file. Two programs: a scrambled 16-rank halo
# exchange (point-to-point) and a forced binary reduce (coll_tuned_reduce_algorithm 4 against
# SMPI's ompi_binary: a collective decomposed alike). A recording of another program (the halo with
# another rank order) is refused: exit 1, the rows say DIFFERS, the results are kept.
# Usage: simulate_traffic_test.sh MPIMON WORKLOAD WORKLOAD_SMPI RUN_COLLECTIVE RUN_COLLECTIVE_SMPI
source "$(dirname "$0")/test_lib.sh"
mpimon=$1 workload=$2 workload_smpi=$3 collective=$4 collective_smpi=$5

for r in $(seq 0 15); do echo "rank $r=node$((r / 4)) slot=0:$((r % 4))"; done >packed.rf
for r in $(seq 0 15); do echo "rank $r=node$((r % 4)) slot=0:$((r / 4))"; done >cyclic.rf

# folded PROF_DIR RANKFILE: "FROM TO BYTES" between the rankfile's hosts, from Open MPI's dumps.
folded() {
  awk -F'\t' 'FNR == NR { split($0, w, /[ =]/); host[w[2]] = w[3]; next }
              ($1 == "E" || $1 == "I") { split($4, b, " "); sum[host[$2] " " host[$3]] += b[1] }
              END { for (k in sum) if (sum[k] > 0) print k, sum[k] }' "$2" "$1"/*.prof | sort
}
# simulated RESULTS ARM: "FROM TO BYTES" of the simulation (the results' host_traffic).
simulated() {
  /usr/bin/python3 - "$1" "$2" <<'EOF' | sort
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    for launch in f["launches"].values():
        text = lambda k: launch.attrs[k].decode() if isinstance(launch.attrs[k], bytes) else str(launch.attrs[k])
        if text("arm") == sys.argv[2]:
            print(text("host_traffic").strip())
EOF
}

halo=(--workload stencil --class small --iterations 3 --scramble 1)
reduce=(--op reduce --count 100000 --type-size 4)
run "$mpimon" record --np 16 -o halo.h5 --keep-dumps halo-prof -- "$workload" "${halo[@]}"
expect_eq "$rc" 0 "record the halo ($err)"
run "$mpimon" record --np 16 -o reduce.h5 --keep-dumps reduce-prof --mca coll_tuned_use_dynamic_rules=1 \
  --mca coll_tuned_reduce_algorithm=4 -- "$collective" "${reduce[@]}"
expect_eq "$rc" 0 "record the forced binary reduce ($err)"

run "$mpimon" simulate --topology 4x1x4 --rankfile packed.rf --rankfile cyclic.rf --np 16 --matrices halo.h5 \
  -o halo-sim.h5 -- "$workload_smpi" "${halo[@]}"
expect_eq "$rc" 0 "simulate the halo against its recording ($err)"
expect_contains "$out" "traffic B: equal to the recording halo.h5" "the halo's traffic check"
run "$mpimon" simulate --topology 4x1x4 --rankfile packed.rf --rankfile cyclic.rf --np 16 --matrices reduce.h5 \
  --smpi smpi/reduce=ompi_binary -o reduce-sim.h5 -- "$collective_smpi" "${reduce[@]}"
expect_eq "$rc" 0 "simulate the reduce against its recording ($err)"
for arm in A B; do
  rf=$([ $arm = A ] && echo packed.rf || echo cyclic.rf)
  want=$(folded halo-prof "$rf")
  expect_eq "$(simulated halo-sim.h5 $arm)" "$want" "halo, mapping $arm: simulated bytes between hosts = Open MPI's dumps folded"
  check && [ "$(wc -l <<<"$want")" -ge 4 ] || fail "halo, mapping $arm: the fold has fewer than 4 host pairs: [$want]"
  expect_eq "$(simulated reduce-sim.h5 $arm)" "$(folded reduce-prof "$rf")" "reduce, mapping $arm: simulated = folded"
done

# Another program than the one recorded: refused after the simulation, the results kept.
run "$mpimon" simulate --topology 4x1x4 --rankfile cyclic.rf --np 16 --matrices halo.h5 -o other.h5 -- \
  "$workload_smpi" --workload stencil --class small --iterations 3 --scramble 2
expect_eq "$rc" 1 "another program than recorded: exit code"
expect_contains "$err" "the simulated traffic differs from --matrices" "the error says why"
expect_contains "$out" "traffic A: DIFFERS from the recording halo.h5" "the row says it differs"
expect_eq "$([ -s other.h5 ] && echo kept)" kept "the results of a simulation that differs are kept"
finish simulate_traffic
