#pragma once
// The `mpimon-matrices` HDF5 file (docs/matrices-format.md): names, and a reader.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mpimon/matrices/matrix.hpp"
#include "mpimon/matrices/prof.hpp"

namespace mpimon {

inline constexpr std::string_view kMatricesFormat = "mpimon-matrices";
inline constexpr std::uint64_t kMatricesFormatVersion = 2;
/// The oldest format version MatrixFile reads (version 1 stores histograms dense, K x 66).
inline constexpr std::uint64_t kMatricesOldestReadableVersion = 1;

/// The `format` attribute of an HDF5 file's root ("" when it has none); throws if the file is not
/// readable HDF5. Tells mpimon's file kinds apart.
std::string hdf5_format_of(const std::string& path);

enum class Metric { count, bytes };
std::string_view metric_name(Metric m);

/// Attributes of one dump group.
struct DumpInfo {
  std::string name;
  std::uint32_t nprocs = 0;
  std::vector<std::uint64_t> ranks_present;
  bool internal_distinguished = false;
  std::vector<std::string> source_files;
  std::string layout;  ///< "dense" or "csr"
};

/// One row of the collective records table: what rank `rank` recorded on communicator `comm`.
struct CommunicatorRow {
  std::uint64_t comm;
  std::uint64_t rank;
  CollectiveTotals one_to_all, all_to_one, all_to_all;
};

struct CommunicatorTable {
  std::vector<std::string> names;
  std::vector<std::vector<std::uint64_t>> members;  ///< world ranks per communicator
  std::vector<CommunicatorRow> rows;
};

struct HistogramTable {
  std::vector<std::uint64_t> pairs;   ///< K x 2, row-major: rank, peer
  std::vector<std::uint64_t> counts;  ///< K x 66, row-major
  [[nodiscard]] std::size_t size() const { return pairs.size() / 2; }
};

/// Read access to an mpimon-matrices file. Errors name the file and the HDF5 object.
class MatrixFile {
 public:
  explicit MatrixFile(const std::string& path);
  ~MatrixFile();
  MatrixFile(MatrixFile&&) noexcept;
  MatrixFile& operator=(MatrixFile&&) noexcept;

  [[nodiscard]] const std::string& path() const;
  [[nodiscard]] std::string generator() const;
  /// A string-list attribute of the root (e.g. `collected_classes`); empty when the file has none.
  [[nodiscard]] std::vector<std::string> root_strings(const std::string& name) const;
  /// A string attribute of the root; "" when absent.
  [[nodiscard]] std::string root_string(const std::string& name) const;
  [[nodiscard]] std::vector<std::string> dumps() const;
  [[nodiscard]] DumpInfo info(const std::string& dump) const;
  [[nodiscard]] SparseMatrix matrix(const std::string& dump, TrafficClass c, Metric m) const;
  /// The histograms of all pairs, expanded to K x 66 whatever the file's version.
  [[nodiscard]] HistogramTable histograms(const std::string& dump) const;
  /// K, the number of pairs with a histogram, without reading the histograms.
  [[nodiscard]] std::size_t histogram_count(const std::string& dump) const;
  /// The file's format_version (1 or 2: see docs/matrices-format.md).
  [[nodiscard]] std::uint64_t format_version() const;
  [[nodiscard]] CommunicatorTable communicators(const std::string& dump) const;
  /// The dump to use when the user named none: the only one, else an error listing them.
  [[nodiscard]] std::string default_dump() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mpimon
