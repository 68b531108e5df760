#include "mpimon/merge.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <future>
#include <map>
#include <optional>
#include <tuple>

#include "h5.hpp"
#include "mpimon/error.hpp"
#include "mpimon/matrix_file.hpp"

namespace mpimon {

namespace fs = std::filesystem;

std::vector<DumpInputs> plan_dumps(const std::vector<std::string>& paths) {
  std::map<std::string, std::map<std::uint32_t, std::string>> by_dump;
  for (const auto& path : paths) {
    std::error_code ec;
    auto status = fs::status(path, ec);
    if (!fs::exists(status)) raise_input_error(path, 0, "no such file");
    if (fs::is_directory(status)) raise_input_error(path, 0, "is a directory, not a .prof file");
    ProfName name = parse_prof_name(path);
    auto [it, inserted] = by_dump[name.dump].emplace(name.rank, path);
    if (!inserted) {
      raise_input_error(path, 0, "second file for rank " + std::to_string(name.rank) + " of dump '" + name.dump +
                                     "' (the first is " + it->second + ")");
    }
  }
  std::vector<DumpInputs> dumps;
  for (auto& [name, files] : by_dump) {
    DumpInputs d{name, {}};
    for (auto& [rank, path] : files) d.files.emplace_back(rank, path);
    dumps.push_back(std::move(d));
  }
  return dumps;
}

namespace {

std::uint64_t checked_add(std::uint64_t a, std::uint64_t b, const std::string& path, std::size_t line,
                          const char* what) {
  std::uint64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) raise_input_error(path, line, std::string(what) + " total exceeds 2^64-1");
  return sum;
}

/// Rows of one traffic class, appended rank by rank in increasing rank order.
struct ClassRows {
  std::vector<std::uint32_t> indices;
  std::vector<std::uint64_t> counts;
  std::vector<std::uint64_t> bytes;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> row_ends;  // (rank, end offset)

  [[nodiscard]] SparseMatrix matrix(Metric m, std::uint32_t n) const {
    SparseMatrix s = SparseMatrix::zeros(n, n);
    s.indices = indices;
    s.values = m == Metric::count ? counts : bytes;
    std::uint64_t end = 0;
    std::size_t next = 0;
    for (std::uint32_t r = 0; r < n; ++r) {
      if (next < row_ends.size() && row_ends[next].first == r) end = row_ends[next++].second;
      s.indptr[r + 1] = end;
    }
    return s;
  }
};

/// Where the highest peer of the files without an MPI_COMM_WORLD line was seen.
struct PeerSighting {
  std::uint32_t peer = 0;
  std::string path;
  std::size_t line = 0;
};

class DumpWriter {
 public:
  DumpWriter(hid_t file, const DumpInputs& inputs, const MergeOptions& options)
      : inputs_(inputs),
        options_(options),
        where_("/" + inputs.name),
        group_(h5::create_group(file, inputs.name, "/")),
        histogram_group_(h5::create_group(group_.get(), "histogram", where_)),
        histogram_pairs_(histogram_group_.get(), "pairs", 2, 4096, where_ + "/histogram"),
        histogram_counts_(histogram_group_.get(), "counts", kHistogramBuckets, 1024, where_ + "/histogram") {}

  void add(std::uint32_t rank, const std::string& path, const RankProfile& profile) {
    note_world_size(profile, path);
    if (!profile.world_size) note_highest_peer(profile, path);
    internal_distinguished_ |= profile.has_internal_lines;
    add_pairs(rank, path, profile);
    for (const auto& h : profile.histograms) {
      const std::uint64_t pair[] = {rank, h.peer};
      histogram_pairs_.append(pair);
      histogram_counts_.append(h.buckets);
    }
    summary_.histograms += profile.histograms.size();
    add_communicators(rank, profile);
    ranks_present_.push_back(rank);
    highest_rank_ = std::max(highest_rank_, rank);
  }

  DumpSummary finish() {
    const std::uint32_t n = world_size();
    histogram_pairs_.finish();
    histogram_counts_.finish();
    write_histogram_attributes();
    const bool csr = options_.layout == MatrixLayout::csr ||
                     (options_.layout == MatrixLayout::automatic && n > options_.csr_above);
    for (TrafficClass c : kAllTrafficClasses) write_class(c, n, csr);
    write_communicators();
    write_dump_attributes(n, csr);
    summary_.name = inputs_.name;
    summary_.nprocs = n;
    summary_.ranks_present = ranks_present_.size();
    summary_.internal_distinguished = internal_distinguished_;
    summary_.communicators = comm_names_.size();
    summary_.layout = csr ? "csr" : "dense";
    return summary_;
  }

 private:
  void note_world_size(const RankProfile& profile, const std::string& path) {
    if (!profile.world_size) return;
    if (world_size_ && *world_size_ != *profile.world_size) {
      raise_input_error(path, 0, "MPI_COMM_WORLD has " + std::to_string(*profile.world_size) + " processes here but " +
                                     std::to_string(*world_size_) + " in " + world_size_source_);
    }
    world_size_ = profile.world_size;
    world_size_source_ = path;
  }

  void note_highest_peer(const RankProfile& profile, const std::string& path) {
    for (const auto& p : profile.pairs) {
      if (!highest_peer_ || p.peer > highest_peer_->peer) highest_peer_ = PeerSighting{p.peer, path, p.line};
    }
  }

  std::uint32_t world_size() const {
    if (!world_size_) {
      std::uint32_t highest = highest_rank_;
      if (highest_peer_) highest = std::max(highest, highest_peer_->peer);
      return highest + 1;
    }
    const std::uint32_t n = *world_size_;
    if (highest_rank_ >= n) {
      for (const auto& [rank, path] : inputs_.files) {
        if (rank >= n) {
          raise_input_error(path, 0, "rank " + std::to_string(rank) + " is outside MPI_COMM_WORLD (" +
                                         std::to_string(n) + " processes, from " + world_size_source_ + ")");
        }
      }
    }
    if (highest_peer_ && highest_peer_->peer >= n) {
      raise_input_error(highest_peer_->path, highest_peer_->line,
                        "peer " + std::to_string(highest_peer_->peer) + " is outside MPI_COMM_WORLD (" +
                            std::to_string(n) + " processes, from " + world_size_source_ + ")");
    }
    return n;
  }

  void add_pairs(std::uint32_t rank, const std::string& path, const RankProfile& profile) {
    for (const auto& p : profile.pairs) {
      auto c = static_cast<std::size_t>(p.traffic_class);
      ClassRows& rows = classes_[c];
      rows.indices.push_back(p.peer);
      rows.counts.push_back(p.count);
      rows.bytes.push_back(p.bytes);
      ClassTotals& t = summary_.totals[c];
      t.messages = checked_add(t.messages, p.count, path, p.line, "message");
      t.bytes = checked_add(t.bytes, p.bytes, path, p.line, "byte");
      ++t.pairs;
    }
    for (auto& rows : classes_) rows.row_ends.emplace_back(rank, rows.indices.size());
  }

  void add_communicators(std::uint32_t rank, const RankProfile& profile) {
    for (const auto& comm : profile.communicators) {
      auto key = std::make_pair(comm.name, comm.members);
      auto [it, inserted] = comm_index_.emplace(key, comm_names_.size());
      if (inserted) {
        comm_names_.push_back(comm.name);
        for (auto m : comm.members) comm_members_.push_back(m);
        comm_members_indptr_.push_back(static_cast<std::int64_t>(comm_members_.size()));
      }
      for (std::uint64_t v : {it->second, std::uint64_t{rank}, comm.one_to_all.calls, comm.one_to_all.bytes,
                              comm.all_to_one.calls, comm.all_to_one.bytes, comm.all_to_all.calls,
                              comm.all_to_all.bytes}) {
        comm_rows_.push_back(v);
      }
    }
  }

  void write_class(TrafficClass c, std::uint32_t n, bool csr) {
    const ClassRows& rows = classes_[static_cast<std::size_t>(c)];
    std::string where = where_ + "/" + std::string(class_name(c));
    h5::Handle group = h5::create_group(group_.get(), std::string(class_name(c)), where_);
    for (Metric m : {Metric::count, Metric::bytes}) {
      SparseMatrix matrix = rows.matrix(m, n);
      if (csr) {
        write_csr(group.get(), std::string(metric_name(m)), matrix, where);
      } else {
        write_dense(group.get(), std::string(metric_name(m)), matrix, where);
      }
    }
  }

  static void write_dense(hid_t parent, const std::string& name, const SparseMatrix& m, const std::string& where) {
    h5::Handle ds = h5::create_dense(parent, name, m.rows, m.columns, where);
    if (m.stored() == 0) return;
    const std::uint32_t block = std::max<std::uint32_t>(1, (1u << 20) / std::max<std::uint32_t>(m.columns, 1));
    std::vector<std::uint64_t> buffer;
    for (std::uint32_t first = 0; first < m.rows; first += block) {
      std::uint32_t count = std::min(block, m.rows - first);
      buffer.assign(std::size_t{count} * m.columns, 0);
      for (std::uint32_t i = 0; i < count; ++i) {
        for (auto k = m.indptr[first + i]; k < m.indptr[first + i + 1]; ++k) {
          buffer[std::size_t{i} * m.columns + m.indices[k]] = m.values[k];
        }
      }
      h5::write_rows(ds.get(), first, count, m.columns, buffer, where + "/" + name);
    }
  }

  static void write_csr(hid_t parent, const std::string& name, const SparseMatrix& m, const std::string& where) {
    h5::Handle g = h5::create_group(parent, name, where);
    h5::write_attribute(g.get(), "encoding-type", std::string("csr_matrix"));
    h5::write_attribute(g.get(), "encoding-version", std::string("0.1.0"));
    const std::uint64_t shape[] = {m.rows, m.columns};
    h5::write_attribute(g.get(), "shape", std::span<const std::uint64_t>(shape));
    std::string path = where + "/" + name;
    const hsize_t dims[] = {m.values.size()};
    h5::write_dataset(g.get(), "data", dims, m.values, path);
    std::vector<std::int64_t> indices(m.indices.begin(), m.indices.end());
    h5::write_dataset(g.get(), "indices", indices, path);
    std::vector<std::int64_t> indptr(m.indptr.begin(), m.indptr.end());
    h5::write_dataset(g.get(), "indptr", indptr, path);
  }

  void write_histogram_attributes() {
    h5::write_attribute(histogram_group_.get(), "bucket_rule",
                        std::string("bucket 0: empty messages; bucket k >= 1: messages of 2^(k-1) to 2^k - 1 bytes"));
    h5::write_attribute(histogram_group_.get(), "covers",
                        std::string("all point-to-point messages from rank to peer, external and internal"));
  }

  void write_communicators() {
    std::string where = where_ + "/communicators";
    h5::Handle g = h5::create_group(group_.get(), "communicators", where_);
    h5::write_strings(g.get(), "names", comm_names_, where);
    h5::write_dataset(g.get(), "members", comm_members_, where);
    h5::write_dataset(g.get(), "members_indptr", comm_members_indptr_, where);
    const hsize_t dims[] = {comm_rows_.size() / kCommColumns.size(), kCommColumns.size()};
    h5::write_dataset(g.get(), "records", dims, comm_rows_, where);
    h5::Handle records = h5::open_dataset(g.get(), "records", where);
    std::vector<std::string> columns(kCommColumns.begin(), kCommColumns.end());
    h5::write_attribute(records.get(), "columns", std::span<const std::string>(columns));
  }

  void write_dump_attributes(std::uint32_t n, bool csr) {
    hid_t g = group_.get();
    h5::write_attribute(g, "nprocs", std::uint64_t{n});
    std::vector<std::uint64_t> ranks(ranks_present_.begin(), ranks_present_.end());
    h5::write_attribute(g, "ranks_present", std::span<const std::uint64_t>(ranks));
    h5::write_attribute(g, "internal_distinguished", std::uint64_t{internal_distinguished_ ? 1u : 0u});
    std::vector<std::string> sources;
    for (const auto& [rank, path] : inputs_.files) sources.push_back(path);
    h5::write_attribute(g, "source_files", std::span<const std::string>(sources));
    h5::write_attribute(g, "layout", std::string(csr ? "csr" : "dense"));
  }

  static constexpr std::array<const char*, 8> kCommColumns = {
      "comm", "rank", "o2a_count", "o2a_bytes", "a2o_count", "a2o_bytes", "a2a_count", "a2a_bytes"};

  const DumpInputs& inputs_;
  const MergeOptions& options_;
  std::string where_;
  h5::Handle group_;
  h5::Handle histogram_group_;
  h5::RowAppender histogram_pairs_;
  h5::RowAppender histogram_counts_;
  std::array<ClassRows, kTrafficClassCount> classes_;
  std::optional<std::uint32_t> world_size_;
  std::string world_size_source_;
  std::optional<PeerSighting> highest_peer_;
  std::uint32_t highest_rank_ = 0;
  std::vector<std::uint32_t> ranks_present_;
  bool internal_distinguished_ = false;
  std::map<std::pair<std::string, std::vector<std::uint32_t>>, std::uint64_t> comm_index_;
  std::vector<std::string> comm_names_;
  std::vector<std::int64_t> comm_members_;
  std::vector<std::int64_t> comm_members_indptr_{0};
  std::vector<std::uint64_t> comm_rows_;
  DumpSummary summary_;
};

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

/// A unique temporary path next to `output`, so that the final rename stays on one file system.
std::string temporary_path_for(const std::string& output) {
  std::string pattern = output + ".tmp-XXXXXX";
  int fd = mkstemp(pattern.data());
  if (fd < 0) raise_error(Error::Kind::system, output, std::string("cannot create a file here: ") + std::strerror(errno));
  // mkstemp makes the file private; the result should have the permissions any new file gets.
  const mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  close(fd);
  return pattern;
}

}  // namespace

std::vector<DumpSummary> merge_prof_files(const std::vector<std::string>& paths, const std::string& output,
                                          const MergeOptions& options, const MergeProgress& progress) {
  if (paths.empty()) raise_error(Error::Kind::input, "", "no input files");
  std::vector<DumpInputs> dumps = plan_dumps(paths);
  if (fs::is_directory(output)) raise_error(Error::Kind::input, output, "output is a directory");

  const std::string temporary = temporary_path_for(output);
  auto announce = [&](const std::string& path) {
    if (options.on_temporary) options.on_temporary(path);
  };
  announce(temporary);
  std::vector<DumpSummary> summaries;
  try {
    {
      h5::Handle file = h5::create_file(temporary);
      h5::write_attribute(file.get(), "format", std::string(kMatricesFormat));
      h5::write_attribute(file.get(), "format_version", kMatricesFormatVersion);
      h5::write_attribute(file.get(), "generator", options.generator.empty() ? std::string("mpimon") : options.generator);
      h5::write_attribute(file.get(), "created_utc", utc_now());
      std::size_t done = 0;
      for (const auto& dump : dumps) {
        DumpWriter writer(file.get(), dump, options);
        // Reading and parsing the next file overlaps with writing the current one; errors still
        // surface in file order, through the future.
        auto read = [&dump](std::size_t i) {
          return std::async(std::launch::async, [&dump, i] {
            return read_prof_file(dump.files[i].second, dump.files[i].first);
          });
        };
        std::future<RankProfile> next = read(0);
        for (std::size_t i = 0; i < dump.files.size(); ++i) {
          RankProfile profile = next.get();
          if (i + 1 < dump.files.size()) next = read(i + 1);
          writer.add(dump.files[i].first, dump.files[i].second, profile);
          if (progress) progress(++done, paths.size());
        }
        summaries.push_back(writer.finish());
      }
      h5::flush(file.get(), output);
    }
    std::error_code ec;
    fs::rename(temporary, output, ec);
    if (ec) raise_error(Error::Kind::system, output, "cannot write: " + ec.message());
  } catch (...) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    announce("");
    throw;
  }
  announce("");
  return summaries;
}

}  // namespace mpimon
