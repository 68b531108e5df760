// The collective model on small cases worked out by hand from the algorithms' descriptions
// (docs/collectives.md). The independent check, Open MPI itself under monitoring, is the
// validation.collective.* sweep.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mpimon/base/error.hpp"
#include "mpimon/models/collective_model.hpp"

namespace mpimon {
namespace {

using Children = std::vector<std::vector<std::uint32_t>>;

/// A spec with the given operation, algorithm (Open MPI's name), size and count of 1-byte elements.
CollectiveSpec spec(CollectiveOp op, const char* algorithm, std::uint32_t nprocs, std::uint64_t count = 1) {
  CollectiveSpec s;
  s.op = op;
  s.algorithm = parse_algorithm(op, algorithm);
  s.nprocs = nprocs;
  s.count = count;
  return s;
}

/// Builds expected traffic from {class letter, src, dst, bytes in all, messages} rows.
struct Row {
  char cls;
  std::uint32_t src, dst;
  std::uint64_t bytes, messages;
};
EdgeTraffic traffic(std::initializer_list<Row> rows) {
  EdgeTraffic t;
  for (const Row& r : rows) {
    t.add_totals(r.cls == 'E' ? TrafficClass::external : TrafficClass::internal, r.src, r.dst, {r.bytes, r.messages});
  }
  return t;
}

void expect_traffic(const EdgeTraffic& expected, const CollectiveSpec& s) {
  EdgeTraffic actual = predict_collective(s);
  EXPECT_EQ(format_traffic(actual), format_traffic(expected));
}

// ---- trees ----

TEST(CollectiveModel, BinaryTreeOfSevenLevelByLevel) {
  EXPECT_EQ(kary_tree(2, 7, 0).children, (Children{{1, 2}, {3, 5}, {4, 6}, {}, {}, {}, {}}));
}

TEST(CollectiveModel, BinaryTreeShiftedToRootThree) {
  // Virtual 0->{1,2}, 1->{3,5}, 2->{4,6} with real = (v + 3) mod 7.
  EXPECT_EQ(kary_tree(2, 7, 3).children, (Children{{}, {}, {}, {4, 5}, {6, 1}, {0, 2}, {}}));
}

TEST(CollectiveModel, BinomialTreeOfEight) {
  EXPECT_EQ(binomial_tree(8, 0).children, (Children{{1, 2, 4}, {3, 5}, {6}, {7}, {}, {}, {}, {}}));
}

TEST(CollectiveModel, InOrderBinomialTreeOfSix) {
  EXPECT_EQ(in_order_binomial_tree(6, 0).children, (Children{{1, 2, 4}, {}, {3}, {}, {5}, {}}));
}

TEST(CollectiveModel, KnomialTreesOfTenAsOpenMpiDrawsThem) {
  EXPECT_EQ(knomial_tree(4, 10, 0).children, (Children{{4, 8, 1, 2, 3}, {}, {}, {}, {5, 6, 7}, {}, {}, {}, {9}, {}}));
  EXPECT_EQ(knomial_tree(3, 10, 0).children, (Children{{9, 3, 6, 1, 2}, {}, {}, {4, 5}, {}, {}, {7, 8}, {}, {}, {}}));
  EXPECT_EQ(knomial_tree(2, 10, 0).children, (Children{{8, 4, 2, 1}, {}, {3}, {}, {6, 5}, {}, {7}, {}, {9}, {}}));
}

TEST(CollectiveModel, ChainsFirstOnesLonger) {
  // 9 ranks in 4 chains: 9 = 3 + 2 + 2 + 2.
  EXPECT_EQ(chain_tree(4, 10, 0).children, (Children{{1, 4, 6, 8}, {2}, {3}, {}, {5}, {}, {7}, {}, {9}, {}}));
  // 6 ranks in 3 chains of 2, shifted to root 2: virtual [1,2] [3,4] [5,6] are real [3,4] [5,6] [0,1].
  EXPECT_EQ(chain_tree(3, 7, 2).children, (Children{{1}, {}, {3, 5, 0}, {4}, {}, {6}, {}}));
}

TEST(CollectiveModel, ChainFanoutClampedToOneAndToTheRanks) {
  EXPECT_EQ(chain_tree(0, 4, 0).children, (Children{{1}, {2}, {3}, {}}));      // fan-out 0 is a pipeline
  EXPECT_EQ(chain_tree(8, 4, 0).children, (Children{{1, 2, 3}, {}, {}, {}}));  // 3 chains of one
}

TEST(CollectiveModel, InOrderBinaryTreeRootedAtTheLastRank) {
  // [0,5] -> 5 with halves [3,4] (top 4) and [0,2] (top 2); [3,4] -> 3; [0,2] -> 1 and 0.
  EXPECT_EQ(in_order_binary_tree(6).children, (Children{{}, {}, {1, 0}, {}, {3}, {4, 2}}));
  EXPECT_EQ(in_order_binary_tree(7).children, (Children{{}, {}, {1, 0}, {}, {}, {4, 3}, {5, 2}}));
  EXPECT_EQ(in_order_binary_tree(6).root, 5U);
}

TEST(CollectiveModel, ParentsInvertChildren) {
  EXPECT_EQ(kary_tree(2, 7, 3).parents(), (std::vector<std::uint32_t>{5, 4, 5, 3, 3, 3, 4}));
}

// ---- segmentation and blocks ----

TEST(CollectiveModel, SegmentElementsRoundsToTheNearestElement) {
  EXPECT_EQ(segment_elements(65536, 4, 100000), 16384U);
  EXPECT_EQ(segment_elements(0, 4, 10), 10U);   // no segmentation
  EXPECT_EQ(segment_elements(3, 4, 10), 10U);   // smaller than one element: ignored
  EXPECT_EQ(segment_elements(40, 4, 10), 10U);  // the whole buffer fits
  EXPECT_EQ(segment_elements(38, 4, 10), 9U);   // 9.5 elements: a tie rounds down
  EXPECT_EQ(segment_elements(39, 4, 10), 10U);  // 9.75 rounds up
  EXPECT_EQ(segment_elements(11, 3, 100), 4U);  // 3 and 2/3
  EXPECT_EQ(segment_elements(10, 3, 100), 3U);  // 3 and 1/3
}

TEST(CollectiveModel, BlocksSplitEarlyOnesLarger) {
  std::vector<std::uint64_t> blocks;
  for (std::uint64_t i = 0; i < 4; ++i) blocks.push_back(block_elements(10, 4, i));
  EXPECT_EQ(blocks, (std::vector<std::uint64_t>{3, 3, 2, 2}));
}

// ---- algorithms ----

TEST(CollectiveModel, ReduceBinarySevenRanksRootThreeSegmented) {
  // 100000 ints in segments of 65536 B = 16384 elements: 7 segments per child -> parent edge.
  CollectiveSpec s = spec(CollectiveOp::reduce, "binary", 7, 100000);
  s.root = 3;
  s.type_size = 4;
  s.segment_size = 65536;
  expect_traffic(traffic({{'I', 0, 5, 400000, 7},
                          {'I', 1, 4, 400000, 7},
                          {'I', 2, 5, 400000, 7},
                          {'I', 4, 3, 400000, 7},
                          {'I', 5, 3, 400000, 7},
                          {'I', 6, 4, 400000, 7}}),
                 s);
}

TEST(CollectiveModel, PipelineSegmentsStraddleTheBoundary) {
  // Segments of 16 B = 4 ints: 8 ints are 2 segments, 9 and 10 ints 3 (the last one short).
  for (auto [count, segments] : {std::pair<std::uint64_t, std::uint64_t>{8, 2}, {9, 3}, {10, 3}}) {
    CollectiveSpec s = spec(CollectiveOp::bcast, "pipeline", 3, count);
    s.type_size = 4;
    s.segment_size = 16;
    expect_traffic(traffic({{'I', 0, 1, count * 4, segments}, {'I', 1, 2, count * 4, segments}}), s);
  }
}

TEST(CollectiveModel, ReduceChainTwoChains) {
  CollectiveSpec s = spec(CollectiveOp::reduce, "chain", 5, 3);
  s.chain_fanout = 2;
  expect_traffic(traffic({{'I', 1, 0, 3, 1}, {'I', 2, 1, 3, 1}, {'I', 3, 0, 3, 1}, {'I', 4, 3, 3, 1}}), s);
}

TEST(CollectiveModel, ReduceInOrderBinaryForwardsToTheRealRoot) {
  CollectiveSpec s = spec(CollectiveOp::reduce, "in-order_binary", 6, 2);
  s.root = 1;
  // Tree 5->{4,2}, 4->{3}, 2->{1,0}, then 5 sends the result to the root 1, whole.
  expect_traffic(traffic({{'I', 0, 2, 2, 1},
                          {'I', 1, 2, 2, 1},
                          {'I', 2, 5, 2, 1},
                          {'I', 3, 4, 2, 1},
                          {'I', 4, 5, 2, 1},
                          {'I', 5, 1, 2, 1}}),
                 s);
}

TEST(CollectiveModel, SplitBinaryTreeHalvesAndSwaps) {
  // 11 ints: halves of 6 and 5 ints, segments of 2 ints. Root 1: virtual v = rank - 1; odd v
  // (ranks 2, 4) carry the first half, even v (3, 0) the second; then pairs (2,3) and (4,0) swap.
  CollectiveSpec s = spec(CollectiveOp::bcast, "split_binary_tree", 5, 11);
  s.root = 1;
  s.type_size = 4;
  s.segment_size = 8;
  expect_traffic(traffic({{'I', 0, 4, 20, 1},
                          {'I', 1, 2, 24, 3},
                          {'I', 1, 3, 20, 3},
                          {'I', 2, 3, 24, 1},
                          {'I', 2, 4, 24, 3},
                          {'I', 3, 0, 20, 3},
                          {'I', 3, 2, 20, 1},
                          {'I', 4, 0, 24, 1}}),
                 s);
}

TEST(CollectiveModel, SplitBinaryTreeEvenSizeRootFeedsTheLastRank) {
  // 4 ranks, 4 bytes: halves of 2; tree 0->{1,2}, 1->{3}; 3 has no partner: the root sends it
  // the second half; 1 and 2 swap.
  expect_traffic(traffic({{'I', 0, 1, 2, 1},
                          {'I', 0, 2, 2, 1},
                          {'I', 0, 3, 2, 1},
                          {'I', 1, 2, 2, 1},
                          {'I', 1, 3, 2, 1},
                          {'I', 2, 1, 2, 1}}),
                 spec(CollectiveOp::bcast, "split_binary_tree", 4, 4));
}

TEST(CollectiveModel, SplitBinaryTreeOneElementFallsBackToPipeline) {
  expect_traffic(traffic({{'I', 0, 1, 1, 1}, {'I', 1, 2, 1, 1}}), spec(CollectiveOp::bcast, "split_binary_tree", 3, 1));
}

TEST(CollectiveModel, AllreduceRecursiveDoublingSixRanks) {
  // 4 = largest power of two, 2 extra: 0 hands to 1, 2 to 3; new ranks 1,3,4,5 exchange at
  // distance 1 (1-3, 4-5) and 2 (1-4, 3-5); 1 and 3 return the result to 0 and 2.
  expect_traffic(traffic({{'I', 0, 1, 8, 1},
                          {'I', 1, 0, 8, 1},
                          {'I', 1, 3, 8, 1},
                          {'I', 1, 4, 8, 1},
                          {'I', 2, 3, 8, 1},
                          {'I', 3, 1, 8, 1},
                          {'I', 3, 2, 8, 1},
                          {'I', 3, 5, 8, 1},
                          {'I', 4, 1, 8, 1},
                          {'I', 4, 5, 8, 1},
                          {'I', 5, 3, 8, 1},
                          {'I', 5, 4, 8, 1}}),
                 spec(CollectiveOp::allreduce, "recursive_doubling", 6, 8));
}

TEST(CollectiveModel, AllreduceRingBlocks) {
  // 10 bytes in blocks 4, 3, 3. Rank r sends blocks r, r-1 then r+1, r to r+1.
  expect_traffic(traffic({{'I', 0, 1, 4 + 3 + 3 + 4, 4}, {'I', 1, 2, 3 + 4 + 3 + 3, 4}, {'I', 2, 0, 3 + 3 + 4 + 3, 4}}),
                 spec(CollectiveOp::allreduce, "ring", 3, 10));
}

TEST(CollectiveModel, AllreduceRingBelowOneElementPerRankIsRecursiveDoubling) {
  expect_traffic(traffic({{'I', 0, 1, 1, 1}, {'I', 1, 0, 1, 1}}), spec(CollectiveOp::allreduce, "ring", 2, 1));
}

TEST(CollectiveModel, AllreduceSegmentedRingPhases) {
  // Segments of 2 bytes; 10 = 1 x (3 x 2) + 4, and 4 >= 3 and 4 > 3: 2 phases. Blocks 4, 3, 3
  // split in phases as 2+2 and 2+1. Rank 0 sends blocks 0 and 2 in each phase (2+2, then 2+1),
  // then blocks 1 and 0 whole (3, 4).
  CollectiveSpec s = spec(CollectiveOp::allreduce, "segmented_ring", 3, 10);
  s.segment_size = 2;
  const EdgeTraffic t = predict_collective(s);
  EXPECT_EQ(t.at({TrafficClass::internal, 0, 1}), (TrafficLoad{2 + 2 + 2 + 1 + 3 + 4, 6}));
  EXPECT_EQ(t.edges().size(), 3U);
}

TEST(CollectiveModel, AlltoallModifiedBruckPacksBlocksByBit) {
  // 5 ranks: distance 1 carries blocks 1, 3; distance 2 blocks 2, 3; distance 4 block 4.
  const EdgeTraffic t = predict_collective(spec(CollectiveOp::alltoall, "modified_bruck", 5, 1));
  EXPECT_EQ(t.at({TrafficClass::internal, 3, 4}), (TrafficLoad{2, 1}));
  EXPECT_EQ(t.at({TrafficClass::internal, 3, 0}), (TrafficLoad{2, 1}));
  EXPECT_EQ(t.at({TrafficClass::internal, 3, 2}), (TrafficLoad{1, 1}));
  EXPECT_EQ(t.edges().size(), 15U);
}

TEST(CollectiveModel, AlltoallLinearIsRecordedExternalByOpenMpi41) {
  // Persistent requests started through the PML's start are recorded with tag 1.
  CollectiveSpec s = spec(CollectiveOp::alltoall, "linear", 2, 3);
  expect_traffic(traffic({{'E', 0, 1, 3, 1}, {'E', 1, 0, 3, 1}}), s);
  s.ideal_monitoring = true;
  expect_traffic(traffic({{'I', 0, 1, 3, 1}, {'I', 1, 0, 3, 1}}), s);
  s.monitoring_mode = 1;
  expect_traffic(traffic({{'E', 0, 1, 3, 1}, {'E', 1, 0, 3, 1}}), s);
}

TEST(CollectiveModel, ModeOnePutsEverythingInExternal) {
  CollectiveSpec s = spec(CollectiveOp::bcast, "basic_linear", 3, 5);
  s.monitoring_mode = 1;
  expect_traffic(traffic({{'E', 0, 1, 5, 1}, {'E', 0, 2, 5, 1}}), s);
}

TEST(CollectiveModel, AllgatherBruckDistances) {
  // 5 ranks: distance 1 sends 1 block to r-1, distance 2 sends 2 to r-2, distance 4 sends the
  // remaining 1 to r-4 = r+1.
  const EdgeTraffic t = predict_collective(spec(CollectiveOp::allgather, "bruck", 5, 3));
  EXPECT_EQ(t.at({TrafficClass::internal, 0, 4}), (TrafficLoad{3, 1}));
  EXPECT_EQ(t.at({TrafficClass::internal, 0, 3}), (TrafficLoad{6, 1}));
  EXPECT_EQ(t.at({TrafficClass::internal, 0, 1}), (TrafficLoad{3, 1}));
  EXPECT_EQ(t.edges().size(), 15U);
}

TEST(CollectiveModel, AllgatherNeighborExchange) {
  // Even ranks first exchange one block with r+1, then two with r-1; odd ranks the mirror.
  expect_traffic(traffic({{'I', 0, 1, 1, 1},
                          {'I', 0, 3, 2, 1},
                          {'I', 1, 0, 1, 1},
                          {'I', 1, 2, 2, 1},
                          {'I', 2, 1, 2, 1},
                          {'I', 2, 3, 1, 1},
                          {'I', 3, 0, 2, 1},
                          {'I', 3, 2, 1, 1}}),
                 spec(CollectiveOp::allgather, "neighbor", 4, 1));
}

TEST(CollectiveModel, AllgatherRecursiveDoublingNeedsAPowerOfTwo) {
  EXPECT_EQ(predict_collective(spec(CollectiveOp::allgather, "recursive_doubling", 6, 2)),
            predict_collective(spec(CollectiveOp::allgather, "bruck", 6, 2)));
  const EdgeTraffic t = predict_collective(spec(CollectiveOp::allgather, "recursive_doubling", 4, 2));
  EXPECT_EQ(t.at({TrafficClass::internal, 1, 0}), (TrafficLoad{2, 1}));
  EXPECT_EQ(t.at({TrafficClass::internal, 1, 3}), (TrafficLoad{4, 1}));
}

TEST(CollectiveModel, GatherBinomialSendsWholeSubtrees) {
  // Tree 0->{1,2,4}, 2->{3}, 4->{5}: subtrees of 1, 2, 2, 1, 1 ranks, 2 bytes each.
  expect_traffic(
      traffic({{'I', 1, 0, 2, 1}, {'I', 2, 0, 4, 1}, {'I', 3, 2, 2, 1}, {'I', 4, 0, 4, 1}, {'I', 5, 4, 2, 1}}),
      spec(CollectiveOp::gather, "binomial", 6, 2));
}

TEST(CollectiveModel, ScatterBinomialMirrorsGather) {
  CollectiveSpec s = spec(CollectiveOp::scatter, "binomial", 6, 2);
  s.root = 5;  // virtual v = rank + 1 mod 6
  expect_traffic(
      traffic({{'I', 5, 0, 2, 1}, {'I', 5, 1, 4, 1}, {'I', 5, 3, 4, 1}, {'I', 1, 2, 2, 1}, {'I', 3, 4, 2, 1}}), s);
}

TEST(CollectiveModel, GatherLinearSyncTwoSegmentsAndEmptyRelease) {
  CollectiveSpec s = spec(CollectiveOp::gather, "linear_sync", 3, 10);
  s.root = 1;
  s.type_size = 4;
  s.segment_size = 16;
  expect_traffic(traffic({{'I', 0, 1, 40, 2}, {'I', 1, 0, 0, 1}, {'I', 1, 2, 0, 1}, {'I', 2, 1, 40, 2}}), s);
  s.segment_size = 0;  // the second message is then empty: still a message
  expect_traffic(traffic({{'I', 0, 1, 40, 2}, {'I', 1, 0, 0, 1}, {'I', 1, 2, 0, 1}, {'I', 2, 1, 40, 2}}), s);
}

TEST(CollectiveModel, BarrierRecursiveDoublingFiveRanks) {
  // 4 exchanges with 0 first; 0..3 exchange at distances 1 and 2; 0 releases 4.
  expect_traffic(traffic({{'I', 0, 1, 0, 1},
                          {'I', 0, 2, 0, 1},
                          {'I', 0, 4, 0, 1},
                          {'I', 1, 0, 0, 1},
                          {'I', 1, 3, 0, 1},
                          {'I', 2, 0, 0, 1},
                          {'I', 2, 3, 0, 1},
                          {'I', 3, 1, 0, 1},
                          {'I', 3, 2, 0, 1},
                          {'I', 4, 0, 0, 1}}),
                 spec(CollectiveOp::barrier, "recursive_doubling", 5, 0));
}

TEST(CollectiveModel, BarrierTreeFansInAndOut) {
  expect_traffic(traffic({{'I', 0, 1, 0, 1},
                          {'I', 0, 2, 0, 1},
                          {'I', 0, 4, 0, 1},
                          {'I', 1, 0, 0, 1},
                          {'I', 2, 0, 0, 1},
                          {'I', 2, 3, 0, 1},
                          {'I', 3, 2, 0, 1},
                          {'I', 4, 0, 0, 1},
                          {'I', 4, 5, 0, 1},
                          {'I', 5, 4, 0, 1}}),
                 spec(CollectiveOp::barrier, "tree", 6, 0));
}

TEST(CollectiveModel, BarrierDoubleRingTwoTokensEach) {
  expect_traffic(traffic({{'I', 0, 1, 0, 2}, {'I', 1, 2, 0, 2}, {'I', 2, 0, 0, 2}}),
                 spec(CollectiveOp::barrier, "double_ring", 3, 0));
}

TEST(CollectiveModel, AllreduceNonoverlappingUsesTheFixedDecisions) {
  // 1000 ints on 4 ranks = 4000 B: the fixed decisions pick reduce binary (< 4096 B) and bcast
  // binomial (2048..8192 B), both rooted at 0: trees 0->{1,2}, 1->{3}.
  CollectiveSpec s = spec(CollectiveOp::allreduce, "nonoverlapping", 4, 1000);
  s.type_size = 4;
  s.segment_size = 1024;  // applies to allreduce, not to the reduce and bcast it calls
  expect_traffic(traffic({{'I', 0, 1, 4000, 1},
                          {'I', 0, 2, 4000, 1},
                          {'I', 1, 0, 4000, 1},
                          {'I', 1, 3, 4000, 1},
                          {'I', 2, 0, 4000, 1},
                          {'I', 3, 1, 4000, 1}}),
                 s);
}

TEST(CollectiveModel, NothingMovesOnOneProcessOrZeroCount) {
  EXPECT_TRUE(predict_collective(spec(CollectiveOp::bcast, "binomial", 1, 10)).edges().empty());
  EXPECT_TRUE(predict_collective(spec(CollectiveOp::alltoall, "pairwise", 4, 0)).edges().empty());
  EXPECT_FALSE(predict_collective(spec(CollectiveOp::barrier, "linear", 2, 0)).edges().empty());
}

TEST(CollectiveModel, OutputSortedByClassThenRanksNumerically) {
  EdgeTraffic t = traffic({{'I', 10, 0, 1, 1}, {'I', 9, 0, 1, 1}, {'E', 2, 1, 5, 1}, {'I', 9, 10, 1, 1}});
  EXPECT_EQ(format_traffic(t), "E\t2\t1\t5\t1\nI\t9\t0\t1\t1\nI\t9\t10\t1\t1\nI\t10\t0\t1\t1\n");
}

TEST(CollectiveModel, NamesAndNumbersOfOpenMpi) {
  EXPECT_EQ(parse_algorithm(CollectiveOp::reduce, "in-order_binary"), 6);
  EXPECT_EQ(parse_algorithm(CollectiveOp::reduce, "5"), 5);
  EXPECT_EQ(algorithm_name(CollectiveOp::bcast, 4), "split_binary_tree");
  EXPECT_EQ(parse_op("allgather"), CollectiveOp::allgather);
  EXPECT_THROW(parse_algorithm(CollectiveOp::bcast, "binary"), Error);
  EXPECT_THROW(parse_algorithm(CollectiveOp::bcast, "0"), Error);
  EXPECT_THROW(parse_op("scan"), Error);
}

TEST(CollectiveModel, RejectsWhatOpenMpiRejectsOrTheModelLacks) {
  EXPECT_THROW(predict_collective(spec(CollectiveOp::alltoall, "two_proc", 3)), Error);
  EXPECT_NO_THROW(predict_collective(spec(CollectiveOp::alltoall, "two_proc", 2)));
  CollectiveSpec s = spec(CollectiveOp::gather, "binomial", 4);
  s.root = 4;
  EXPECT_THROW(predict_collective(s), Error);
  // sparbit exists from Open MPI 5.0 on.
  CollectiveSpec sparbit = spec(CollectiveOp::allgather, "sparbit", 4);
  EXPECT_THROW(predict_collective(sparbit), Error);
  sparbit.ompi_series = OmpiSeries::v5_0;
  EXPECT_NO_THROW(predict_collective(sparbit));
  EXPECT_FALSE(algorithm_available(CollectiveOp::allgather, 7, OmpiSeries::v4_1));
  EXPECT_TRUE(algorithm_available(CollectiveOp::allgather, 6, OmpiSeries::v5_0));
}

TEST(CollectiveModel, OpenMpiSeries) {
  EXPECT_EQ(parse_series("4.1"), OmpiSeries::v4_1);
  EXPECT_EQ(parse_series("5.0.7"), OmpiSeries::v5_0);
  EXPECT_EQ(series_name(OmpiSeries::v5_0), "5.0");
  EXPECT_THROW(parse_series("5.07"), Error);
  EXPECT_THROW(parse_series("6.0"), Error);
  EXPECT_THROW(parse_series(""), Error);
}

// ---- Rabenseifner, scatter-allgather, sparbit: small cases worked by hand from Open MPI's
// coll_base_allreduce.c, coll_base_reduce.c, coll_base_bcast.c (4.1.4), coll_base_allgather.c
// (5.0.7). ----

TEST(CollectiveModel, AllreduceRabenseifnerThreeRanks) {
  // P' = 2, one extra pair (0, 1): 0 sends its upper 3 to 1, 1 sends its lower 2 then the
  // reduced upper 3 to 0; new ranks 0 (real 0) and 1 (real 2) halve: 0 sends 3 and keeps 2, 2
  // sends 2 and keeps 3; then each sends what it kept; finally 0 sends the 5 to 1.
  expect_traffic(traffic({{'I', 0, 1, 8, 2}, {'I', 0, 2, 5, 2}, {'I', 1, 0, 5, 2}, {'I', 2, 0, 5, 2}}),
                 spec(CollectiveOp::allreduce, "rabenseifner", 3, 5));
}

TEST(CollectiveModel, AllreduceRabenseifnerFallsBackBelowPowerOfTwoCount) {
  // P = 5, P' = 4 > count 3: basic_linear (linear reduce to 0, linear bcast from 0).
  expect_traffic(traffic({{'I', 0, 1, 3, 1},
                          {'I', 0, 2, 3, 1},
                          {'I', 0, 3, 3, 1},
                          {'I', 0, 4, 3, 1},
                          {'I', 1, 0, 3, 1},
                          {'I', 2, 0, 3, 1},
                          {'I', 3, 0, 3, 1},
                          {'I', 4, 0, 3, 1}}),
                 spec(CollectiveOp::allreduce, "rabenseifner", 5, 3));
}

TEST(CollectiveModel, ReduceRabenseifnerFourRanksRootThree) {
  // Halving of 8: distance 1 swaps 4 each way, distance 2 swaps 2 (0<->2, 1<->3). Gather to
  // new rank 3: at distance 2, 0 sends its 2 to 2 and 1 its 2 to 3; at distance 1, 2 sends the
  // 4 it holds to 3.
  CollectiveSpec s = spec(CollectiveOp::reduce, "rabenseifner", 4, 8);
  s.root = 3;
  expect_traffic(traffic({{'I', 0, 1, 4, 1},
                          {'I', 0, 2, 4, 2},
                          {'I', 1, 0, 4, 1},
                          {'I', 1, 3, 4, 2},
                          {'I', 2, 0, 2, 1},
                          {'I', 2, 3, 8, 2},
                          {'I', 3, 1, 2, 1},
                          {'I', 3, 2, 4, 1}}),
                 s);
}

TEST(CollectiveModel, ReduceRabenseifnerRootThatSitsOut) {
  // P = 3, root 1 sits out after the pairing: new rank 0 (real 0) hands it its kept 2 elements,
  // and new rank 1 (real 2) sends its 3 to the root in new rank 0's place.
  CollectiveSpec s = spec(CollectiveOp::reduce, "rabenseifner", 3, 5);
  s.root = 1;
  expect_traffic(
      traffic({{'I', 0, 1, 5, 2}, {'I', 0, 2, 3, 1}, {'I', 1, 0, 5, 2}, {'I', 2, 0, 2, 1}, {'I', 2, 1, 3, 1}}), s);
  s.count = 1;  // below P' = 2: linear
  expect_traffic(traffic({{'I', 0, 1, 1, 1}, {'I', 2, 1, 1, 1}}), s);
}

TEST(CollectiveModel, BcastScatterAllgatherThreeRanks) {
  // Blocks of ceil(5/3) = 2: the root scatters 1 element to 2 and 2 to 1; recursive doubling
  // swaps 2 and 2 (0<->1) then 4 and 1 (0<->2); 1, whose partner 3 does not exist, gets the
  // last element from 0.
  expect_traffic(traffic({{'I', 0, 1, 5, 3}, {'I', 0, 2, 5, 2}, {'I', 1, 0, 2, 1}, {'I', 2, 0, 1, 1}}),
                 spec(CollectiveOp::bcast, "scatter_allgather", 3, 5));
}

TEST(CollectiveModel, BcastScatterAllgatherRingWithAnEmptyBlock) {
  // P = 4, 5 elements: blocks 2, 2, 1, 0. Scatter 0->2 (1), 0->1 (2); then three ring steps in
  // which v sends blocks v, v-1, v-2, the empty block as an empty message.
  expect_traffic(
      traffic({{'I', 0, 1, 5, 4}, {'I', 0, 2, 1, 1}, {'I', 1, 2, 4, 3}, {'I', 2, 3, 5, 3}, {'I', 3, 0, 3, 3}}),
      spec(CollectiveOp::bcast, "scatter_allgather_ring", 4, 5));
  // Below P elements: basic_linear.
  expect_traffic(traffic({{'I', 0, 1, 3, 1}, {'I', 0, 2, 3, 1}, {'I', 0, 3, 3, 1}}),
                 spec(CollectiveOp::bcast, "scatter_allgather_ring", 4, 3));
}

TEST(CollectiveModel, AllgatherSparbitSixRanks) {
  // 6 = 110b: distances 4, 2, 1; the distance 2 step forwards one block less (1 instead of 2),
  // so 1 + 1 + 3 = 5 blocks reach each rank.
  CollectiveSpec s = spec(CollectiveOp::allgather, "sparbit", 6, 2);
  s.ompi_series = OmpiSeries::v5_0;
  EdgeTraffic expected;
  for (std::uint32_t r = 0; r < 6; ++r) {
    expected.add(TrafficClass::internal, r, (r + 4) % 6, 2, 1);
    expected.add(TrafficClass::internal, r, (r + 2) % 6, 2, 1);
    expected.add(TrafficClass::internal, r, (r + 1) % 6, 2, 3);
  }
  expect_traffic(expected, s);
}

TEST(CollectiveModel, ApiLevelViewSeesOnlyTheArguments) {
  CollectiveSpec s = spec(CollectiveOp::reduce, "binary", 3, 5);
  s.root = 1;
  EdgeTraffic expected;  // every rank hands its 5 bytes to the root; the binary tree is invisible
  expected.add(TrafficClass::coll, 0, 1, 5);
  expected.add(TrafficClass::coll, 2, 1, 5);
  EXPECT_EQ(api_level_traffic(s), expected);
  EXPECT_EQ(api_level_traffic(spec(CollectiveOp::barrier, "tree", 3, 0)).total(), (TrafficLoad{0, 6}));
  EXPECT_EQ(api_level_traffic(spec(CollectiveOp::alltoall, "pairwise", 4, 2)).total(), (TrafficLoad{24, 12}));
}

TEST(CollectiveModel, SubtractAndCompare) {
  EdgeTraffic run = traffic({{'I', 0, 1, 10, 2}, {'E', 1, 0, 3, 1}});
  EdgeTraffic base = traffic({{'E', 1, 0, 3, 1}});
  EXPECT_EQ(subtract(run, base), traffic({{'I', 0, 1, 10, 2}}));
  EXPECT_THROW(subtract(base, run), Error);
  auto diff = compare_traffic(traffic({{'I', 0, 1, 10, 2}}), traffic({{'I', 0, 1, 10, 3}, {'I', 1, 0, 1, 1}}));
  ASSERT_EQ(diff.size(), 2U);
  EXPECT_EQ(diff[0].predicted, (TrafficLoad{10, 2}));
  EXPECT_EQ(diff[0].recorded, (TrafficLoad{10, 3}));
  EXPECT_EQ(diff[1].predicted, (TrafficLoad{}));
}

}  // namespace
}  // namespace mpimon
