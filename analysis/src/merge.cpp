#include "mpimon/merge.hpp"

#include <dirent.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>

#include "h5.hpp"
#include "mpimon/error.hpp"
#include "mpimon/matrix_file.hpp"

namespace mpimon {

namespace fs = std::filesystem;

namespace {

/// Every NAME.RANK.prof directly inside `dir`, appended to `out` (unsorted: plan_dumps sorts).
/// readdir rather than a directory_iterator: at 10^5 entries the d_type shortcut matters.
void append_prof_files_of(const std::string& dir, std::vector<std::string>& out) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) raise_input_error(dir, 0, std::string("cannot list the directory: ") + std::strerror(errno));
  const std::string prefix = dir.ends_with('/') ? dir : dir + "/";
  const std::size_t before = out.size();
  while (const dirent* entry = readdir(d)) {
    std::string path = prefix + entry->d_name;
    if (!try_parse_prof_name(path)) continue;
    const bool regular = entry->d_type == DT_REG || (entry->d_type == DT_UNKNOWN && fs::is_regular_file(path)) ||
                         (entry->d_type == DT_LNK && fs::is_regular_file(path));
    if (regular) out.push_back(std::move(path));
  }
  closedir(d);
  if (out.size() == before) raise_input_error(dir, 0, "directory holds no NAME.RANK.prof file");
}

}  // namespace

std::vector<std::string> expand_input_paths(const std::vector<std::string>& arguments) {
  std::vector<std::string> paths;
  paths.reserve(arguments.size());
  for (const auto& argument : arguments) {
    std::error_code ec;
    if (fs::is_directory(argument, ec)) {
      append_prof_files_of(argument, paths);
    } else {
      paths.push_back(argument);  // plan_dumps reports a missing file or a bad name
    }
  }
  return paths;
}

std::vector<std::string> parse_path_list(std::string_view text, const std::string& list_name) {
  std::vector<std::string> paths;
  std::size_t line_number = 0;
  while (!text.empty()) {
    ++line_number;
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (line.empty()) continue;
    std::string path(line);
    std::error_code ec;
    if (!fs::exists(path, ec)) raise_input_error(list_name, line_number, "no such file: " + path);
    paths.push_back(std::move(path));
  }
  return paths;
}

std::vector<std::string> read_path_list(const std::string& list) {
  const bool from_stdin = list == "-";
  std::FILE* f = from_stdin ? stdin : std::fopen(list.c_str(), "rb");
  if (f == nullptr) raise_input_error(list, 0, std::string("cannot read the list of files: ") + std::strerror(errno));
  std::string text;
  char buffer[1 << 16];
  while (std::size_t got = std::fread(buffer, 1, sizeof buffer, f)) text.append(buffer, got);
  const bool failed = std::ferror(f) != 0;
  if (!from_stdin) std::fclose(f);
  const std::string name = from_stdin ? "standard input" : list;
  if (failed) raise_input_error(name, 0, "read error");
  return parse_path_list(text, name);
}

std::vector<DumpInputs> plan_dumps(const std::vector<std::string>& paths) {
  std::map<std::string, std::map<std::uint32_t, std::string>, DumpNameLess> by_dump;
  for (const auto& path : paths) {
    std::error_code ec;
    auto status = fs::status(path, ec);
    if (!fs::exists(status)) raise_input_error(path, 0, "no such file");
    if (fs::is_directory(status)) raise_input_error(path, 0, "is a directory, not a .prof file");
    ProfName name = parse_prof_name(path);
    auto [it, inserted] = by_dump[name.dump].emplace(name.rank, path);
    if (!inserted) {
      raise_input_error(path, 0,
                        "second file for rank " + std::to_string(name.rank) + " of dump '" + name.dump +
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

/// Asks for transparent huge pages on the storage of a large vector: filling 20 MB of class rows
/// then takes 10 page faults instead of 5000 (each costly, more so in a virtual machine). Pages
/// still appear only when touched, so an unused reservation costs no memory. Advisory only.
template <typename T>
void advise_huge_pages(std::vector<T>& v) {
  constexpr std::uintptr_t huge = std::uintptr_t{2} << 20;
  const auto begin = reinterpret_cast<std::uintptr_t>(v.data());
  const std::uintptr_t end = begin + v.capacity() * sizeof(T);
  const std::uintptr_t first = (begin + huge - 1) & ~(huge - 1);
  const std::uintptr_t last = end & ~(huge - 1);
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
}

/// Rows of one traffic class, appended rank by rank in increasing rank order: a CSR matrix
/// whose row offsets are only known for the ranks that had a file.
struct ClassRows {
  std::vector<std::uint32_t> indices;
  std::vector<std::uint64_t> counts;
  std::vector<std::uint64_t> bytes;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> row_ends;  // (rank, end offset)

  [[nodiscard]] const std::vector<std::uint64_t>& values(Metric m) const { return m == Metric::count ? counts : bytes; }

  /// The n + 1 row offsets of the CSR form.
  [[nodiscard]] std::vector<std::uint64_t> indptr(std::uint32_t n) const {
    std::vector<std::uint64_t> out(std::size_t{n} + 1, 0);
    std::uint64_t end = 0;
    std::size_t next = 0;
    for (std::uint32_t r = 0; r < n; ++r) {
      if (next < row_ends.size() && row_ends[next].first == r) end = row_ends[next++].second;
      out[r + 1] = end;
    }
    return out;
  }
};

/// The non-zero buckets of a file's histograms, in the order of RankProfile::histograms: those
/// of histogram k are bucket/count[ends[k-1]:ends[k]]. Made on the reader threads, so that the
/// writing thread only copies them.
struct SparseHistograms {
  std::vector<std::uint8_t> bucket;
  std::vector<std::uint64_t> count;
  std::vector<std::uint32_t> ends;

  void assign(const std::vector<PeerHistogram>& histograms) {
    bucket.clear();
    count.clear();
    ends.clear();
    for (const auto& h : histograms) {
      for (std::size_t b = 0; b < kHistogramBuckets; ++b) {
        if (h.buckets[b] == 0) continue;
        bucket.push_back(static_cast<std::uint8_t>(b));
        count.push_back(h.buckets[b]);
      }
      ends.push_back(static_cast<std::uint32_t>(count.size()));
    }
  }
};

/// One parsed file, as the reader threads hand it over.
struct ParsedFile {
  RankProfile profile;
  SparseHistograms histograms;
};

/// Reads and parses the files of a dump on `workers` threads, ahead of the caller, and hands the
/// profiles out in file order. Worker w reads files w, w + workers, w + 2 workers, ... into its
/// two slots in turn (double buffering), so at most 2 x workers profiles exist at any time and
/// their storage, like each worker's file buffer, is reused from file to file. A file's error is
/// rethrown when the caller reaches that file, so errors surface in file order.
class ParallelReader {
 public:
  ParallelReader(const DumpInputs& dump, unsigned workers) : dump_(dump), workers_(workers) {
    for (unsigned i = 0; i < 2 * workers_; ++i) slots_.push_back(std::make_unique<Slot>());
    for (unsigned w = 0; w < workers_; ++w) threads_.emplace_back([this, w] { work(w); });
  }
  ParallelReader(const ParallelReader&) = delete;
  ParallelReader& operator=(const ParallelReader&) = delete;

  ~ParallelReader() {
    stop_ = true;
    for (auto& slot : slots_) {
      std::lock_guard lock(slot->mutex);
      slot->changed.notify_all();
    }
    for (auto& t : threads_) t.join();
  }

  /// File i, parsed; valid until release(i). Files must be taken in order.
  const ParsedFile& take(std::size_t i) {
    Slot& slot = slot_of(i);
    std::unique_lock lock(slot.mutex);
    slot.changed.wait(lock, [&] { return slot.state != State::empty; });
    if (slot.state == State::failed) std::rethrow_exception(slot.error);
    return slot.file;
  }

  void release(std::size_t i) {
    Slot& slot = slot_of(i);
    {
      std::lock_guard lock(slot.mutex);
      slot.state = State::empty;
    }
    slot.changed.notify_all();
  }

 private:
  enum class State { empty, ready, failed };
  struct Slot {
    std::mutex mutex;
    std::condition_variable changed;
    State state = State::empty;
    ParsedFile file;
    std::exception_ptr error;
  };

  Slot& slot_of(std::size_t i) { return *slots_[i % slots_.size()]; }

  void work(unsigned w) {
    ProfReader reader;
    for (std::size_t i = w; i < dump_.files.size(); i += workers_) {
      Slot& slot = slot_of(i);
      {
        std::unique_lock lock(slot.mutex);
        slot.changed.wait(lock, [&] { return slot.state == State::empty || stop_; });
        if (stop_) return;
      }
      // The slot is this worker's until it is marked ready or failed.
      State result = State::ready;
      try {
        reader.read(dump_.files[i].second, dump_.files[i].first, slot.file.profile);
        slot.file.histograms.assign(slot.file.profile.histograms);
      } catch (...) {
        slot.error = std::current_exception();
        result = State::failed;
      }
      {
        std::lock_guard lock(slot.mutex);
        slot.state = result;
      }
      slot.changed.notify_all();
      if (result == State::failed) return;
    }
  }

  const DumpInputs& dump_;
  const unsigned workers_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
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
        histogram_pairs_(histogram_group_.get(), "pairs", 2, kChunkRows, where_ + "/histogram"),
        histogram_indptr_(histogram_group_.get(), "indptr", 1, kChunkRows, where_ + "/histogram"),
        histogram_bucket_(histogram_group_.get(), "bucket", 1, kChunkRows, where_ + "/histogram"),
        histogram_count_(histogram_group_.get(), "count", 1, kChunkRows, where_ + "/histogram") {
    histogram_indptr_.append(std::int64_t{0});
  }

  void add(std::uint32_t rank, const std::string& path, const ParsedFile& file) {
    add(rank, path, file.profile, file.histograms);
  }

  void add(std::uint32_t rank, const std::string& path, const RankProfile& profile, const SparseHistograms& sparse) {
    note_world_size(profile, path);
    if (!profile.world_size) note_highest_peer(profile, path);
    internal_distinguished_ |= profile.has_internal_lines;
    add_pairs(rank, path, profile);
    add_histograms(rank, profile, sparse);
    add_communicators(rank, profile);
    ranks_present_.push_back(rank);
    highest_rank_ = std::max(highest_rank_, rank);
  }

  DumpSummary finish() {
    const std::uint32_t n = world_size();
    histogram_pairs_.finish();
    histogram_indptr_.finish();
    histogram_bucket_.finish();
    histogram_count_.finish();
    write_histogram_attributes();
    const bool csr =
        options_.layout == MatrixLayout::csr || (options_.layout == MatrixLayout::automatic && n > options_.csr_above);
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
      raise_input_error(path, 0,
                        "MPI_COMM_WORLD has " + std::to_string(*profile.world_size) + " processes here but " +
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
          raise_input_error(path, 0,
                            "rank " + std::to_string(rank) + " is outside MPI_COMM_WORLD (" + std::to_string(n) +
                                " processes, from " + world_size_source_ + ")");
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
    if (ranks_present_.empty()) reserve_like(profile);
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

  // Room for every file to have as many lines as the first: no copying as the rows grow, and
  // pages that are never used are never touched, so they cost no memory.
  void reserve_like(const RankProfile& first) {
    std::array<std::size_t, kTrafficClassCount> lines{};
    for (const auto& p : first.pairs) ++lines[static_cast<std::size_t>(p.traffic_class)];
    for (std::size_t c = 0; c < kTrafficClassCount; ++c) {
      const std::size_t expected = lines[c] * inputs_.files.size();
      classes_[c].indices.reserve(expected);
      classes_[c].counts.reserve(expected);
      classes_[c].bytes.reserve(expected);
      advise_huge_pages(classes_[c].indices);
      advise_huge_pages(classes_[c].counts);
      advise_huge_pages(classes_[c].bytes);
      classes_[c].row_ends.reserve(inputs_.files.size());
    }
  }

  // Stored sparse (format version 2): the non-empty buckets of each pair, in bucket order.
  void add_histograms(std::uint32_t rank, const RankProfile& profile, const SparseHistograms& sparse) {
    const auto base = static_cast<std::int64_t>(histogram_count_.rows());
    for (std::size_t k = 0; k < profile.histograms.size(); ++k) {
      const std::uint32_t pair[] = {rank, profile.histograms[k].peer};
      histogram_pairs_.append(pair);
      histogram_indptr_.append(base + sparse.ends[k]);
    }
    histogram_bucket_.append(sparse.bucket);
    histogram_count_.append(sparse.count);
    summary_.histograms += profile.histograms.size();
  }

  /// The index of a communicator in the table, adding it when new. Every file repeats the
  /// previous file's communicators (MPI_COMM_WORLD at least), so those are compared first.
  std::uint64_t communicator_index(std::size_t position, const CommunicatorRecord& comm) {
    if (position < previous_comms_.size()) {
      const std::uint64_t k = previous_comms_[position];
      auto first = comm_members_.begin() + comm_members_indptr_[k];
      auto last = comm_members_.begin() + comm_members_indptr_[k + 1];
      if (comm_names_[k] == comm.name && std::equal(first, last, comm.members.begin(), comm.members.end())) return k;
    }
    auto [it, inserted] = comm_index_.emplace(std::make_pair(comm.name, comm.members), comm_names_.size());
    if (inserted) {
      comm_names_.push_back(comm.name);
      comm_members_.insert(comm_members_.end(), comm.members.begin(), comm.members.end());
      comm_members_indptr_.push_back(static_cast<std::int64_t>(comm_members_.size()));
    }
    return it->second;
  }

  void add_communicators(std::uint32_t rank, const RankProfile& profile) {
    std::vector<std::uint64_t> indices;
    for (std::size_t j = 0; j < profile.communicators.size(); ++j) {
      const CommunicatorRecord& comm = profile.communicators[j];
      const std::uint64_t index = communicator_index(j, comm);
      indices.push_back(index);
      for (std::uint64_t v :
           {index, std::uint64_t{rank}, comm.one_to_all.calls, comm.one_to_all.bytes, comm.all_to_one.calls,
            comm.all_to_one.bytes, comm.all_to_all.calls, comm.all_to_all.bytes}) {
        comm_rows_.push_back(v);
      }
    }
    previous_comms_ = std::move(indices);
  }

  void write_class(TrafficClass c, std::uint32_t n, bool csr) {
    const ClassRows& rows = classes_[static_cast<std::size_t>(c)];
    std::string where = where_ + "/" + std::string(class_name(c));
    h5::Handle group = h5::create_group(group_.get(), std::string(class_name(c)), where_);
    const std::vector<std::uint64_t> indptr = rows.indptr(n);
    for (Metric m : {Metric::count, Metric::bytes}) {
      if (csr) {
        write_csr(group.get(), std::string(metric_name(m)), n, indptr, rows.indices, rows.values(m), where);
      } else {
        write_dense(group.get(), std::string(metric_name(m)), n, indptr, rows.indices, rows.values(m), where,
                    dense_buffer_);
      }
    }
  }

  // By blocks of rows of about 1 MiB, in one buffer reused for every matrix: memory stays far
  // below one dense matrix, and the buffer stays in the CPU's cache.
  static void write_dense(hid_t parent, const std::string& name, std::uint32_t n,
                          const std::vector<std::uint64_t>& indptr, const std::vector<std::uint32_t>& indices,
                          const std::vector<std::uint64_t>& values, const std::string& where,
                          std::vector<std::uint64_t>& buffer) {
    h5::Handle ds = h5::create_dense(parent, name, n, n, where);
    if (values.empty()) return;
    const std::uint32_t block = std::max<std::uint32_t>(1, (1u << 17) / n);
    for (std::uint32_t first = 0; first < n; first += block) {
      std::uint32_t count = std::min(block, n - first);
      buffer.assign(std::size_t{count} * n, 0);
      for (std::uint32_t i = 0; i < count; ++i) {
        for (auto k = indptr[first + i]; k < indptr[first + i + 1]; ++k)
          buffer[std::size_t{i} * n + indices[k]] = values[k];
      }
      h5::write_rows(ds.get(), first, count, n, buffer, where + "/" + name);
    }
  }

  static void write_csr(hid_t parent, const std::string& name, std::uint32_t n,
                        const std::vector<std::uint64_t>& indptr, const std::vector<std::uint32_t>& indices,
                        const std::vector<std::uint64_t>& values, const std::string& where) {
    h5::Handle g = h5::create_group(parent, name, where);
    h5::write_attribute(g.get(), "encoding-type", std::string("csr_matrix"));
    h5::write_attribute(g.get(), "encoding-version", std::string("0.1.0"));
    const std::uint64_t shape[] = {n, n};
    h5::write_attribute(g.get(), "shape", std::span<const std::uint64_t>(shape));
    std::string path = where + "/" + name;
    const hsize_t dims[] = {values.size()};
    h5::write_dataset(g.get(), "data", dims, values, path);
    std::vector<std::int64_t> wide_indices(indices.begin(), indices.end());
    h5::write_dataset(g.get(), "indices", wide_indices, path);
    std::vector<std::int64_t> wide_indptr(indptr.begin(), indptr.end());
    h5::write_dataset(g.get(), "indptr", wide_indptr, path);
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

  /// Rows per chunk (and per write) of the histogram datasets: 1 MiB of (rank, peer) pairs.
  static constexpr hsize_t kChunkRows = 1u << 17;
  static constexpr std::array<const char*, 8> kCommColumns = {"comm",      "rank",      "o2a_count", "o2a_bytes",
                                                              "a2o_count", "a2o_bytes", "a2a_count", "a2a_bytes"};

  const DumpInputs& inputs_;
  const MergeOptions& options_;
  std::string where_;
  h5::Handle group_;
  h5::Handle histogram_group_;
  h5::RowAppender<std::uint32_t> histogram_pairs_;
  h5::RowAppender<std::int64_t> histogram_indptr_;
  h5::RowAppender<std::uint8_t> histogram_bucket_;
  h5::RowAppender<std::uint64_t> histogram_count_;
  std::array<ClassRows, kTrafficClassCount> classes_;
  std::vector<std::uint64_t> dense_buffer_;
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
  std::vector<std::uint64_t> previous_comms_;  // table indices of the last file's communicators
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

/// Parsing is most of the work, and this thread only adds parsed files to the HDF5 file: one
/// reader thread per core, at most 4 (beyond that, this thread becomes the bottleneck).
unsigned default_reader_threads() { return std::clamp(std::thread::hardware_concurrency(), 1u, 4u); }

/// A unique temporary path next to `output`, so that the final rename stays on one file system.
std::string temporary_path_for(const std::string& output) {
  check_output_path(output);
  std::string pattern = output + ".tmp-XXXXXX";
  int fd = mkstemp(pattern.data());
  if (fd < 0)
    raise_error(Error::Kind::system, output, std::string("cannot create a file here: ") + std::strerror(errno));
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
  return merge_planned(plan_dumps(paths), output, options, progress, nullptr);
}

std::vector<DumpSummary> merge_planned(const std::vector<DumpInputs>& dumps, const std::string& output,
                                       const MergeOptions& options, const MergeProgress& progress,
                                       ProfileSource* source) {
  if (fs::is_directory(output)) raise_error(Error::Kind::input, output, "output is a directory");
  std::size_t total = 0;
  for (const auto& dump : dumps) total += dump.files.size();

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
      h5::write_attribute(file.get(), "generator",
                          options.generator.empty() ? std::string("mpimon") : options.generator);
      h5::write_attribute(file.get(), "created_utc", utc_now());
      for (const auto& [name, values] : options.root_string_lists) {
        h5::write_attribute(file.get(), name, std::span<const std::string>(values));
      }
      std::size_t done = 0;
      const unsigned workers = options.threads != 0 ? options.threads : default_reader_threads();
      SparseHistograms sparse;
      for (const auto& dump : dumps) {
        DumpWriter writer(file.get(), dump, options);
        if (source != nullptr) {
          // Profiles parsed elsewhere (other processes), handed over in file order.
          for (std::size_t i = 0; i < dump.files.size(); ++i) {
            const RankProfile& profile = source->take(done);
            sparse.assign(profile.histograms);
            writer.add(dump.files[i].first, dump.files[i].second, profile, sparse);
            source->release(done);
            if (progress) progress(++done, total);
          }
        } else {
          // Files are read and parsed on worker threads while this one adds them to the file.
          ParallelReader reader(dump, static_cast<unsigned>(std::min<std::size_t>(workers, dump.files.size())));
          for (std::size_t i = 0; i < dump.files.size(); ++i) {
            writer.add(dump.files[i].first, dump.files[i].second, reader.take(i));
            reader.release(i);
            if (progress) progress(++done, total);
          }
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
