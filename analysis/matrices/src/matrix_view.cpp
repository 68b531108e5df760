#include "mpimon/matrices/matrix_view.hpp"

#include <algorithm>
#include <tuple>

#include "mpimon/json.hpp"
#include "mpimon/matrices/export.hpp"

namespace mpimon {

std::uint32_t heatmap_block_size(std::uint32_t nprocs, std::uint32_t max_side) {
  if (max_side == 0 || nprocs <= max_side) return 1;
  return (nprocs + max_side - 1) / max_side;
}

SparseMatrix block_reduce(const SparseMatrix& m, std::uint32_t block) {
  if (block <= 1) return m;
  const std::uint32_t rows = (m.rows + block - 1) / block;
  const std::uint32_t columns = (m.columns + block - 1) / block;
  SparseMatrix out;
  out.rows = rows;
  out.columns = columns;
  out.indptr.assign(1, 0);
  // One block row at a time: the accumulator is one row of the result, not of the input.
  std::vector<std::uint64_t> accumulator(columns, 0);
  std::vector<std::uint32_t> touched;
  for (std::uint32_t block_row = 0; block_row < rows; ++block_row) {
    const auto end = static_cast<std::uint32_t>(std::min<std::uint64_t>(m.rows, std::uint64_t{block_row + 1} * block));
    for (std::uint32_t i = block_row * block; i < end; ++i) {
      for (auto k = m.indptr[i]; k < m.indptr[i + 1]; ++k) {
        const std::uint32_t column = m.indices[k] / block;
        if (accumulator[column] == 0) touched.push_back(column);
        accumulator[column] += m.values[k];
      }
    }
    std::sort(touched.begin(), touched.end());
    for (std::uint32_t column : touched) {
      out.indices.push_back(column);
      out.values.push_back(accumulator[column]);
      accumulator[column] = 0;
    }
    touched.clear();
    out.indptr.push_back(out.values.size());
  }
  return out;
}

std::vector<Talker> top_talkers(const SparseMatrix& bytes, const SparseMatrix& count, std::size_t limit) {
  auto order = [](const Talker& a, const Talker& b) {
    return std::tie(b.bytes, b.messages, a.from, a.to) < std::tie(a.bytes, a.messages, b.from, b.to);
  };
  // A heap of the best `limit` so far (heap.front() the weakest): nothing grows with the pairs.
  std::vector<Talker> heap;
  for_each_nonzero(bytes, [&](std::uint32_t i, std::uint32_t j, std::uint64_t v) {
    if (limit == 0 || (heap.size() == limit && v < heap.front().bytes)) return;  // cannot enter the top
    const Talker t{i, j, v, count.at(i, j)};
    if (heap.size() < limit) {
      heap.push_back(t);
      std::push_heap(heap.begin(), heap.end(), order);
    } else if (order(t, heap.front())) {
      std::pop_heap(heap.begin(), heap.end(), order);
      heap.back() = t;
      std::push_heap(heap.begin(), heap.end(), order);
    }
  });
  std::sort_heap(heap.begin(), heap.end(), order);
  return heap;
}

namespace {

Json cells(const SparseMatrix& m) {
  Json out = Json::array();
  for (std::uint32_t i = 0; i < m.rows; ++i) {
    for (auto k = m.indptr[i]; k < m.indptr[i + 1]; ++k) out.push_back({i, m.indices[k], m.values[k]});
  }
  return out;
}

struct View {
  std::string name, title;
  std::vector<TrafficClass> classes;
};

std::vector<View> views_of(const std::vector<TrafficClass>& chosen) {
  std::vector<View> views;
  std::vector<std::string> names;
  for (TrafficClass c : chosen) {
    views.push_back({std::string(class_name(c)), std::string(class_name(c)), {c}});
    names.emplace_back(class_name(c));
  }
  if (chosen.size() > 1) {
    std::string joined;
    for (const auto& n : names) joined += (joined.empty() ? "" : " + ") + n;
    views.push_back({"combined", "combined (" + joined + ")", chosen});
  }
  views.push_back({"pml", "PML view (external + internal)", {TrafficClass::external, TrafficClass::internal}});
  views.push_back({"pmpi", "PMPI view (external + coll)", {TrafficClass::external, TrafficClass::coll}});
  return views;
}

}  // namespace

std::vector<Talker> top_talkers(const MatrixFile& file, const std::string& dump, std::size_t limit) {
  const SparseMatrix bytes = add(file.matrix(dump, TrafficClass::external, Metric::bytes),
                                 file.matrix(dump, TrafficClass::internal, Metric::bytes));
  const SparseMatrix count = add(file.matrix(dump, TrafficClass::external, Metric::count),
                                 file.matrix(dump, TrafficClass::internal, Metric::count));
  return top_talkers(bytes, count, limit);
}

Histogram summed_histogram(const MatrixFile& file, const std::string& dump) {
  Histogram sum{};
  const HistogramTable table = file.histograms(dump);
  for (std::size_t k = 0; k < table.size(); ++k) {
    for (std::size_t b = 0; b < kHistogramBuckets; ++b) sum[b] += table.counts[k * kHistogramBuckets + b];
  }
  return sum;
}

void write_heatmap_json(const MatrixFile& file, const HeatmapRequest& request, std::ostream& out) {
  const std::string dump = request.dump.empty() ? file.default_dump() : request.dump;
  const DumpInfo info = file.info(dump);
  std::vector<TrafficClass> chosen = request.classes;
  if (chosen.empty()) {
    for (TrafficClass c : kAllTrafficClasses) {
      if (file.matrix(dump, c, Metric::count).stored() != 0) chosen.push_back(c);
    }
    if (chosen.empty()) chosen.push_back(TrafficClass::external);
  }
  const std::uint32_t block = heatmap_block_size(info.nprocs, request.max_side);
  Json views = Json::array();
  for (const View& view : views_of(chosen)) {
    Json v = {{"name", view.name}, {"title", view.title}};
    for (Metric metric : {Metric::bytes, Metric::count})
      v[metric_name(metric)] = cells(block_reduce(sum_classes(file, dump, view.classes, metric), block));
    views.push_back(std::move(v));
  }
  Json talkers = Json::array();
  for (const Talker& t : top_talkers(file, dump, request.top)) talkers.push_back({t.from, t.to, t.bytes, t.messages});
  Json communicators = Json::array();
  const CommunicatorTable comms = file.communicators(dump);
  for (std::size_t c = 0; c < comms.names.size(); ++c) {
    std::uint64_t calls = 0, bytes = 0;
    for (const auto& row : comms.rows) {
      if (row.comm != c) continue;
      calls += row.one_to_all.calls + row.all_to_one.calls + row.all_to_all.calls;
      bytes += row.one_to_all.bytes + row.all_to_one.bytes + row.all_to_all.bytes;
    }
    communicators.push_back({{"name", comms.names[c]},
                             {"members", c < comms.members.size() ? comms.members[c].size() : 0},
                             {"calls", calls},
                             {"bytes", bytes}});
  }
  const Json heatmap = {{"kind", "matrices"},
                        {"file", file.path()},
                        {"generator", file.generator()},
                        {"format_version", file.format_version()},
                        {"dump", dump},
                        {"nprocs", info.nprocs},
                        {"ranks_present", info.ranks_present.size()},
                        {"internal_distinguished", info.internal_distinguished},
                        {"layout", info.layout},
                        {"source_files", info.source_files.size()},
                        {"block", block},
                        {"side", (info.nprocs + block - 1) / block},
                        {"views", views},
                        {"histogram", summed_histogram(file, dump)},
                        {"talkers", talkers},
                        {"communicators", communicators}};
  out << json_line(heatmap) << "\n";
}

}  // namespace mpimon
