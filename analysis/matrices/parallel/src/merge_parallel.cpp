// mpimon-merge under an MPI launcher. Reading and parsing the .prof files is most of a merge at
// scale (every file repeats MPI_COMM_WORLD's procs: list), so it is split over the processes:
// process k parses the k-th contiguous share of the files (in plan order, which is rank order
// within a dump) into its own rows, and all processes then write the one output file together
// with parallel HDF5, each its own rows and non-zeros (share_writer.cpp).

#include "mpimon/matrices/merge_parallel.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "exchange.hpp"
#include "merge_rows.hpp"
#include "mpimon/base/error.hpp"
#include "mpimon/base/output.hpp"
#include "share_writer.hpp"

namespace mpimon {

namespace {

using namespace parallel_detail;

std::vector<std::string> share_file_list(const std::function<std::vector<std::string>()>& list_files, unsigned rank) {
  Outcome outcome;
  std::vector<std::string> files;
  if (rank == 0) {
    try {
      files = list_files();
    } catch (...) {
      outcome = Outcome::of_current_exception();
    }
  }
  share_outcome(outcome);
  Packer p;
  p.put_strings(files);
  broadcast_bytes(p.bytes());
  if (rank != 0) {
    Unpacker u(p.bytes());
    files = u.get_strings();
  }
  return files;
}

std::size_t share_begin(std::size_t files, unsigned processes, unsigned k) { return files * k / processes; }

/// Rank 0 creates the temporary file next to `output` (before anything is read, as the serial
/// merge does) in `out`, and every process learns its name.
std::string shared_temporary(const std::string& output, unsigned rank, std::optional<AtomicOutput>& out) {
  Outcome outcome;
  std::string temporary;
  if (rank == 0) {
    try {
      if (std::filesystem::is_directory(output)) raise_error(Error::Kind::input, output, "output is a directory");
      temporary = out.emplace(output).temporary();
    } catch (...) {
      outcome = Outcome::of_current_exception();
    }
  }
  share_outcome(outcome);
  Packer p;
  p.put_string(temporary);
  broadcast_bytes(p.bytes());
  Unpacker u(p.bytes());
  return u.get_string();
}

}  // namespace

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

std::vector<DumpSummary> ParallelMerge::merge(const std::function<std::vector<std::string>()>& list_files,
                                              const std::string& output, const MergeOptions& options,
                                              const MergeProgress& progress) const {
  const std::vector<std::string> paths = share_file_list(list_files, rank);
  // Every process plans the same dumps from the same list (and fails alike on a bad list).
  if (paths.empty()) raise_error(Error::Kind::input, "", "no input files");
  const std::vector<DumpInputs> dumps = plan_dumps(paths);
  std::size_t total = 0;
  for (const auto& d : dumps) total += d.files.size();

  std::optional<AtomicOutput> out;  // rank 0's: removed on failure and on Ctrl-C
  const std::string temporary = shared_temporary(output, rank, out);
  // This process's share of the files, parsed; the first error stops it. Rank 0's progress
  // through its share stands for all (100 % once the file is written).
  const std::size_t first = share_begin(total, size, rank), last = share_begin(total, size, rank + 1);
  auto report = [&](std::size_t done) {
    if (rank == 0 && progress) progress(std::min(total - 1, done * total / std::max<std::size_t>(last, 1)), total);
  };
  std::vector<DumpShare> shares = read_share(dumps, first, last, report);
  std::vector<DumpSummary> summaries = write_shares(dumps, shares, temporary, output, out ? &*out : nullptr, options);
  if (rank == 0 && progress) progress(total, total);
  return summaries;
}

int run_parallel_merge(int& argc, char**& argv, const std::function<int(const ParallelMerge&)>& body) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  report_from_rank_zero(std::filesystem::path(argv[0]).filename().string());
  const int code = body(ParallelMerge{static_cast<unsigned>(rank), static_cast<unsigned>(size)});
  std::fflush(stdout);
  MPI_Finalize();
  return code;
}

}  // namespace mpimon
