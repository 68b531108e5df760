#pragma once
// Merges per-rank .prof files into one mpimon-matrices HDF5 file.

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mpimon/matrices/prof.hpp"

namespace mpimon {

enum class MatrixLayout { automatic, dense, csr };

struct MergeOptions {
  MatrixLayout layout = MatrixLayout::automatic;
  /// With the automatic layout, dumps of more processes than this are stored as CSR.
  std::uint32_t csr_above = 2048;
  std::string generator;  ///< recorded in the root attribute `generator`
  /// More string-list attributes of the root (e.g. `mpimon collect`'s collected_classes).
  std::vector<std::pair<std::string, std::vector<std::string>>> root_string_lists;
  /// More string attributes of the root (e.g. the run's `open_mpi_version`).
  std::vector<std::pair<std::string, std::string>> root_strings;
  /// Threads that read and parse the input files; 0: one per core, at most 4.
  unsigned threads = 0;
  /// The size of MPI_COMM_WORLD for dumps whose files have no MPI_COMM_WORLD line (a run without
  /// coll monitoring); unset: the highest rank or peer + 1, refused above kMaxInferredProcesses.
  std::optional<std::uint32_t> nprocs;
};

/// Without an MPI_COMM_WORLD line, the largest size a peer rank may imply: the matrices hold
/// nprocs + 1 row offsets per class and metric (80 bytes a process), so one line naming rank
/// 2^31 - 2 would make 160 GiB from a few bytes. Larger runs state their size (MergeOptions::nprocs).
inline constexpr std::uint32_t kMaxInferredProcesses = 1u << 20;

struct ClassTotals {
  std::uint64_t messages = 0;
  std::uint64_t bytes = 0;
  std::uint64_t pairs = 0;  ///< directed pairs with a line of this class
};

struct DumpSummary {
  std::string name;
  std::uint32_t nprocs = 0;
  std::size_t ranks_present = 0;
  bool internal_distinguished = false;
  std::array<ClassTotals, kTrafficClassCount> totals{};
  std::size_t histograms = 0;
  std::size_t communicators = 0;
  std::string layout;
};

/// One dump's input files, sorted by rank.
struct DumpInputs {
  std::string name;
  std::vector<std::pair<std::uint32_t, std::string>> files;  ///< (rank, path)
};

/// The input files that command-line arguments name: a file stands for itself, a directory for
/// every `NAME.RANK.prof` directly inside it (other names are skipped; plan_dumps sorts them by
/// dump and rank). An existing directory without such a file is an input error.
std::vector<std::string> expand_input_paths(const std::vector<std::string>& arguments);

/// The paths listed in `text`, one per line (blank lines skipped, trailing `\r` removed), each
/// checked to exist: a missing one is an input error naming `list_name` and the line. `list_name`
/// is the list's path, or "-" / "standard input" for what was read from stdin.
std::vector<std::string> parse_path_list(std::string_view text, const std::string& list_name);

/// Reads a list of paths from `list` ("-": standard input) as parse_path_list does.
std::vector<std::string> read_path_list(const std::string& list);

/// Groups paths by dump name (sorted by name) and rank; rejects names that are not NAME.RANK.prof,
/// files that do not exist, and two files for the same rank of the same dump.
std::vector<DumpInputs> plan_dumps(const std::vector<std::string>& paths);

/// Called after each input file: files done, files in all.
using MergeProgress = std::function<void(std::size_t done, std::size_t total)>;

/// Reads every file and writes `output`. The file is written under a temporary name in the same
/// directory and renamed at the end; on any error nothing is left at `output` (nor the temporary).
std::vector<DumpSummary> merge_prof_files(const std::vector<std::string>& paths, const std::string& output,
                                          const MergeOptions& options, const MergeProgress& progress = {});

}  // namespace mpimon
