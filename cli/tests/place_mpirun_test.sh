#!/usr/bin/env bash
# `mpimon place --rankfile` applied by Open MPI's own mapper: the modelled node is a synthetic hwloc
# topology (lstopo --input "pack:S core:C pu:1") given both to `mpimon place --topology` and to
# mpirun (--mca hwloc_base_topo_file), the hosts are this host, and each rank reports where mpirun
# bound it (docs/placement.md, "Checked by mpirun"). The expected place of each rank comes from the
# mapping file (RANK LEAF) and the tree-leaf numbering (leaf = socket x C + core), never from the
# rankfile; hwloc numbers the processing units of a synthetic topology the same way (PU = socket x C
# + core). Open MPI 4.1.4 binds a rank to the PU of that number: on a PU this machine has, the rank
# runs there (its Cpus_allowed_list); on a PU it lacks, the binding fails with a warning naming the
# PU and the rank runs unbound. Both are checked: rank by rank, and the multiset of the failed PUs.
# Usage: place_mpirun_test.sh MPIMON MPIMON_MERGE SYNTH_DUMPS MPIRUN
set -u
mpimon=$1 merge=$2 synth=$3 mpirun=$4
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"

command -v lstopo >/dev/null || { echo "skipped: lstopo (hwloc) is not installed"; exit 77; }
version=$("$mpirun" --version 2>/dev/null | head -1)
if [[ ! "$version" =~ \((Open\ MPI|OpenRTE)\)\ 4\.1\. ]]; then
  # Open MPI 5's PRRTE reads a topology file and rankfiles through other options.
  echo "skipped: checked with Open MPI 4.1's mpirun, this is '$version'"
  exit 77
fi
host=$(hostname)
cpus=$(nproc)

# check_node SPEC RANKS METHOD [PLACE OPTIONS...]: place RANKS ranks of a synthetic stencil on the
# node SPEC ("pack:S core:C pu:1"), run the rankfile under mpirun with that node as its topology.
check_node() {
  local spec=$1 ranks=$2 method=$3
  shift 3
  local what="$spec, $ranks ranks, $method"
  local sockets cores dir
  sockets=$(sed -E 's/.*pack:([0-9]+).*/\1/' <<<"$spec")
  cores=$(sed -E 's/.*core:([0-9]+).*/\1/' <<<"$spec")
  dir=$(mktemp -d "$work/node.XXXX")
  check && "$synth" --pattern stencil --ranks "$ranks" --mode 1 --collectives no --histograms no --seed 3 -o "$dir/s" \
    >/dev/null || { fail "$what: synthetic dumps"; return; }
  check && "$merge" -q -o "$dir/run.h5" "$dir"/s.*.prof || { fail "$what: merge"; return; }
  check && lstopo --input "$spec" --of xml "$dir/node.xml" 2>/dev/null || { fail "$what: lstopo"; return; }
  run "$mpimon" place "$dir/run.h5" --topology "$dir/node.xml" --method "$method" --hosts "$host" \
    --mapping-out "$dir/m.map" --rankfile "$dir/m.rf" "$@"
  check && [ "$rc" -eq 0 ] || { fail "$what: place ($err)"; return; }
  check && [ "$(wc -l <"$dir/m.map")" -eq "$ranks" ] || { fail "$what: mapping lines: $(cat "$dir/m.map")"; return; }
  # The expected PU of each rank: from its leaf, socket = leaf / C, core = leaf % C, PU = socket * C + core.
  declare -A pu
  while read -r rank leaf; do
    pu[$rank]=$(((leaf / cores) * cores + leaf % cores))
    check && [ "$((leaf / cores))" -lt "$sockets" ] || fail "$what: leaf $leaf outside the node"
  done <"$dir/m.map"
  # Each rank prints the CPUs it may run on; a failed binding prints a warning naming its PU.
  (cd "$dir" && timeout 120 "$mpirun" -np "$ranks" --mca hwloc_base_topo_file node.xml \
    --mca orte_base_help_aggregate 0 --rankfile m.rf \
    sh -c 'echo "rank $OMPI_COMM_WORLD_RANK cpus $(sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status)"' \
    >run.out 2>&1)
  local mpirun_rc=$?
  check && [ "$mpirun_rc" -eq 0 ] || { fail "$what: mpirun exit code $mpirun_rc: $(tail -5 "$dir/run.out")"; return; }
  local expected_failed=() on_real=0
  for ((r = 0; r < ranks; r++)); do
    local got
    got=$(sed -n "s/^rank $r cpus //p" "$dir/run.out")
    if [ "${pu[$r]}" -lt "$cpus" ]; then
      expect_eq "$got" "${pu[$r]}" "$what: rank $r (leaf PU ${pu[$r]}, on this machine) bound by mpirun to"
      on_real=$((on_real + 1))
    else
      expected_failed+=("${pu[$r]}")
      expect_eq "$got" "0-$((cpus - 1))" "$what: rank $r (PU ${pu[$r]}, not on this machine) runs unbound on"
    fi
  done
  local failed
  failed=$(sed -n 's/.*hwloc_set_cpubind returned "Error" for bitmap "\([0-9]*\)".*/\1/p' "$dir/run.out" | sort -n | tr '\n' ' ')
  expect_eq "$failed" "$(printf '%s\n' "${expected_failed[@]}" | sed '/^$/d' | sort -n | tr '\n' ' ')" \
    "$what: the PUs mpirun tried to bind the ranks placed beyond this machine to"
  echo "$what: $on_real ranks checked rank by rank, ${#expected_failed[@]} by their failed binding"
}

# Two sockets of one core: every PU exists here (2 cores): each rank's socket is checked rank by rank;
# random mappings (seeds 1 to 4) put rank 0 on either socket.
if [ "$cpus" -ge 2 ]; then
  for seed in 1 2 3 4; do check_node "pack:2 core:1 pu:1" 2 random --seed "$seed"; done
  # The comparison can fail: one of these mappings with the two ranks' slots exchanged in its rankfile
  # puts each rank on the other socket, which the mapping file's expectation must not match.
  last=$(ls -d "$work"/node.* | tail -1)
  paste -d' ' <(cut -d' ' -f2 "$last/m.rf") <(cut -d' ' -f3 "$last/m.rf" | tac) |
    awk -v h="$host" '{ print "rank " NR - 1 "=" h " " $2 }' >"$last/swapped.rf"
  check && (cd "$last" && timeout 120 "$mpirun" -np 2 --mca hwloc_base_topo_file node.xml --rankfile swapped.rf \
    sh -c 'echo "rank $OMPI_COMM_WORLD_RANK cpus $(sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status)"' \
    >swapped.out 2>&1) || fail "the swapped rankfile under mpirun: $(tail -3 "$last/swapped.out")"
  while read -r rank leaf; do
    got=$(sed -n "s/^rank $rank cpus //p" "$last/swapped.out")
    check && [ -n "$got" ] && [ "$got" != "$leaf" ] || fail "a swapped rankfile went unnoticed: rank $rank on [$got], leaf $leaf"
  done <"$last/m.map"
else
  skip_part "one CPU: the two-socket node checked rank by rank"
fi
# The modelled node of the placement results (2 sockets x 4 cores), 8 ranks, the default (all)
# method and Scotch: 2 ranks checked rank by rank on this 2-core machine, 6 by their failed binding.
check_node "pack:2 core:4 pu:1" 8 all
check_node "pack:2 core:4 pu:1" 8 scotch
check_node "pack:2 core:4 pu:1" 5 random --seed 7

finish "place rankfile under mpirun"
