# The collective decomposition sweep (docs/collectives.md): every coll/tuned algorithm the model
# covers runs alone under mpirun with monitoring (`mpimon validate collective`), and the
# point-to-point traffic Open MPI records must equal the model's prediction exactly, edge by
# edge. Included from validation/CMakeLists.txt inside if(MPIMON_ENABLE_TESTING).
#
# Test names: validation.collective.<op>.<algorithm>.np<N>[.root<R>][.seg<S>][.<variant>].
# The count and type size of each test are chosen from its process count (below) and printed by
# the test; `ctest -L collective` runs the sweep.

set(MPIMON_COLLECTIVE_ALGORITHMS_bcast basic_linear chain pipeline split_binary_tree binary_tree binomial knomial)
set(MPIMON_COLLECTIVE_ALGORITHMS_reduce linear chain pipeline binary binomial in-order_binary)
set(MPIMON_COLLECTIVE_ALGORITHMS_allreduce basic_linear nonoverlapping recursive_doubling ring segmented_ring)
set(MPIMON_COLLECTIVE_ALGORITHMS_alltoall linear pairwise modified_bruck linear_sync)
set(MPIMON_COLLECTIVE_ALGORITHMS_allgather linear bruck recursive_doubling ring neighbor)
set(MPIMON_COLLECTIVE_ALGORITHMS_gather basic_linear binomial linear_sync)
set(MPIMON_COLLECTIVE_ALGORITHMS_scatter basic_linear binomial linear_nb)
set(MPIMON_COLLECTIVE_ALGORITHMS_barrier linear double_ring recursive_doubling bruck tree)
# Algorithms that cut messages into segments (coll_tuned_<op>_algorithm_segmentsize).
set(MPIMON_COLLECTIVE_SEGMENTED
    bcast.chain bcast.pipeline bcast.split_binary_tree bcast.binary_tree bcast.binomial bcast.knomial
    reduce.chain reduce.pipeline reduce.binary reduce.binomial reduce.in-order_binary
    allreduce.segmented_ring gather.linear_sync)

# Registers one check.
#   mpimon_add_collective_check(OP ALGORITHM NP COUNT TYPE_SIZE [ROOT r] [SEG bytes] [VARIANT name]
#                               [ARGS extra options...] [DEFECT id] [LABELS extra labels...])
# DEFECT pins a known defect (docs/defects.md; the table in analysis/models/src/defects.cpp, whose unit test
# checks the ids and names here): the test passes only while the recording equals the model with
# the defect exactly, and fails with DEFECT FIXED when it equals the model of a correct monitoring.
function(mpimon_add_collective_check op algorithm np count type_size)
  cmake_parse_arguments(C "" "ROOT;SEG;VARIANT;DEFECT" "ARGS;LABELS" ${ARGN})
  set(name validation.collective.${op}.${algorithm}.np${np})
  set(options --op ${op} --algorithm ${algorithm} --np ${np} --count ${count} --type-size ${type_size})
  if(DEFINED C_ROOT)
    string(APPEND name .root${C_ROOT})
    list(APPEND options --root ${C_ROOT})
  endif()
  if(C_SEG)
    string(APPEND name .seg${C_SEG})
    list(APPEND options --segsize ${C_SEG})
  endif()
  if(C_VARIANT)
    string(APPEND name .${C_VARIANT})
  endif()
  if(C_DEFECT)
    list(APPEND options --pinned-defect ${C_DEFECT})
    list(APPEND C_LABELS defect)
  endif()
  # --no-control: one launch per check instead of two. The control run (everything but the
  # collective) records nothing through the PML, which the baseline test of the same process count
  # and mode proves once (below); the check requires it, so a baseline that is not empty fails
  # every check it would have distorted.
  set(mode 2)
  list(FIND C_ARGS --mode at)
  if(at GREATER -1)
    math(EXPR at "${at} + 1")
    list(GET C_ARGS ${at} mode)
  endif()
  mpimon_add_collective_baseline(${np} ${mode})
  add_test(NAME ${name}
           COMMAND mpimon validate collective ${options} ${C_ARGS} --no-control
                   --program $<TARGET_FILE:mpimon-run-collective> --launcher ${MPIEXEC_EXECUTABLE} --timeout 100)
  # PROCESSORS: ctest -j never runs two large launches at once. 77: the launcher's Open MPI does
  # not have the algorithm (allgather sparbit before 5.0), a skip.
  set_tests_properties(${name} PROPERTIES LABELS "validation;collective;mpi;${C_LABELS}" TIMEOUT 240
                                          PROCESSORS ${np} SKIP_RETURN_CODE 77
                                          FIXTURES_REQUIRED collective_baseline.np${np}.mode${mode})
endfunction()

# validation.collective.baseline.npN.modeM: mpimon-run-collective without its collective records
# no point-to-point traffic at N processes in monitoring mode M (once per pair, as a fixture).
function(mpimon_add_collective_baseline np mode)
  set(name validation.collective.baseline.np${np}.mode${mode})
  if(TEST ${name})
    return()
  endif()
  add_test(NAME ${name}
           COMMAND mpimon validate collective --op barrier --algorithm linear --np ${np} --count 0 --mode ${mode}
                   --baseline-only --program $<TARGET_FILE:mpimon-run-collective>
                   --launcher ${MPIEXEC_EXECUTABLE} --timeout 100)
  set_tests_properties(${name} PROPERTIES LABELS "validation;collective;mpi" TIMEOUT 240 PROCESSORS ${np}
                                          FIXTURES_SETUP collective_baseline.np${np}.mode${mode})
endfunction()

# The baseline check can fail: a program that sends (the demo ring) in place of the control run
# must be reported, edge by edge, with exit code 1.
add_test(NAME validation.collective.baseline.catches_traffic
         COMMAND bash -c [=[out=$("${@:2}" 2>&1); rc=$?; printf '%s\n' "$out"; [ "$rc" -eq 1 ] && grep -qF -- "$1" <<<"$out"]=]
                 _ "baseline not empty: the control run recorded 4 edges" $<TARGET_FILE:mpimon> validate collective --op barrier
                 --algorithm linear --np 2 --count 0 --baseline-only --program $<TARGET_FILE:mpimon-demo-ring>
                 --launcher ${MPIEXEC_EXECUTABLE} --timeout 100)
set_tests_properties(validation.collective.baseline.catches_traffic PROPERTIES LABELS "validation;collective;mpi"
                                                                            TIMEOUT 240 PROCESSORS 2)

# The parameters of the check of OP.ALGORITHM on NP processes, varied with NP so that the sweep
# as a whole covers type sizes 1, 4, 8 and 12 bytes, segment sizes that are and are not whole
# elements, counts one below, at and one above a segment boundary, and counts below NP (where the
# ring algorithms fall back to recursive doubling). Sets COUNT, TYPE_SIZE and SEG in the caller.
function(mpimon_collective_parameters np segmented)
  math(EXPR index "${np} % 4")
  set(type_sizes 4 1 8 12)
  list(GET type_sizes ${index} type_size)
  set(seg 0)
  if(segmented)
    # 16 elements per segment, 17 when the segment size's remainder rounds up.
    math(EXPR rounding "${np} % 3")
    set(elements 16)
    set(extra 0)
    if(rounding EQUAL 1)
      math(EXPR extra "${type_size} / 2")  # half an element: rounds down
    elseif(rounding EQUAL 2 AND type_size GREATER 2)
      math(EXPR extra "${type_size} - 1")  # more than half: rounds up
      set(elements 17)
    endif()
    math(EXPR seg "16 * ${type_size} + ${extra}")
    math(EXPR segments "${np} % 5 + 1")
    math(EXPR delta "${np} % 3 - 1")
    math(EXPR count "${elements} * ${segments} + ${delta}")
  elseif(index EQUAL 1)
    math(EXPR count "${np} - 1")
  else()
    math(EXPR count "1000 + ${np}")
  endif()
  set(COUNT ${count} PARENT_SCOPE)
  set(TYPE_SIZE ${type_size} PARENT_SCOPE)
  set(SEG ${seg} PARENT_SCOPE)
endfunction()

set(rooted_ops bcast reduce gather scatter)

# Registers the grid of OP.ALGORITHM on each of the process counts NPS: every count from 2 to 9
# segmented on even counts, whole on odd ones, for the algorithms that segment; roots (P+1)/2,
# and P-1 above 9 processes.
function(mpimon_add_collective_grid op algorithm)
  set(segmenting FALSE)
  if("${op}.${algorithm}" IN_LIST MPIMON_COLLECTIVE_SEGMENTED)
    set(segmenting TRUE)
  endif()
  foreach(np IN LISTS ARGN)
    math(EXPR even "${np} % 2")
    set(segmented FALSE)
    if(segmenting AND even EQUAL 0)
      set(segmented TRUE)
    endif()
    mpimon_collective_parameters(${np} ${segmented})
    set(extra)
    if(op IN_LIST rooted_ops)
      math(EXPR root "(${np} + 1) / 2")
      if(np GREATER 9)
        math(EXPR root "${np} - 1")
      endif()
      list(APPEND extra ROOT ${root})
    endif()
    if(op STREQUAL "barrier")
      set(COUNT 0)
    endif()
    mpimon_add_collective_check(${op} ${algorithm} ${np} ${COUNT} ${TYPE_SIZE} SEG ${SEG} ${extra})
  endforeach()
endfunction()

set(large_np 12)
foreach(op bcast reduce allreduce alltoall allgather gather scatter barrier)
  foreach(algorithm IN LISTS MPIMON_COLLECTIVE_ALGORITHMS_${op})
    # One larger count after 2 to 9, 12 or 16 in turn.
    mpimon_add_collective_grid(${op} ${algorithm} 2 3 4 5 6 7 8 9 ${large_np})
    if(large_np EQUAL 12)
      set(large_np 16)
    else()
      set(large_np 12)
    endif()
  endforeach()
endforeach()

# The scatter/allgather bcasts, Rabenseifner's reduce and allreduce, and allgather sparbit (Open
# MPI 5.0 on; a skip on 4.1), on both larger counts (apart, so the grid's names stay as they were).
foreach(check bcast.scatter_allgather bcast.scatter_allgather_ring reduce.rabenseifner allreduce.rabenseifner
              allgather.sparbit)
  string(REPLACE "." ";" check "${check}")
  mpimon_add_collective_grid(${check} 2 3 4 5 6 7 8 9 12 16)
endforeach()
# Around their thresholds: bcast switches to basic_linear below P elements, reduce and allreduce
# below P' (the largest power of two <= P) elements; counts not divisible by P or P' leave
# uneven halves and short or empty blocks.
foreach(algorithm scatter_allgather scatter_allgather_ring)
  foreach(np 6 7)
    math(EXPR below "${np} - 1")
    math(EXPR above "${np} + 1")
    foreach(count ${below} ${np} ${above})
      mpimon_add_collective_check(bcast ${algorithm} ${np} ${count} 4 ROOT 2 VARIANT count${count})
    endforeach()
  endforeach()
  # ceil(8/7) = 2-element blocks: the last three blocks are empty.
  mpimon_add_collective_check(bcast ${algorithm} 7 8 12 ROOT 6 VARIANT empty_blocks)
  mpimon_add_collective_check(bcast ${algorithm} 12 1000 1 ROOT 5 VARIANT root5)
  # They take the segment size and do not use it.
  mpimon_add_collective_check(bcast ${algorithm} 6 100 4 ROOT 3 SEG 64 VARIANT unused)
endforeach()
foreach(op reduce allreduce)
  foreach(count 3 4 5)  # P' = 4 on 5, 6 and 7 processes
    foreach(np 5 6 7)
      set(extra)
      if(op STREQUAL "reduce")
        set(extra ROOT 1)  # sits out of the halving on 6 and 7 processes
      endif()
      mpimon_add_collective_check(${op} rabenseifner ${np} ${count} 8 ${extra} VARIANT count${count})
    endforeach()
  endforeach()
endforeach()
# Every kind of root: one that sits out (odd, below 2(P - P')), one paired (even, below), one
# above; on 16 processes, no pairing at all.
foreach(root 0 3 4 5 6)
  mpimon_add_collective_check(reduce rabenseifner 7 999 4 ROOT ${root} VARIANT rooted)
endforeach()
mpimon_add_collective_check(reduce rabenseifner 12 1001 4 ROOT 7 VARIANT rooted)
mpimon_add_collective_check(reduce rabenseifner 16 1001 4 ROOT 9 VARIANT rooted)
mpimon_add_collective_check(allreduce rabenseifner 11 1003 12 VARIANT uneven)

# Parameters the grid above keeps at their defaults.
foreach(fanout 1 2 3 40)  # chain fan-out, clamped by Open MPI to [1, P-1]
  mpimon_add_collective_check(bcast chain 9 100 4 ROOT 2 SEG 64 VARIANT fanout${fanout} ARGS --chain-fanout ${fanout})
  mpimon_add_collective_check(reduce chain 7 100 4 ROOT 6 SEG 64 VARIANT fanout${fanout} ARGS --chain-fanout ${fanout})
endforeach()
foreach(radix 2 3 5)
  mpimon_add_collective_check(bcast knomial 11 333 4 ROOT 4 SEG 100 VARIANT radix${radix} ARGS --radix ${radix})
endforeach()
# The tree fan-out parameter reaches no 4.1 algorithm: an unusual value must change nothing.
mpimon_add_collective_check(bcast binary_tree 7 100 4 ROOT 1 VARIANT tree_fanout3 ARGS --tree-fanout 3)
# Several phases of the segmented ring (the grid's counts mostly fall back to the plain ring).
mpimon_add_collective_check(allreduce segmented_ring 5 1001 4 SEG 40 VARIANT phases)
mpimon_add_collective_check(allreduce segmented_ring 7 999 8 SEG 100 VARIANT phases)
# Composite algorithms at sizes where the fixed decisions pick other algorithms than in the
# grid: reduce linear + bcast chain of fan-out 0 (a pipeline); reduce chain (pipeline) + bcast
# binomial; gather binomial + bcast linear; gather linear_sync + bcast pipeline.
mpimon_add_collective_check(allreduce nonoverlapping 5 300000 4 VARIANT large)
mpimon_add_collective_check(allreduce nonoverlapping 3 200000 4 VARIANT large)
mpimon_add_collective_check(allgather linear 3 30000 4 VARIANT large)
mpimon_add_collective_check(allgather linear 5 100000 4 VARIANT large)
# Algorithms for two processes only.
foreach(op alltoall allgather barrier)
  mpimon_add_collective_check(${op} two_proc 2 10 4)
endforeach()
# Nothing moves for a zero count.
mpimon_add_collective_check(bcast binomial 4 0 4 ROOT 1 VARIANT count0)
# With pml_monitoring_enable 1 every message is external.
mpimon_add_collective_check(reduce binomial 6 1000 4 ROOT 2 VARIANT mode1 ARGS --mode 1)
mpimon_add_collective_check(alltoall linear 4 10 4 VARIANT mode1 ARGS --mode 1)

# Defect (docs/defects.md, persistent-collective-external): alltoall `linear` sends through
# persistent requests started with the PML's start, which pml/monitoring records with tag 1, so
# the whole collective lands in E. The sweep's alltoall.linear checks predict that; this one
# passes only while the recording equals that model exactly and differs from the model of a
# correct monitoring (I).
mpimon_add_collective_check(alltoall linear 3 5 2 VARIANT ideal DEFECT persistent-collective-external)

# The commands themselves (no MPI): `mpimon model collective` prints the example of
# docs/collectives.md, worked out by hand (binary tree of 7 rooted at 3, 7 segments per edge), and
# `mpimon plot collective` writes both images (skipped without matplotlib).
add_test(NAME cli.model_collective
         COMMAND bash -c "diff <(\"$0\" model collective --op reduce --algorithm binary --np 7 --root 3 --count 100000 --type-size 4 --segsize 65536) <(printf 'I\\t%s\\t%s\\t400000\\t7\\n' 0 5 1 4 2 5 4 3 5 3 6 4)"
                 $<TARGET_FILE:mpimon>)
set_tests_properties(cli.model_collective PROPERTIES LABELS "cli;collective")
add_test(NAME cli.plot_collective
         COMMAND bash -c "/usr/bin/python3 -c 'import matplotlib' 2>/dev/null || exit 77; d=$(mktemp -d) && trap 'rm -rf $d' EXIT && \"$0\" plot collective --op bcast --algorithm binomial --np 6 --root 2 --count 10 -o $d/fig && test -s $d/fig.png && test -s $d/fig.svg"
                 $<TARGET_FILE:mpimon>)
set_tests_properties(cli.plot_collective PROPERTIES LABELS "cli;collective" SKIP_RETURN_CODE 77)
