#include "mpimon/export.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>

#include "mpimon/error.hpp"

namespace mpimon {

SparseMatrix sum_classes(const MatrixFile& file, const std::string& dump, const std::vector<TrafficClass>& classes,
                         Metric metric) {
  const std::uint32_t n = file.info(dump).nprocs;
  SparseMatrix total = SparseMatrix::zeros(n, n);
  for (TrafficClass c : classes) total = add(total, file.matrix(dump, c, metric));
  return total;
}

void write_treematch(const SparseMatrix& directed, std::ostream& out) {
  constexpr std::uint64_t kExactInDouble = std::uint64_t{1} << 53;
  const SparseMatrix folded = add(directed, directed.transposed());
  std::string line;
  for (std::uint32_t i = 0; i < folded.rows; ++i) {
    line.clear();
    auto k = folded.indptr[i];
    for (std::uint32_t j = 0; j < folded.columns; ++j) {
      std::uint64_t v = 0;
      if (k < folded.indptr[i + 1] && folded.indices[k] == j) v = folded.values[k++];
      if (i == j) v = 0;  // TreeMatch's grouping cost ignores the diagonal
      if (v >= kExactInDouble) {
        raise_error(Error::Kind::input, "", "entry (" + std::to_string(i) + ", " + std::to_string(j) +
                                                ") reaches 2^53, which TreeMatch cannot read exactly; use --metric count");
      }
      if (j > 0) line += ' ';
      line += std::to_string(v);
    }
    line += '\n';
    out << line;
  }
}

namespace {

// One pass of profile2mat: the classes it matches and the suffix of its files.
struct Profile2matPass {
  std::vector<TrafficClass> classes;
  const char* suffix;
};

// Perl's s/from/to/: replaces the first occurrence only.
std::string replace_first(std::string s, std::string_view from, std::string_view to) {
  if (auto pos = s.find(from); pos != std::string::npos) s.replace(pos, from.size(), to);
  return s;
}

// profile2mat adds v at (p1, p2) and at (p2, p1) for every line, then halves every cell.
// Perl keeps these sums exact below 2^53 and prints them with "%.0f" (round half to even).
struct FoldedPass {
  std::uint32_t dim = 0;  // highest rank on any matching line, plus one; 0 when no line matched
  std::vector<double> size, msg;
};

FoldedPass fold_pass(const MatrixFile& file, const std::string& dump, const Profile2matPass& pass) {
  FoldedPass f;
  const SparseMatrix bytes = sum_classes(file, dump, pass.classes, Metric::bytes);
  const SparseMatrix count = sum_classes(file, dump, pass.classes, Metric::count);
  for (const SparseMatrix* m : {&bytes, &count}) {
    for (std::uint32_t i = 0; i < m->rows; ++i) {
      for (auto k = m->indptr[i]; k < m->indptr[i + 1]; ++k) f.dim = std::max({f.dim, i + 1, m->indices[k] + 1});
    }
  }
  const std::size_t d = f.dim;
  f.size.assign(d * d, 0.0);
  f.msg.assign(d * d, 0.0);
  auto scatter = [&](const SparseMatrix& m, std::vector<double>& out) {
    std::vector<uint128> sums(d * d, 0);
    for (std::uint32_t i = 0; i < m.rows && i < d; ++i) {
      for (auto k = m.indptr[i]; k < m.indptr[i + 1]; ++k) {
        sums[i * d + m.indices[k]] += m.values[k];
        sums[m.indices[k] * d + i] += m.values[k];
      }
    }
    for (std::size_t c = 0; c < d * d; ++c) out[c] = static_cast<double>(sums[c]) / 2.0;
  };
  scatter(bytes, f.size);
  scatter(count, f.msg);
  return f;
}

void save_matrix(const std::string& path, std::uint32_t dim, const std::vector<double>& cells) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) raise_error(Error::Kind::system, path, "cannot write");
  char buf[64];
  std::string line;
  for (std::uint32_t i = 0; i < dim; ++i) {
    line.clear();
    for (std::uint32_t j = 0; j < dim; ++j) {
      int len = std::snprintf(buf, sizeof buf, "%.0f ", cells[std::size_t{i} * dim + j]);
      line.append(buf, static_cast<std::size_t>(len));
    }
    line += '\n';
    out << line;
  }
  if (!out.flush()) raise_error(Error::Kind::system, path, "write error");
}

}  // namespace

std::vector<std::string> write_profile2mat(const MatrixFile& file, const std::string& dump, const std::string& dir) {
  using TC = TrafficClass;
  const Profile2matPass all{{TC::internal, TC::external, TC::osc_sent, TC::osc_recv, TC::coll}, "all"};
  const Profile2matPass detail[] = {{{TC::external}, "external"},
                                    {{TC::internal}, "internal"},
                                    {{TC::osc_sent, TC::osc_recv}, "osc"},
                                    {{TC::coll}, "coll"}};
  std::vector<std::string> written;
  // Everything is written under temporary names first and renamed at the end, so a failure
  // part way leaves no partial set of files.
  std::vector<std::string> temporaries;
  auto run = [&](const Profile2matPass& pass) {
    FoldedPass f = fold_pass(file, dump, pass);
    if (f.dim == 0) return false;
    // profile2mat names its files after the input: DUMP.prof -> DUMP_size_SUFFIX.mat, then
    // replaces the first "_size" by "_msg", then the first "_msg" by "_avg".
    std::string size_name = dump + "_size_" + pass.suffix + ".mat";
    std::string msg_name = replace_first(size_name, "_size", "_msg");
    std::string avg_name = replace_first(msg_name, "_msg", "_avg");
    std::vector<double> avg(f.size.size(), 0.0);
    for (std::size_t c = 0; c < avg.size(); ++c) avg[c] = f.msg[c] != 0.0 ? f.size[c] / f.msg[c] : 0.0;
    for (auto [name, cells] : {std::pair{&size_name, &f.size}, {&msg_name, &f.msg}, {&avg_name, &avg}}) {
      std::string path = (std::filesystem::path(dir) / *name).string();
      check_output_path(path);
      temporaries.push_back(path + ".tmp");
      written.push_back(path);
      save_matrix(temporaries.back(), f.dim, *cells);
    }
    return true;
  };
  try {
    run(all);
    if (run(detail[0])) {  // like profile2mat, the per-class passes run only when an E line exists
      for (std::size_t i = 1; i < std::size(detail); ++i) run(detail[i]);
    }
    for (std::size_t i = 0; i < written.size(); ++i) std::filesystem::rename(temporaries[i], written[i]);
  } catch (...) {
    std::error_code ignored;
    for (const auto& t : temporaries) std::filesystem::remove(t, ignored);
    throw;
  }
  return written;
}

}  // namespace mpimon
