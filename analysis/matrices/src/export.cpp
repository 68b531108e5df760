#include "mpimon/matrices/export.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>

#include "mpimon/base/error.hpp"

namespace mpimon {

SparseMatrix sum_classes(const MatrixFile& file, const std::string& dump, const std::vector<TrafficClass>& classes,
                         Metric metric) {
  const std::uint32_t n = file.info(dump).nprocs;
  SparseMatrix total = SparseMatrix::zeros(n, n);
  for (TrafficClass c : classes) total = add(total, file.matrix(dump, c, metric));
  return total;
}

SparseMatrix communication_graph(const MatrixFile& file, const std::string& dump,
                                 const std::vector<TrafficClass>& classes, Metric metric) {
  const SparseMatrix directed = sum_classes(file, dump, classes, metric);
  const SparseMatrix folded = add(directed, directed.transposed());
  SparseMatrix graph = SparseMatrix::zeros(folded.rows, folded.columns);
  graph.indices.reserve(folded.stored());
  graph.values.reserve(folded.stored());
  for (std::uint32_t i = 0; i < folded.rows; ++i) {
    for (auto k = folded.indptr[i]; k < folded.indptr[i + 1]; ++k) {
      // Self-traffic does not depend on placement, and neither graph format allows loops.
      if (folded.indices[k] == i || folded.values[k] == 0) continue;
      graph.indices.push_back(folded.indices[k]);
      graph.values.push_back(folded.values[k]);
    }
    graph.indptr[i + 1] = graph.values.size();
  }
  return graph;
}

namespace {

std::string human_bytes(double bytes) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB", "PB"};
  std::size_t u = 0;
  while (bytes >= 1000 && u + 1 < std::size(units)) {
    bytes /= 1000;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", bytes, units[u]);
  return buf;
}

}  // namespace

void check_dense_export_size(std::uint32_t n, const std::string& what) {
  if (n <= kDenseExportLimit) return;
  const double entries = static_cast<double>(n) * n;
  char count[32];
  std::snprintf(count, sizeof count, "%.3g", entries);
  raise_error(Error::Kind::usage, "",
              what + " is a dense format: " + std::to_string(n) + " x " + std::to_string(n) + " = " + count +
                  " entries, at least " + human_bytes(2 * entries) +
                  " of text even where no traffic flows (the limit is " + std::to_string(kDenseExportLimit) +
                  " processes); use 'mpimon export scotch' or 'mpimon export metis' (a sparse graph, "
                  "as large as the traffic), or --force to write it anyway");
}

double int32_tools_factor(uint128 arc_total) {
  constexpr double kMaxTotal = static_cast<double>(std::uint64_t{1} << 29);  // a margin for Scotch's own sums
  return static_cast<double>(arc_total) <= kMaxTotal ? 1.0 : kMaxTotal / static_cast<double>(arc_total);
}

std::uint64_t int32_tools_weight(std::uint64_t value, double factor) {
  if (factor == 1.0) return value;
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(static_cast<double>(value) * factor)));
}

GraphWeights graph_weights_for_int32_tools(const SparseMatrix& graph) {
  uint128 total = 0;
  for (auto v : graph.values) total += v;
  GraphWeights w;
  w.values = graph.values;
  w.factor = int32_tools_factor(total);
  for (auto& v : w.values) v = int32_tools_weight(v, w.factor);
  return w;
}

void write_scotch_graph(const SparseMatrix& graph, const GraphWeights& weights, std::ostream& out) {
  out << "0\n" << graph.rows << ' ' << graph.stored() << "\n0 010\n";
  std::string line;
  for (std::uint32_t i = 0; i < graph.rows; ++i) {
    line = std::to_string(graph.indptr[i + 1] - graph.indptr[i]);
    for (auto k = graph.indptr[i]; k < graph.indptr[i + 1]; ++k) {
      line += '\t';
      line += std::to_string(weights.values[k]);
      line += ' ';
      line += std::to_string(graph.indices[k]);
    }
    line += '\n';
    out << line;
  }
}

void write_metis_graph(const SparseMatrix& graph, const GraphWeights& weights, std::ostream& out) {
  if (weights.factor != 1.0) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%% weights scaled by %.17g (rounded up) to fit 32-bit integers\n", weights.factor);
    out << buf;
  }
  out << graph.rows << ' ' << graph.stored() / 2 << " 001\n";
  std::string line;
  for (std::uint32_t i = 0; i < graph.rows; ++i) {
    line.clear();
    for (auto k = graph.indptr[i]; k < graph.indptr[i + 1]; ++k) {
      if (!line.empty()) line += ' ';
      line += std::to_string(graph.indices[k] + std::uint64_t{1});
      line += ' ';
      line += std::to_string(weights.values[k]);
    }
    line += '\n';
    out << line;
  }
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
        raise_error(Error::Kind::input, "",
                    "entry (" + std::to_string(i) + ", " + std::to_string(j) +
                        ") reaches 2^53, which TreeMatch cannot read exactly; use --metric count");
      }
      if (j > 0) line += ' ';
      line += std::to_string(v);
    }
    line += '\n';
    out << line;
  }
}

void write_pairs_csv(const SparseMatrix& bytes, const SparseMatrix& messages, std::ostream& out) {
  if (bytes.rows != messages.rows || bytes.columns != messages.columns)
    raise_error(Error::Kind::input, "", "the bytes and messages matrices differ in shape");
  out << "from,to,bytes,messages\n";
  std::string line;
  for (std::uint32_t i = 0; i < bytes.rows; ++i) {
    auto b = bytes.indptr[i], m = messages.indptr[i];
    const auto b_end = bytes.indptr[i + 1], m_end = messages.indptr[i + 1];
    while (b < b_end || m < m_end) {  // both rows' columns, in order
      const std::uint32_t j =
          std::min(b < b_end ? bytes.indices[b] : UINT32_MAX, m < m_end ? messages.indices[m] : UINT32_MAX);
      const std::uint64_t sent = b < b_end && bytes.indices[b] == j ? bytes.values[b++] : 0;
      const std::uint64_t count = m < m_end && messages.indices[m] == j ? messages.values[m++] : 0;
      line =
          std::to_string(i) + ',' + std::to_string(j) + ',' + std::to_string(sent) + ',' + std::to_string(count) + '\n';
      out << line;
    }
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
