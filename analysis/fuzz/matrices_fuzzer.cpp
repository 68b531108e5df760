// libFuzzer target for the reader of mpimon-matrices HDF5 files (MatrixFile, and
// RecordedTraffic::read on top of it): every reading call on corrupted and truncated files.
// The input is the file's bytes, written to a temporary file of this process and opened the way
// every command opens a file, so seeds are real .h5 files and every reproducer opens in `mpimon`.
// Each reading call is tried on its own, so that one bad object does not hide the others. Nothing is
// skipped: the reader checks every variable-length string against the file's global heap before
// libhdf5 reads it (analysis/matrices/src/h5_sizes.hpp), so libhdf5's overflow on a string whose
// stored length and heap object disagree is no longer reached. Run through ci/fuzz.sh.

#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz_check.hpp"
#include "mpimon/base/error.hpp"
#include "mpimon/base/scratch.hpp"
#include "mpimon/checks/ledger_check.hpp"
#include "mpimon/matrices/matrix_file.hpp"

namespace {

// Runs one reading call; a documented error is an answer, any other exception escapes (a crash).
template <typename Fn>
void attempt(Fn&& fn) {
  try {
    fn();
  } catch (const mpimon::Error&) {
  }
}

void check_matrix(const mpimon::SparseMatrix& m, std::uint32_t n) {
  FUZZ_CHECK(m.rows == n && m.columns == n);
  FUZZ_CHECK(m.indptr.size() == std::size_t{n} + 1 && m.indptr.front() == 0);
  FUZZ_CHECK(m.indptr.back() == m.values.size() && m.indices.size() == m.values.size());
  for (std::uint32_t i = 0; i < n; ++i) {
    FUZZ_CHECK(m.indptr[i] <= m.indptr[i + 1]);
    for (auto k = m.indptr[i]; k < m.indptr[i + 1]; ++k) {
      // Columns in range and increasing within a row: at() and every walk rely on it.
      FUZZ_CHECK(m.indices[k] < n);
      FUZZ_CHECK(k == m.indptr[i] || m.indices[k - 1] < m.indices[k]);
    }
  }
}

void read_dump(const mpimon::MatrixFile& file, const std::string& dump) {
  std::uint32_t n = 0;
  attempt([&] {
    const mpimon::DumpInfo info = file.info(dump);
    FUZZ_CHECK(info.nprocs > 0);
    n = info.nprocs;
  });
  if (n != 0) {
    for (mpimon::TrafficClass c : mpimon::kAllTrafficClasses) {
      for (mpimon::Metric m : {mpimon::Metric::count, mpimon::Metric::bytes}) {
        attempt([&] { check_matrix(file.matrix(dump, c, m), n); });
      }
    }
  }
  attempt([&] {
    const mpimon::HistogramTable h = file.histograms(dump);
    FUZZ_CHECK(h.pairs.size() % 2 == 0 && h.counts.size() == h.size() * mpimon::kHistogramBuckets);
  });
  attempt([&] { (void)file.histogram_count(dump); });
  attempt([&] {
    const mpimon::CommunicatorTable t = file.communicators(dump);
    FUZZ_CHECK(t.members.size() == t.names.size());
    // Every record names a communicator of the table: the ledger comparison indexes names by it.
    for (const auto& row : t.rows) FUZZ_CHECK(row.comm < t.names.size());
  });
  attempt([&] { (void)mpimon::RecordedTraffic::read(file, dump); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // One file per input, removed when it is read: the replay test may run beside the fuzzer, and
  // libFuzzer ends with _Exit, which would leave a file kept for the whole process behind.
  const mpimon::TemporaryFile input("fuzz");
  const std::string& path = input.path();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out.flush()) __builtin_trap();  // the machine's fault, not the reader's: stop loudly
  }
  attempt([&] { (void)mpimon::hdf5_format_of(path); });
  attempt([&] {
    const mpimon::MatrixFile file(path);
    (void)file.generator();
    (void)file.root_strings("collected_classes");
    (void)file.format_version();
    attempt([&] { (void)file.default_dump(); });
    std::vector<std::string> dumps = file.dumps();
    dumps.resize(std::min<std::size_t>(dumps.size(), 4));  // enough to reach every code path
    for (const auto& d : dumps) read_dump(file, d);
  });
  // Every HDF5 object the reader opened is closed again, whichever way it left.
  FUZZ_CHECK(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) == 0);
  std::filesystem::remove(path);
  return 0;
}
