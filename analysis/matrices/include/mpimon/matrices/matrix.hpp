#pragma once
// Compressed-sparse-row matrix of uint64, the in-memory form of one traffic matrix.

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace mpimon {

/// Wide enough for sums of many uint64 counters (a GCC/Clang extension, hence __extension__).
__extension__ typedef unsigned __int128 uint128;
/// Decimal text of a 128-bit total (sums of uint64 counters may exceed 64 bits).
std::string to_decimal(uint128 value);

struct SparseMatrix {
  std::uint32_t rows = 0;
  std::uint32_t columns = 0;
  std::vector<std::uint64_t> indptr;   ///< rows + 1 offsets into indices/values
  std::vector<std::uint32_t> indices;  ///< column of each stored entry, increasing within a row
  std::vector<std::uint64_t> values;

  /// An all-zero rows x columns matrix.
  static SparseMatrix zeros(std::uint32_t rows, std::uint32_t columns);
  /// Builds from a dense row-major array, keeping non-zero entries.
  static SparseMatrix from_dense(std::uint32_t rows, std::uint32_t columns, std::span<const std::uint64_t> dense);
  /// Builds from (row, column) -> value entries inside the shape, keeping non-zero ones.
  static SparseMatrix from_pairs(std::uint32_t rows, std::uint32_t columns,
                                 const std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t>& pairs);

  [[nodiscard]] std::uint64_t at(std::uint32_t row, std::uint32_t column) const;
  [[nodiscard]] std::size_t stored() const { return values.size(); }
  [[nodiscard]] std::vector<std::uint64_t> to_dense() const;
  /// The transpose, also in CSR form.
  [[nodiscard]] SparseMatrix transposed() const;
};

/// Calls fn(row, column, value) for every stored entry, row by row: O(non-zeros + rows), the way
/// to walk a matrix of 10^5 processes without anything N x N.
template <typename Fn>
void for_each_nonzero(const SparseMatrix& m, Fn&& fn) {
  for (std::uint32_t i = 0; i < m.rows; ++i) {
    for (auto k = m.indptr[i]; k < m.indptr[i + 1]; ++k) fn(i, m.indices[k], m.values[k]);
  }
}

/// Element-wise sum of two matrices of the same shape; throws on uint64 overflow.
SparseMatrix add(const SparseMatrix& a, const SparseMatrix& b);

}  // namespace mpimon
