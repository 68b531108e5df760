#include "mpimon/matrices/matrix.hpp"

#include <algorithm>
#include <string>

#include "mpimon/base/error.hpp"

namespace mpimon {

std::string to_decimal(uint128 value) {
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(value % 10)));
    value /= 10;
  } while (value != 0);
  return digits;
}

SparseMatrix SparseMatrix::zeros(std::uint32_t rows, std::uint32_t columns) {
  SparseMatrix m;
  m.rows = rows;
  m.columns = columns;
  m.indptr.assign(std::size_t{rows} + 1, 0);
  return m;
}

SparseMatrix SparseMatrix::from_pairs(std::uint32_t rows, std::uint32_t columns,
                                      const std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t>& pairs) {
  SparseMatrix m = zeros(rows, columns);
  for (const auto& [at, value] : pairs) {
    if (value == 0) continue;
    ++m.indptr[at.first + 1];
    m.indices.push_back(at.second);
    m.values.push_back(value);
  }
  for (std::uint32_t r = 0; r < rows; ++r) m.indptr[r + 1] += m.indptr[r];
  return m;
}

SparseMatrix SparseMatrix::from_dense(std::uint32_t rows, std::uint32_t columns, std::span<const std::uint64_t> dense) {
  SparseMatrix m = zeros(rows, columns);
  for (std::uint32_t i = 0; i < rows; ++i) {
    for (std::uint32_t j = 0; j < columns; ++j) {
      std::uint64_t v = dense[std::size_t{i} * columns + j];
      if (v == 0) continue;
      m.indices.push_back(j);
      m.values.push_back(v);
    }
    m.indptr[i + 1] = m.values.size();
  }
  return m;
}

std::uint64_t SparseMatrix::at(std::uint32_t row, std::uint32_t column) const {
  auto first = indices.begin() + static_cast<std::ptrdiff_t>(indptr[row]);
  auto last = indices.begin() + static_cast<std::ptrdiff_t>(indptr[row + 1]);
  auto it = std::lower_bound(first, last, column);
  return it != last && *it == column ? values[static_cast<std::size_t>(it - indices.begin())] : 0;
}

std::vector<std::uint64_t> SparseMatrix::to_dense() const {
  std::vector<std::uint64_t> dense(std::size_t{rows} * columns, 0);
  for (std::uint32_t i = 0; i < rows; ++i) {
    for (auto k = indptr[i]; k < indptr[i + 1]; ++k) dense[std::size_t{i} * columns + indices[k]] = values[k];
  }
  return dense;
}

SparseMatrix SparseMatrix::transposed() const {
  SparseMatrix t = zeros(columns, rows);
  for (auto j : indices) ++t.indptr[j + 1];
  for (std::uint32_t j = 0; j < columns; ++j) t.indptr[j + 1] += t.indptr[j];
  t.indices.resize(values.size());
  t.values.resize(values.size());
  std::vector<std::uint64_t> next(t.indptr.begin(), t.indptr.end() - 1);
  for (std::uint32_t i = 0; i < rows; ++i) {
    for (auto k = indptr[i]; k < indptr[i + 1]; ++k) {
      auto pos = next[indices[k]]++;
      t.indices[pos] = i;
      t.values[pos] = values[k];
    }
  }
  return t;
}

SparseMatrix add(const SparseMatrix& a, const SparseMatrix& b) {
  if (a.rows != b.rows || a.columns != b.columns) {
    raise_error(Error::Kind::input, "", "cannot add matrices of different shapes");
  }
  SparseMatrix sum = SparseMatrix::zeros(a.rows, a.columns);
  for (std::uint32_t i = 0; i < a.rows; ++i) {
    auto ka = a.indptr[i], ea = a.indptr[i + 1], kb = b.indptr[i], eb = b.indptr[i + 1];
    while (ka < ea || kb < eb) {
      std::uint32_t col;
      std::uint64_t v = 0;
      if (kb == eb || (ka < ea && a.indices[ka] < b.indices[kb])) {
        col = a.indices[ka];
        v = a.values[ka++];
      } else if (ka == ea || b.indices[kb] < a.indices[ka]) {
        col = b.indices[kb];
        v = b.values[kb++];
      } else {
        col = a.indices[ka];
        if (__builtin_add_overflow(a.values[ka], b.values[kb], &v)) {
          raise_error(Error::Kind::input, "",
                      "sum of entries (" + std::to_string(i) + ", " + std::to_string(col) + ") exceeds 2^64-1");
        }
        ++ka;
        ++kb;
      }
      sum.indices.push_back(col);
      sum.values.push_back(v);
    }
    sum.indptr[i + 1] = sum.values.size();
  }
  return sum;
}

}  // namespace mpimon
