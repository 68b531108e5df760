// mpimon-merge under an MPI launcher. Reading and parsing the .prof files is most of a merge at
// scale (every file repeats MPI_COMM_WORLD's procs: list), so it is split over the processes:
// process k parses the k-th contiguous share of the files (in plan order) into one buffer while
// the others do the same, and rank 0 takes the shares in order and writes the one output file
// through the serial merge's own writer (merge_planned). The output, and the first error, are
// those of the serial merge by construction.

#include "mpimon/merge_parallel.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>

#include "mpimon/error.hpp"

namespace mpimon::parallel {

namespace {

// ---- a byte buffer of plain values ------------------------------------------------------------

class Packer {
 public:
  template <typename T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const char*>(&v);
    bytes_.insert(bytes_.end(), p, p + sizeof v);
  }
  void put_string(const std::string& s) {
    put<std::uint64_t>(s.size());
    bytes_.insert(bytes_.end(), s.begin(), s.end());
  }
  template <typename T>
  void put_vector(const std::vector<T>& v) {
    put<std::uint64_t>(v.size());
    const auto* p = reinterpret_cast<const char*>(v.data());
    bytes_.insert(bytes_.end(), p, p + v.size() * sizeof(T));
  }
  std::vector<char>& bytes() { return bytes_; }

 private:
  std::vector<char> bytes_;
};

class Unpacker {
 public:
  explicit Unpacker(const std::vector<char>& bytes) : bytes_(bytes) {}
  template <typename T>
  T get() {
    T v;
    std::memcpy(&v, bytes_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  std::string get_string() {
    const auto n = get<std::uint64_t>();
    std::string s(bytes_.data() + at_, n);
    at_ += n;
    return s;
  }
  template <typename T>
  void get_vector(std::vector<T>& v) {
    const auto n = get<std::uint64_t>();
    v.resize(n);
    std::memcpy(v.data(), bytes_.data() + at_, n * sizeof(T));
    at_ += n * sizeof(T);
  }

 private:
  const std::vector<char>& bytes_;
  std::size_t at_ = 0;
};

/// Every file repeats the communicators of the previous one (MPI_COMM_WORLD's members at least:
/// N numbers per file, N^2 in all): a member list equal to the previous file's at the same
/// position is sent as a flag, and the receiver keeps the list it already has there.
void pack(const RankProfile& p, const RankProfile* previous, Packer& out) {
  out.put(p.rank);
  out.put_vector(p.pairs);
  out.put_vector(p.histograms);
  out.put<std::uint64_t>(p.communicators.size());
  for (std::size_t k = 0; k < p.communicators.size(); ++k) {
    const auto& c = p.communicators[k];
    out.put_string(c.name);
    const bool repeated =
        previous != nullptr && k < previous->communicators.size() && previous->communicators[k].members == c.members;
    out.put<std::uint8_t>(repeated);
    if (!repeated) out.put_vector(c.members);
    out.put(c.one_to_all);
    out.put(c.all_to_one);
    out.put(c.all_to_all);
    out.put(c.line);
  }
  out.put<std::uint8_t>(p.world_size.has_value());
  out.put(p.world_size.value_or(0));
  out.put<std::uint8_t>(p.has_internal_lines);
}

void unpack(Unpacker& in, RankProfile& p) {
  p.rank = in.get<std::uint32_t>();
  in.get_vector(p.pairs);
  in.get_vector(p.histograms);
  // `p` still holds the previous file of the share: a repeated member list is already in place.
  p.communicators.resize(in.get<std::uint64_t>());
  for (auto& c : p.communicators) {
    c.name = in.get_string();
    if (in.get<std::uint8_t>() == 0) in.get_vector(c.members);
    c.one_to_all = in.get<CollectiveTotals>();
    c.all_to_one = in.get<CollectiveTotals>();
    c.all_to_all = in.get<CollectiveTotals>();
    c.line = in.get<std::size_t>();
  }
  const bool has_world = in.get<std::uint8_t>() != 0;
  const auto world = in.get<std::uint32_t>();
  p.world_size = has_world ? std::optional<std::uint32_t>(world) : std::nullopt;
  p.has_internal_lines = in.get<std::uint8_t>() != 0;
}

// ---- outcomes shared by every process -----------------------------------------------------------

/// An error as it crosses processes: its kind (or none) and its message.
struct Outcome {
  bool failed = false;
  Error::Kind kind = Error::Kind::input;
  std::string message;

  static Outcome of_current_exception() {
    try {
      throw;
    } catch (const Error& e) {
      return {true, e.kind(), e.what()};
    } catch (const std::exception& e) {
      return {true, Error::Kind::system, e.what()};
    }
  }
  [[noreturn]] void raise() const { throw Error(kind, message); }
};

constexpr int kTagSize = 1;
constexpr int kTagData = 2;
constexpr std::size_t kMaxMessage = std::size_t{1} << 30;  // MPI counts are int

void send_bytes(const std::vector<char>& bytes, int to) {
  const std::uint64_t size = bytes.size();
  MPI_Send(&size, 1, MPI_UINT64_T, to, kTagSize, MPI_COMM_WORLD);
  for (std::size_t at = 0; at < bytes.size(); at += kMaxMessage) {
    const int n = static_cast<int>(std::min(kMaxMessage, bytes.size() - at));
    MPI_Send(bytes.data() + at, n, MPI_CHAR, to, kTagData, MPI_COMM_WORLD);
  }
}

std::vector<char> receive_bytes(int from) {
  std::uint64_t size = 0;
  MPI_Recv(&size, 1, MPI_UINT64_T, from, kTagSize, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  std::vector<char> bytes(size);
  for (std::size_t at = 0; at < bytes.size(); at += kMaxMessage) {
    const int n = static_cast<int>(std::min(kMaxMessage, bytes.size() - at));
    MPI_Recv(bytes.data() + at, n, MPI_CHAR, from, kTagData, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  return bytes;
}

void broadcast_bytes(std::vector<char>& bytes) {
  std::uint64_t size = bytes.size();
  MPI_Bcast(&size, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  bytes.resize(size);
  for (std::size_t at = 0; at < bytes.size(); at += kMaxMessage) {
    const int n = static_cast<int>(std::min(kMaxMessage, bytes.size() - at));
    MPI_Bcast(bytes.data() + at, n, MPI_CHAR, 0, MPI_COMM_WORLD);
  }
}

/// Rank 0's outcome, made every process's: the others throw the same kind of error.
void share_outcome(const Outcome& mine) {
  Packer p;
  p.put<std::uint8_t>(mine.failed);
  p.put(mine.kind);
  p.put_string(mine.message);
  broadcast_bytes(p.bytes());
  Unpacker u(p.bytes());
  Outcome shared;
  shared.failed = u.get<std::uint8_t>() != 0;
  shared.kind = u.get<Error::Kind>();
  shared.message = u.get_string();
  if (shared.failed) shared.raise();
}

// ---- the shares ---------------------------------------------------------------------------------

/// Files [first, last) of the plan, parsed: a header (how many parsed, and the error that stopped
/// the share, if any), then the profiles.
std::vector<char> parse_share(const std::vector<std::pair<std::uint32_t, std::string>>& files, std::size_t first,
                              std::size_t last) {
  Packer body;
  ProfReader reader;
  RankProfile profiles[2];  // this file's and the previous one's
  std::uint64_t parsed = 0;
  Outcome outcome;
  for (std::size_t i = first; i < last; ++i) {
    RankProfile& profile = profiles[parsed % 2];
    try {
      reader.read(files[i].second, files[i].first, profile);
    } catch (...) {
      outcome = Outcome::of_current_exception();
      break;
    }
    pack(profile, parsed > 0 ? &profiles[(parsed + 1) % 2] : nullptr, body);
    ++parsed;
  }
  Packer share;
  share.put(parsed);
  share.put<std::uint8_t>(outcome.failed);
  share.put(outcome.kind);
  share.put_string(outcome.message);
  share.bytes().insert(share.bytes().end(), body.bytes().begin(), body.bytes().end());
  return share.bytes();
}

std::size_t share_begin(std::size_t files, unsigned processes, unsigned k) { return files * k / processes; }

/// Rank 0's view of the shares, taken in file order: share k is received from process k when its
/// first file is needed; a file that failed to parse rethrows its error there.
class SharesSource : public ProfileSource {
 public:
  SharesSource(std::vector<char> own, std::size_t files, unsigned processes)
      : files_(files), processes_(processes), bytes_(std::move(own)) {
    open();
  }

  const RankProfile& take(std::size_t index) override {
    while (index >= share_begin(files_, processes_, share_ + 1)) next_share();
    if (taken_ == parsed_) error_.raise();  // the file where the share's parsing stopped
    unpack(*unpacker_, profile_);
    ++taken_;
    return profile_;
  }
  void release(std::size_t) override {}

  /// Receives the shares not taken (after an error), so that no process stays blocked sending.
  void drain() {
    while (share_ + 1 < processes_) {
      ++share_;
      (void)receive_bytes(static_cast<int>(share_));
    }
  }

 private:
  void next_share() {
    ++share_;
    bytes_ = receive_bytes(static_cast<int>(share_));
    open();
  }
  void open() {
    unpacker_.emplace(bytes_);
    parsed_ = unpacker_->get<std::uint64_t>();
    error_.failed = unpacker_->get<std::uint8_t>() != 0;
    error_.kind = unpacker_->get<Error::Kind>();
    error_.message = unpacker_->get_string();
    taken_ = 0;
  }

  std::size_t files_;
  unsigned processes_;
  unsigned share_ = 0;
  std::vector<char> bytes_;
  std::optional<Unpacker> unpacker_;
  std::uint64_t parsed_ = 0, taken_ = 0;
  Outcome error_;
  RankProfile profile_;
};

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
  p.put<std::uint64_t>(files.size());
  for (const auto& f : files) p.put_string(f);
  broadcast_bytes(p.bytes());
  if (rank != 0) {
    Unpacker u(p.bytes());
    files.resize(u.get<std::uint64_t>());
    for (auto& f : files) f = u.get_string();
  }
  return files;
}

}  // namespace

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

std::vector<DumpSummary> Processes::merge(const std::function<std::vector<std::string>()>& list_files,
                                          const std::string& output, const MergeOptions& options,
                                          const MergeProgress& progress) const {
  const std::vector<std::string> paths = share_file_list(list_files, rank);
  // Every process plans the same dumps from the same list (and fails alike on a bad list).
  if (paths.empty()) raise_error(Error::Kind::input, "", "no input files");
  const std::vector<DumpInputs> dumps = plan_dumps(paths);
  std::vector<std::pair<std::uint32_t, std::string>> files;
  for (const auto& d : dumps) files.insert(files.end(), d.files.begin(), d.files.end());

  std::vector<char> share =
      parse_share(files, share_begin(files.size(), size, rank), share_begin(files.size(), size, rank + 1));
  if (rank != 0) {
    send_bytes(share, 0);
    share_outcome({});
    return {};
  }
  SharesSource source(std::move(share), files.size(), size);
  Outcome outcome;
  std::vector<DumpSummary> summaries;
  try {
    summaries = merge_planned(dumps, output, options, progress, &source);
  } catch (...) {
    outcome = Outcome::of_current_exception();
    source.drain();
  }
  share_outcome(outcome);
  return summaries;
}

int run(int& argc, char**& argv, const std::function<int(const Processes&)>& body) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank != 0) {  // rank 0 reports for every process
    if (!std::freopen("/dev/null", "w", stdout) || !std::freopen("/dev/null", "w", stderr))
      MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const int code = body(Processes{static_cast<unsigned>(rank), static_cast<unsigned>(size)});
  std::fflush(stdout);
  MPI_Finalize();
  return code;
}

}  // namespace mpimon::parallel
