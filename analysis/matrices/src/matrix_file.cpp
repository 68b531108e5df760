#include "mpimon/matrices/matrix_file.hpp"

#include <algorithm>

#include "h5_sizes.hpp"
#include "mpimon/base/error.hpp"
#include "mpimon/matrices/h5.hpp"

namespace mpimon {

std::string_view metric_name(Metric m) { return m == Metric::count ? "count" : "bytes"; }

std::string hdf5_format_of(const std::string& path) {
  h5::Handle file = h5::open_file_readonly(path);
  return h5::has_attribute(file.get(), "format") ? h5::read_string_attribute(file.get(), "format", path) : "";
}

struct MatrixFile::Impl {
  std::string path;
  h5::Handle file;
  std::uint64_t version = 0;

  [[nodiscard]] std::string where(const std::string& object) const { return path + ":" + object; }

  h5::Handle dump_group(const std::string& dump) const {
    if (!h5::exists(file.get(), dump) || !h5::is_group(file.get(), dump)) {
      raise_error(Error::Kind::input, path, "no dump named '" + dump + "'");
    }
    return h5::open_group(file.get(), dump, where("/"));
  }
};

MatrixFile::MatrixFile(const std::string& path) : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  impl_->file = h5::open_file_readonly(path);
  std::string format = h5::has_attribute(impl_->file.get(), "format")
                           ? h5::read_string_attribute(impl_->file.get(), "format", impl_->where("/"))
                           : std::string();
  if (format != kMatricesFormat) {
    raise_error(Error::Kind::format, path, "not an " + std::string(kMatricesFormat) + " file (made by mpimon merge)");
  }
  auto version = h5::read_uint_attribute(impl_->file.get(), "format_version", impl_->where("/"));
  if (version.size() != 1 || version[0] < kMatricesOldestReadableVersion || version[0] > kMatricesFormatVersion) {
    raise_error(Error::Kind::format, path,
                "format_version " + (version.empty() ? std::string("?") : std::to_string(version[0])) +
                    " is not supported (this mpimon reads versions " + std::to_string(kMatricesOldestReadableVersion) +
                    " to " + std::to_string(kMatricesFormatVersion) + ")");
  }
  impl_->version = version[0];
}

std::uint64_t MatrixFile::format_version() const { return impl_->version; }

MatrixFile::~MatrixFile() = default;
MatrixFile::MatrixFile(MatrixFile&&) noexcept = default;
MatrixFile& MatrixFile::operator=(MatrixFile&&) noexcept = default;

const std::string& MatrixFile::path() const { return impl_->path; }

std::string MatrixFile::generator() const {
  return h5::read_string_attribute(impl_->file.get(), "generator", impl_->where("/"));
}

std::string MatrixFile::root_string(const std::string& name) const {
  if (!h5::has_attribute(impl_->file.get(), name)) return "";
  return h5::read_string_attribute(impl_->file.get(), name, impl_->where("/"));
}

std::vector<std::string> MatrixFile::root_strings(const std::string& name) const {
  if (!h5::has_attribute(impl_->file.get(), name)) return {};
  return h5::read_strings_attribute(impl_->file.get(), name, impl_->where("/"));
}

std::vector<std::string> MatrixFile::dumps() const {
  std::vector<std::string> out;
  for (auto& name : h5::member_names(impl_->file.get(), impl_->where("/"))) {
    if (h5::is_group(impl_->file.get(), name)) out.push_back(name);
  }
  return out;
}

std::string MatrixFile::default_dump() const {
  auto names = dumps();
  if (names.size() == 1) return names.front();
  if (names.empty()) raise_error(Error::Kind::input, impl_->path, "holds no dump");
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  raise_error(Error::Kind::input, impl_->path, "holds several dumps (" + list + "): choose one with --dump");
}

DumpInfo MatrixFile::info(const std::string& dump) const {
  h5::Handle g = impl_->dump_group(dump);
  std::string where = impl_->where("/" + dump);
  DumpInfo info;
  info.name = dump;
  auto n = h5::read_uint_attribute(g.get(), "nprocs", where);
  if (n.size() != 1 || n[0] == 0 || n[0] > 0x7fffffff) raise_error(Error::Kind::format, where, "bad nprocs");
  info.nprocs = static_cast<std::uint32_t>(n[0]);
  info.ranks_present = h5::read_uint_attribute(g.get(), "ranks_present", where);
  auto flag = h5::read_uint_attribute(g.get(), "internal_distinguished", where);
  info.internal_distinguished = !flag.empty() && flag[0] != 0;
  info.source_files = h5::read_strings_attribute(g.get(), "source_files", where);
  info.layout = h5::read_string_attribute(g.get(), "layout", where);
  return info;
}

SparseMatrix MatrixFile::matrix(const std::string& dump, TrafficClass c, Metric m) const {
  const std::uint32_t n = info(dump).nprocs;
  h5::Handle g = impl_->dump_group(dump);
  std::string class_path = "/" + dump + "/" + std::string(class_name(c));
  h5::Handle cg = h5::open_group(g.get(), std::string(class_name(c)), impl_->where("/" + dump));
  std::string name(metric_name(m));
  std::string where = impl_->where(class_path + "/" + name);
  if (h5::is_group(cg.get(), name)) {
    h5::Handle mg = h5::open_group(cg.get(), name, impl_->where(class_path));
    auto read = [&](const char* ds) { return h5::read_int64(h5::open_dataset(mg.get(), ds, where).get(), where); };
    // The row pointers first: nprocs + 1 of them stored in the file, before n rows are allocated.
    auto indptr = read("indptr");
    if (indptr.size() != std::size_t{n} + 1) raise_error(Error::Kind::format, where, "inconsistent CSR arrays");
    auto indices = read("indices");
    SparseMatrix s = SparseMatrix::zeros(n, n);
    s.values = h5::read_uint64(h5::open_dataset(mg.get(), "data", where).get(), where);
    if (indices.size() != s.values.size() || indptr.front() != 0 ||
        static_cast<std::size_t>(indptr.back()) != s.values.size() || !std::is_sorted(indptr.begin(), indptr.end())) {
      raise_error(Error::Kind::format, where, "inconsistent CSR arrays");
    }
    for (std::size_t i = 0; i < indptr.size(); ++i) s.indptr[i] = static_cast<std::uint64_t>(indptr[i]);
    s.indices.reserve(indices.size());
    for (auto j : indices) {
      if (j < 0 || j >= n) raise_error(Error::Kind::format, where, "column index out of range");
      s.indices.push_back(static_cast<std::uint32_t>(j));
    }
    return s;
  }
  h5::Handle ds = h5::open_dataset(cg.get(), name, impl_->where(class_path));
  auto dims = h5::dataset_dims(ds.get(), where);
  if (dims.size() != 2 || dims[0] != n || dims[1] != n) {
    raise_error(Error::Kind::format, where, "expected a " + std::to_string(n) + " x " + std::to_string(n) + " matrix");
  }
  // A class without traffic was never written (its storage is allocated on first write): zeros,
  // without reading n x n fill values. Else the file stores all of it.
  SparseMatrix s = SparseMatrix::zeros(n, n);
  if (!h5::has_storage(ds.get())) return s;
  h5::check_dataset_stored(ds.get(), where);
  // Read by blocks of rows so that a large dense matrix is never held twice.
  const std::uint32_t block = std::max<std::uint32_t>(1, (1u << 20) / n);
  for (std::uint32_t first = 0; first < n; first += block) {
    std::uint32_t count = std::min(block, n - first);
    auto rows = h5::read_rows(ds.get(), first, count, where);
    for (std::uint32_t i = 0; i < count; ++i) {
      for (std::uint32_t j = 0; j < n; ++j) {
        std::uint64_t v = rows[std::size_t{i} * n + j];
        if (v == 0) continue;
        s.indices.push_back(j);
        s.values.push_back(v);
      }
      s.indptr[first + i + 1] = s.values.size();
    }
  }
  return s;
}

HistogramTable MatrixFile::histograms(const std::string& dump) const {
  h5::Handle g = impl_->dump_group(dump);
  std::string where = impl_->where("/" + dump + "/histogram");
  h5::Handle hg = h5::open_group(g.get(), "histogram", impl_->where("/" + dump));
  HistogramTable t;
  t.pairs = h5::read_uint64(h5::open_dataset(hg.get(), "pairs", where).get(), where + "/pairs");
  if (t.pairs.size() % 2 != 0) raise_error(Error::Kind::format, where, "pairs must have 2 columns");
  if (impl_->version == 1) {  // K x 66, dense
    t.counts = h5::read_uint64(h5::open_dataset(hg.get(), "counts", where).get(), where + "/counts");
    if (t.counts.size() != t.size() * kHistogramBuckets) {
      raise_error(Error::Kind::format, where, "pairs and counts disagree in length");
    }
    return t;
  }
  // Version 2: the non-empty buckets of pair k are bucket/count[indptr[k]:indptr[k+1]].
  auto indptr = h5::read_int64(h5::open_dataset(hg.get(), "indptr", where).get(), where + "/indptr");
  auto bucket = h5::read_uint64(h5::open_dataset(hg.get(), "bucket", where).get(), where + "/bucket");
  auto count = h5::read_uint64(h5::open_dataset(hg.get(), "count", where).get(), where + "/count");
  if (indptr.size() != t.size() + 1 || bucket.size() != count.size() || indptr.front() != 0 ||
      static_cast<std::uint64_t>(indptr.back()) != count.size() || !std::is_sorted(indptr.begin(), indptr.end())) {
    raise_error(Error::Kind::format, where, "inconsistent indptr, bucket and count");
  }
  t.counts.assign(t.size() * kHistogramBuckets, 0);
  for (std::size_t k = 0; k < t.size(); ++k) {
    for (auto i = indptr[k]; i < indptr[k + 1]; ++i) {
      const auto b = bucket[static_cast<std::size_t>(i)];
      if (b >= kHistogramBuckets) raise_error(Error::Kind::format, where, "bucket index out of range");
      t.counts[k * kHistogramBuckets + b] = count[static_cast<std::size_t>(i)];
    }
  }
  return t;
}

std::size_t MatrixFile::histogram_count(const std::string& dump) const {
  h5::Handle g = impl_->dump_group(dump);
  std::string where = impl_->where("/" + dump + "/histogram");
  h5::Handle hg = h5::open_group(g.get(), "histogram", impl_->where("/" + dump));
  auto dims = h5::dataset_dims(h5::open_dataset(hg.get(), "pairs", where).get(), where + "/pairs");
  if (dims.size() != 2 || dims[1] != 2) raise_error(Error::Kind::format, where + "/pairs", "expected K x 2");
  return dims[0];
}

CommunicatorTable MatrixFile::communicators(const std::string& dump) const {
  h5::Handle g = impl_->dump_group(dump);
  std::string where = impl_->where("/" + dump + "/communicators");
  h5::Handle cg = h5::open_group(g.get(), "communicators", impl_->where("/" + dump));
  CommunicatorTable t;
  t.names = h5::read_strings(h5::open_dataset(cg.get(), "names", where).get(), where + "/names");
  auto members = h5::read_int64(h5::open_dataset(cg.get(), "members", where).get(), where);
  auto indptr = h5::read_int64(h5::open_dataset(cg.get(), "members_indptr", where).get(), where);
  if (indptr.size() != t.names.size() + 1)
    raise_error(Error::Kind::format, where, "members_indptr has the wrong length");
  // Ranks are indices into the world, and every user indexes by them.
  if (std::any_of(members.begin(), members.end(), [](std::int64_t r) { return r < 0; }))
    raise_error(Error::Kind::format, where, "members holds a negative rank");
  for (std::size_t i = 0; i < t.names.size(); ++i) {
    if (indptr[i] < 0 || indptr[i] > indptr[i + 1] || static_cast<std::size_t>(indptr[i + 1]) > members.size()) {
      raise_error(Error::Kind::format, where, "members_indptr is inconsistent");
    }
    t.members.emplace_back(members.begin() + indptr[i], members.begin() + indptr[i + 1]);
  }
  auto rows = h5::read_uint64(h5::open_dataset(cg.get(), "records", where).get(), where + "/records");
  if (rows.size() % 8 != 0) raise_error(Error::Kind::format, where, "records must have 8 columns");
  for (std::size_t k = 0; k < rows.size(); k += 8) {
    // Every record names a communicator of the table: its readers index the names by it.
    if (rows[k] >= t.names.size()) {
      raise_error(Error::Kind::format, where,
                  "record " + std::to_string(k / 8) + " names communicator " + std::to_string(rows[k]) + " of " +
                      std::to_string(t.names.size()));
    }
    t.rows.push_back(
        {rows[k], rows[k + 1], {rows[k + 3], rows[k + 2]}, {rows[k + 5], rows[k + 4]}, {rows[k + 7], rows[k + 6]}});
  }
  return t;
}

}  // namespace mpimon
