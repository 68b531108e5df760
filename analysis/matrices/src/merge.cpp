#include "mpimon/matrices/merge.hpp"

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

#include "merge_rows.hpp"
#include "mpimon/base/error.hpp"
#include "mpimon/base/output.hpp"
#include "mpimon/matrices/h5.hpp"
#include "mpimon/matrices/matrix_file.hpp"

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

using merge_detail::SparseHistograms;

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

/// Adds a dump's files to the file as they come (histograms are appended straight to their
/// datasets) and writes the matrices, the communicators and the attributes at the end.
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
    rows_.add(rank, path, file.profile, inputs_.files.size());
    add_histograms(rank, file.profile, file.histograms);
  }

  DumpSummary finish() {
    const std::uint32_t n = rows_.world.resolve(inputs_, options_.nprocs);
    histogram_pairs_.finish();
    histogram_indptr_.finish();
    histogram_bucket_.finish();
    histogram_count_.finish();
    merge_detail::write_histogram_attributes(histogram_group_.get());
    const bool csr = merge_detail::uses_csr(options_, n);
    for (TrafficClass c : kAllTrafficClasses) write_class(c, n, csr);
    write_communicators();
    merge_detail::write_dump_attributes(group_.get(), n, rows_.ranks_present, rows_.internal_distinguished, inputs_,
                                        csr);
    return merge_detail::summary_of(inputs_, rows_, n, csr);
  }

 private:
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
  }

  void write_class(TrafficClass c, std::uint32_t n, bool csr) {
    const merge_detail::ClassRows& rows = rows_.classes[static_cast<std::size_t>(c)];
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
    const std::uint32_t block = merge_detail::dense_block_rows(n);
    for (std::uint32_t first = 0; first < n; first += block) {
      std::uint32_t count = std::min(block, n - first);
      merge_detail::fill_dense_rows(first, count, n, indptr, indices, values, buffer);
      h5::write_rows(ds.get(), first, count, n, buffer, where + "/" + name);
    }
  }

  static void write_csr(hid_t parent, const std::string& name, std::uint32_t n,
                        const std::vector<std::uint64_t>& indptr, const std::vector<std::uint32_t>& indices,
                        const std::vector<std::uint64_t>& values, const std::string& where) {
    h5::Handle g = h5::create_group(parent, name, where);
    merge_detail::write_csr_attributes(g.get(), n);
    std::string path = where + "/" + name;
    const hsize_t dims[] = {values.size()};
    h5::write_dataset(g.get(), "data", dims, values, path);
    std::vector<std::int64_t> wide_indices(indices.begin(), indices.end());
    h5::write_dataset(g.get(), "indices", wide_indices, path);
    std::vector<std::int64_t> wide_indptr(indptr.begin(), indptr.end());
    h5::write_dataset(g.get(), "indptr", wide_indptr, path);
  }

  void write_communicators() {
    const merge_detail::CommunicatorTable& table = rows_.communicators;
    std::string where = where_ + "/communicators";
    h5::Handle g = h5::create_group(group_.get(), "communicators", where_);
    h5::write_strings(g.get(), "names", table.names, where);
    h5::write_dataset(g.get(), "members", table.members, where);
    h5::write_dataset(g.get(), "members_indptr", table.members_indptr, where);
    const std::size_t columns = merge_detail::kCommColumns.size();
    const hsize_t dims[] = {rows_.comm_rows.size() / columns, columns};
    h5::write_dataset(g.get(), "records", dims, rows_.comm_rows, where);
    h5::Handle records = h5::open_dataset(g.get(), "records", where);
    merge_detail::write_comm_columns(records.get());
  }

  static constexpr hsize_t kChunkRows = merge_detail::kHistogramChunkRows;

  const DumpInputs& inputs_;
  const MergeOptions& options_;
  std::string where_;
  h5::Handle group_;
  h5::Handle histogram_group_;
  h5::RowAppender<std::uint32_t> histogram_pairs_;
  h5::RowAppender<std::int64_t> histogram_indptr_;
  h5::RowAppender<std::uint8_t> histogram_bucket_;
  h5::RowAppender<std::uint64_t> histogram_count_;
  merge_detail::DumpRows rows_;
  std::vector<std::uint64_t> dense_buffer_;
};

/// Parsing is most of the work, and this thread only adds parsed files to the HDF5 file: one
/// reader thread per core, at most 4 (beyond that, this thread becomes the bottleneck).
unsigned default_reader_threads() { return std::clamp(std::thread::hardware_concurrency(), 1u, 4u); }

}  // namespace

std::vector<DumpSummary> merge_prof_files(const std::vector<std::string>& paths, const std::string& output,
                                          const MergeOptions& options, const MergeProgress& progress) {
  if (paths.empty()) raise_error(Error::Kind::input, "", "no input files");
  const std::vector<DumpInputs> dumps = plan_dumps(paths);
  if (fs::is_directory(output)) raise_error(Error::Kind::input, output, "output is a directory");
  std::size_t total = 0;
  for (const auto& dump : dumps) total += dump.files.size();

  AtomicOutput out(output);  // removed on failure and on Ctrl-C
  std::vector<DumpSummary> summaries;
  try {
    h5::Handle file = h5::create_file(out.temporary());
    merge_detail::write_root_attributes(file.get(), options, merge_detail::utc_now());
    std::size_t done = 0;
    const unsigned workers = options.threads != 0 ? options.threads : default_reader_threads();
    for (const auto& dump : dumps) {
      DumpWriter writer(file.get(), dump, options);
      // Files are read and parsed on worker threads while this one adds them to the file.
      ParallelReader reader(dump, static_cast<unsigned>(std::min<std::size_t>(workers, dump.files.size())));
      for (std::size_t i = 0; i < dump.files.size(); ++i) {
        writer.add(dump.files[i].first, dump.files[i].second, reader.take(i));
        reader.release(i);
        if (progress) progress(++done, total);
      }
      summaries.push_back(writer.finish());
    }
    h5::flush(file.get(), output);
    file.reset();
    out.commit();
  } catch (const Error& e) {
    // HDF5's and the file system's errors are the output's (the reader's are input errors).
    if (e.kind() == Error::Kind::system)
      throw Error(Error::Kind::system, merge_detail::write_failure(output, e.what()));
    throw;
  }
  return summaries;
}

}  // namespace mpimon
