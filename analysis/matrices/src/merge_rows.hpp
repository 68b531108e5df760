#pragma once
// What the serial merge (merge.cpp) and the parallel writer (merge_parallel/) share: the rows a
// dump's files add up to before they are written, and the pieces of the file's layout. Internal:
// merge_parallel/ compiles these sources a second time, against the parallel HDF5 library.

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "mpimon/matrices/h5.hpp"
#include "mpimon/matrices/matrix_file.hpp"
#include "mpimon/matrices/merge.hpp"

namespace mpimon::merge_detail {

std::uint64_t checked_add(std::uint64_t a, std::uint64_t b, const std::string& path, std::size_t line,
                          const char* what);

/// Rows of one traffic class, appended rank by rank in increasing rank order: a CSR matrix
/// whose row offsets are only known for the ranks that had a file.
struct ClassRows {
  std::vector<std::uint32_t> indices;
  std::vector<std::uint64_t> counts;
  std::vector<std::uint64_t> bytes;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> row_ends;  // (rank, end offset)

  [[nodiscard]] const std::vector<std::uint64_t>& values(Metric m) const { return m == Metric::count ? counts : bytes; }

  /// indptr[r + 1] for r in [first, last): `base` plus the end of the last row at or before r
  /// (`base` before the first). The whole CSR indptr is {0} followed by ends_between(0, n, 0).
  [[nodiscard]] std::vector<std::uint64_t> ends_between(std::uint32_t first, std::uint32_t last,
                                                        std::uint64_t base) const;
  /// The n + 1 row offsets of the CSR form.
  [[nodiscard]] std::vector<std::uint64_t> indptr(std::uint32_t n) const;
};

/// The non-zero buckets of a file's histograms, in the order of RankProfile::histograms: those
/// of histogram k are bucket/count[ends[k-1]:ends[k]]. `assign` starts afresh, `append` adds a
/// file's after those already held (ends count from the first bucket held).
struct SparseHistograms {
  std::vector<std::uint8_t> bucket;
  std::vector<std::uint64_t> count;
  std::vector<std::uint32_t> ends;

  void assign(const std::vector<PeerHistogram>& histograms);
  void append(const std::vector<PeerHistogram>& histograms);
};

/// Where the highest peer of the files without an MPI_COMM_WORLD line was seen.
struct PeerSighting {
  std::uint32_t peer = 0;
  std::string path;
  std::size_t line = 0;
};

/// MPI_COMM_WORLD's size as the files of a dump say it, checked file by file in plan order.
struct WorldSize {
  std::optional<std::uint32_t> size;
  std::string first_source;  ///< the first file that gave `size`
  std::string source;        ///< the last file that gave `size`
  std::optional<PeerSighting> highest_peer;
  std::uint32_t highest_rank = 0;

  void note(std::uint32_t rank, const RankProfile& profile, const std::string& path);
  /// Continues with the files that `later` saw, as if noted here one by one after these (the
  /// parallel merge joins its processes' shares in order).
  void follow(const WorldSize& later);
  /// The dump's number of processes: its MPI_COMM_WORLD line's, else `stated` (--nprocs), else
  /// the highest rank or peer + 1 up to kMaxInferredProcesses; a rank or a peer outside it, or a
  /// stated size the files contradict, is an input error.
  [[nodiscard]] std::uint32_t resolve(const DumpInputs& inputs, std::optional<std::uint32_t> stated) const;

 private:
  [[nodiscard]] std::uint32_t inferred(const DumpInputs& inputs, std::optional<std::uint32_t> stated) const;
  void check_within(std::uint32_t n, const DumpInputs& inputs, const std::string& from) const;
};

/// The communicator table of a dump: each distinct (name, members) once, in order of first sight.
struct CommunicatorTable {
  std::map<std::pair<std::string, std::vector<std::uint32_t>>, std::uint64_t> index_of;
  std::vector<std::string> names;
  std::vector<std::int64_t> members;
  std::vector<std::int64_t> members_indptr{0};

  /// The index of (name, members), added when new.
  std::uint64_t index(const std::string& name, const std::vector<std::uint32_t>& members);
  /// Whether entry k is (name, members): every file repeats the previous one's communicators,
  /// which are compared first.
  [[nodiscard]] bool holds(std::uint64_t k, const std::string& name, const std::vector<std::uint32_t>& members) const;
  [[nodiscard]] std::vector<std::uint32_t> members_of(std::uint64_t k) const;

 private:
  // The last large entry found again, as 32-bit members: the next file's list (MPI_COMM_WORLD's,
  // in every file) is compared with it at memcmp speed instead of widening each member.
  mutable std::vector<std::uint32_t> recent_members_;
  mutable std::uint64_t recent_entry_ = ~std::uint64_t{0};
};

inline constexpr std::array<const char*, 8> kCommColumns = {"comm",      "rank",      "o2a_count", "o2a_bytes",
                                                            "a2o_count", "a2o_bytes", "a2a_count", "a2a_bytes"};

/// Everything a dump's files (or a contiguous share of them) add up to, histograms aside.
struct DumpRows {
  std::array<ClassRows, kTrafficClassCount> classes;
  std::array<ClassTotals, kTrafficClassCount> totals{};
  WorldSize world;
  CommunicatorTable communicators;
  std::vector<std::uint64_t> comm_rows;  ///< kCommColumns.size() values per record
  std::vector<std::uint32_t> ranks_present;
  bool internal_distinguished = false;
  std::size_t histograms = 0;

  /// `expected_files`: room is reserved for that many files like the first.
  void add(std::uint32_t rank, const std::string& path, const RankProfile& profile, std::size_t expected_files);

 private:
  void reserve_like(const RankProfile& first, std::size_t files);
  std::vector<std::uint64_t> previous_comms_;  // table indices of the last file's communicators
};

/// The dump's layout: CSR or dense.
bool uses_csr(const MergeOptions& options, std::uint32_t n);

/// Rows per chunk of the histogram datasets (and per write of the serial merge): 1 MiB of pairs.
inline constexpr hsize_t kHistogramChunkRows = 1u << 17;
/// Dense matrices are written by blocks of about 1 MiB of rows.
std::uint32_t dense_block_rows(std::uint32_t n);
/// Rows [first, first + count) of a dense n x n matrix from CSR rows, into `buffer`.
void fill_dense_rows(std::uint32_t first, std::uint32_t count, std::uint32_t n, std::span<const std::uint64_t> indptr,
                     std::span<const std::uint32_t> indices, std::span<const std::uint64_t> values,
                     std::vector<std::uint64_t>& buffer);

std::string utc_now();

/// A failure to write `output` as the user reads it: `message` (HDF5's, which names an object of the
/// file) after the file's name, and "no space left on device" when its file system is full (HDF5's
/// MPI-IO driver says only "file write failed"). Call it before the temporary file is removed.
std::string write_failure(const std::string& output, const std::string& message);

void write_root_attributes(hid_t file, const MergeOptions& options, const std::string& created_utc);
void write_histogram_attributes(hid_t histogram_group);
void write_csr_attributes(hid_t group, std::uint32_t n);
void write_comm_columns(hid_t records);
void write_dump_attributes(hid_t group, std::uint32_t n, const std::vector<std::uint32_t>& ranks_present,
                           bool internal_distinguished, const DumpInputs& inputs, bool csr);

/// The summary of a dump once written.
DumpSummary summary_of(const DumpInputs& inputs, const DumpRows& rows, std::uint32_t n, bool csr);

}  // namespace mpimon::merge_detail
