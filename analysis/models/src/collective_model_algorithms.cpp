// The messages of each coll/tuned algorithm of Open MPI 4.1 and 5.0 (ompi/mca/coll/base/), written from
// what each algorithm does; docs/collectives.md states every rule used here. This file holds the
// dispatch and the fixed decisions that composite algorithms reach through the communicator; the
// algorithms are in collective_bcast_reduce.cpp, collective_all_to_all.cpp and
// collective_gather_barrier.cpp.

#include <initializer_list>

#include "collective_algorithms.hpp"

namespace mpimon {

namespace collective_detail {

// ---- The fixed decisions, which composite algorithms reach through the communicator. ----

/// One row of a fixed decision: below this many bytes, this algorithm.
struct SizeRule {
  std::uint64_t below;
  int algorithm;
};
/// The algorithm of the first rule whose bound exceeds `bytes`, else `otherwise`.
int pick(std::uint64_t bytes, std::initializer_list<SizeRule> rules, int otherwise) {
  for (const SizeRule& r : rules) {
    if (bytes < r.below) return r.algorithm;
  }
  return otherwise;
}

/// coll/tuned's fixed bcast decision of Open MPI 4.1 (coll_tuned_decision_fixed.c).
int fixed_bcast_algorithm(std::uint32_t p, std::uint64_t bytes) {
  if (p < 4) {
    return pick(
        bytes,
        {{32, 3}, {256, 5}, {512, 3}, {1024, 7}, {32768, 1}, {131072, 5}, {262144, 2}, {524288, 1}, {1048576, 6}}, 5);
  }
  if (p < 8) return pick(bytes, {{64, 5}, {128, 6}, {2048, 5}, {8192, 6}, {1048576, 1}}, 2);
  if (p < 16) return pick(bytes, {{8, 7}, {64, 5}, {4096, 7}, {16384, 5}, {32768, 6}}, 1);
  if (p < 32) return pick(bytes, {{4096, 7}, {1048576, 6}}, 8);
  if (p < 64) return pick(bytes, {{2048, 6}}, 7);
  if (p < 128) return 7;
  if (p < 256) return pick(bytes, {{2, 6}, {16384, 5}, {32768, 1}, {65536, 5}}, 7);
  if (p < 1024) return pick(bytes, {{16384, 7}, {32768, 4}}, 7);
  if (p < 2048) return pick(bytes, {{524288, 7}}, 8);
  if (p < 4096) return pick(bytes, {{262144, 7}}, 8);
  return pick(bytes, {{8192, 7}, {16384, 5}, {262144, 7}}, 8);
}

/// coll/tuned's fixed reduce decision for a commutative operation.
int fixed_reduce_algorithm(std::uint32_t p, std::uint64_t bytes) {
  if (p < 4) return pick(bytes, {{8, 7}, {16, 4}, {32, 3}, {262144, 1}, {524288, 3}, {1048576, 2}}, 3);
  if (p < 8) return pick(bytes, {{4096, 4}, {65536, 2}, {262144, 5}, {524288, 1}, {1048576, 5}}, 1);
  if (p < 16) return pick(bytes, {{8192, 4}}, 5);
  if (p < 32) return pick(bytes, {{4096, 4}}, 5);
  if (p < 256) return 5;
  if (p < 512) return pick(bytes, {{8192, 5}, {16384, 6}}, 5);
  if (p < 2048) return 5;
  if (p < 4096) return pick(bytes, {{512, 5}, {1024, 6}, {8192, 5}, {16384, 6}}, 5);
  return pick(bytes, {{16, 5}, {32, 6}, {1024, 5}, {2048, 6}, {8192, 5}, {16384, 6}}, 5);
}

/// coll/tuned's fixed gather decision.
int fixed_gather_algorithm(std::uint32_t p, std::uint64_t bytes) {
  if (p < 4) {
    if (bytes < 2) return 3;
    if (bytes < 4) return 1;
    if (bytes < 32768) return 2;
    if (bytes < 65536) return 1;
    return bytes < 131072 ? 2 : 3;
  }
  if (p < 8) {
    if (bytes < 1024) return 2;
    if (bytes < 8192) return 1;
    if (bytes < 32768) return 2;
    return bytes < 262144 ? 1 : 3;
  }
  if (p < 256) return 2;
  if (p < 512) return bytes < 2048 || bytes >= 8192 ? 2 : 1;
  return 2;
}

/// A collective the algorithm calls through the communicator, i.e. through coll/tuned's fixed
/// decision (only the forced operation is decided dynamically), with no segmentation and fan-out
/// 0 (a chain of one).
EdgeTraffic nested_call(const CollectiveSpec& outer, CollectiveOp op, std::uint64_t count, int algorithm) {
  CollectiveSpec inner = outer;
  inner.op = op;
  inner.algorithm = algorithm;
  inner.count = count;
  inner.root = 0;
  inner.segment_size = 0;
  inner.chain_fanout = 0;
  return predict_collective(inner);
}

}  // namespace collective_detail

using namespace collective_detail;

EdgeTraffic predict_collective(const CollectiveSpec& spec) {
  check_spec(spec);
  // coll/self serves a single process, and the API returns before any coll component when
  // there is nothing to move.
  if (spec.nprocs == 1 || (spec.op != CollectiveOp::barrier && spec.count == 0)) return {};
  Messages messages(spec);
  switch (spec.op) {
    case CollectiveOp::bcast:
      predict_bcast(messages, spec.algorithm);
      break;
    case CollectiveOp::reduce:
      predict_reduce(messages, spec.algorithm);
      break;
    case CollectiveOp::allreduce:
      predict_allreduce(messages, spec.algorithm);
      break;
    case CollectiveOp::alltoall:
      predict_alltoall(messages, spec.algorithm);
      break;
    case CollectiveOp::allgather:
      predict_allgather(messages, spec.algorithm);
      break;
    case CollectiveOp::gather:
      predict_gather(messages, spec.algorithm);
      break;
    case CollectiveOp::scatter:
      predict_scatter(messages, spec.algorithm);
      break;
    case CollectiveOp::barrier:
      predict_barrier(messages, spec.algorithm);
      break;
  }
  return messages.take();
}

EdgeTraffic api_level_traffic(const CollectiveSpec& spec) {
  check_spec(spec);
  EdgeTraffic traffic;
  if (spec.nprocs == 1 || (spec.op != CollectiveOp::barrier && spec.count == 0)) return traffic;
  const std::uint64_t bytes = spec.op == CollectiveOp::barrier ? 0 : spec.count * spec.type_size;
  for (std::uint32_t src = 0; src < spec.nprocs; ++src) {
    for (std::uint32_t dst = 0; dst < spec.nprocs; ++dst) {
      bool flows = src != dst;
      if (spec.op == CollectiveOp::bcast || spec.op == CollectiveOp::scatter) flows = flows && src == spec.root;
      if (spec.op == CollectiveOp::reduce || spec.op == CollectiveOp::gather) flows = flows && dst == spec.root;
      if (flows) traffic.add(TrafficClass::coll, src, dst, bytes);
    }
  }
  return traffic;
}

}  // namespace mpimon
