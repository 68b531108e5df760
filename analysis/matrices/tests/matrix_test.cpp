#include <gtest/gtest.h>

#include "mpimon/matrices/matrix.hpp"
#include "test_util.hpp"

namespace mpimon {
namespace {

TEST(SparseMatrix, DenseRoundTripAndLookup) {
  std::vector<std::uint64_t> dense = {0, 5, 0, 7, 0, 1, 0, 0, 9};
  SparseMatrix m = SparseMatrix::from_dense(3, 3, dense);
  EXPECT_EQ(m.stored(), 4u);
  EXPECT_EQ(m.at(0, 1), 5u);
  EXPECT_EQ(m.at(1, 0), 7u);
  EXPECT_EQ(m.at(2, 1), 0u);
  EXPECT_EQ(m.to_dense(), dense);
}

TEST(SparseMatrix, FromPairs) {
  const SparseMatrix m = SparseMatrix::from_pairs(3, 4, {{{2, 3}, 7}, {{0, 1}, 5}, {{0, 0}, 0}, {{0, 2}, 6}});
  EXPECT_EQ(m.indptr, (std::vector<std::uint64_t>{0, 2, 2, 3}));
  EXPECT_EQ(m.indices, (std::vector<std::uint32_t>{1, 2, 3}));
  EXPECT_EQ(m.values, (std::vector<std::uint64_t>{5, 6, 7}));
  EXPECT_EQ(m.columns, 4u);
}

TEST(SparseMatrix, Transpose) {
  SparseMatrix m = SparseMatrix::from_dense(2, 3, std::vector<std::uint64_t>{1, 0, 2, 0, 3, 0});
  EXPECT_EQ(m.transposed().to_dense(), (std::vector<std::uint64_t>{1, 0, 0, 3, 2, 0}));
}

TEST(SparseMatrix, AddAndOverflow) {
  SparseMatrix a = SparseMatrix::from_dense(2, 2, std::vector<std::uint64_t>{1, 0, 0, 2});
  SparseMatrix b = SparseMatrix::from_dense(2, 2, std::vector<std::uint64_t>{0, 4, 0, 3});
  EXPECT_EQ(add(a, b).to_dense(), (std::vector<std::uint64_t>{1, 4, 0, 5}));
  SparseMatrix big = SparseMatrix::from_dense(2, 2, std::vector<std::uint64_t>{0, 0, 0, ~0ull});
  EXPECT_EQ(test::error_of([&] { add(a, big); }), "sum of entries (1, 1) exceeds 2^64-1");
}

}  // namespace
}  // namespace mpimon
