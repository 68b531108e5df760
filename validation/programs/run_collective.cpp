// Performs exactly one collective on MPI_COMM_WORLD, so that the point-to-point traffic the
// monitoring records is that collective's decomposition and nothing else. The control run
// (--skip) does everything but the collective call: its dump is the baseline to subtract
// (MPI_Init and MPI_Finalize send nothing through the PML with ob1, but the control run proves it
// for each configuration instead of assuming it).
//
//   mpimon-run-collective --op OP --count N --type-size T [--root R] [--skip] [--iterations K]
//
// --iterations K (reduce and allreduce; a timing, for `mpimon bench placement` across nodes): after
// the checked call, K more calls on the same buffers between two barriers, then rank 0 prints
// "seconds per iteration: S" (its time between the barriers / K).
//
// OP is bcast, reduce, allreduce, alltoall, allgather, gather, scatter or barrier. The element
// type is T contiguous bytes (so any type size can be tested) and reductions use a commutative
// user-defined byte-wise sum, which Open MPI treats like MPI_SUM. The algorithm is chosen by
// the caller through Open MPI's MCA parameters (coll_tuned_*). The result is checked, so a run
// in which the forced algorithm misbehaved fails instead of being compared.
// `mpimon validate collective` runs this program; see docs/collectives.md.

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "mpimon/mpi/mpi_support.hpp"

namespace {

using mpimon::mpi::abort_job;
using mpimon::mpi::check;

struct Arguments {
  std::string op;
  long long count = -1;
  long long type_size = 1;
  int root = 0;
  bool skip = false;
  long long iterations = 0;  ///< 0: one call, untimed, nothing else sent
};

long long parse_number(const char* option, const char* text) {
  char* end = nullptr;
  long long value = std::strtoll(text, &end, 10);
  if (*text == '\0' || *end != '\0' || value < 0)
    abort_job(std::string(option) + ": not a non-negative integer: " + text);
  return value;
}

Arguments parse_arguments(int argc, char** argv) {
  Arguments args;
  for (int i = 1; i < argc; ++i) {
    std::string_view option = argv[i];
    if (option == "--skip") {
      args.skip = true;
      continue;
    }
    if (i + 1 >= argc) abort_job("option " + std::string(option) + " needs a value");
    const char* value = argv[++i];
    if (option == "--op") {
      args.op = value;
    } else if (option == "--count") {
      args.count = parse_number(argv[i - 1], value);
    } else if (option == "--type-size") {
      args.type_size = parse_number(argv[i - 1], value);
    } else if (option == "--iterations") {
      args.iterations = parse_number(argv[i - 1], value);
    } else if (option == "--root") {
      args.root = static_cast<int>(parse_number(argv[i - 1], value));
    } else {
      abort_job("unknown option " + std::string(option) +
                "; usage: mpimon-run-collective --op OP --count N --type-size T [--root R] [--skip] [--iterations K]");
    }
  }
  if (args.op.empty() || args.count < 0) abort_job("--op and --count are required");
  if (args.count > INT_MAX) abort_job("--count exceeds INT_MAX, the largest count MPI's C interface takes");
  if (args.type_size < 1 || args.type_size > INT_MAX) abort_job("--type-size must be between 1 and INT_MAX");
  return args;
}

/// The byte at offset `i` of block `block` contributed by `rank`: distinct enough that a block
/// delivered to the wrong place, or reduced the wrong number of times, is noticed.
unsigned char pattern(int rank, int block, std::size_t i) {
  return static_cast<unsigned char>(
      (static_cast<std::size_t>(rank) * 31 + static_cast<std::size_t>(block) * 17 + i * 7 + 1) & 0xffU);
}

extern "C" void byte_sum(void* in, void* inout, int* len, MPI_Datatype* type) {
  int type_size = 0;
  MPI_Type_size(*type, &type_size);
  const auto* a = static_cast<const unsigned char*>(in);
  auto* b = static_cast<unsigned char*>(inout);
  const std::size_t bytes = static_cast<std::size_t>(*len) * static_cast<std::size_t>(type_size);
  for (std::size_t i = 0; i < bytes; ++i) b[i] = static_cast<unsigned char>(b[i] + a[i]);
}

/// Everything one call needs: the element type, the reduction, the communicator's shape.
class Collective {
 public:
  Collective(const Arguments& args, int rank, int size)
      : args_(args), rank_(rank), size_(size), block_(static_cast<std::size_t>(args.count * args.type_size)) {
    check(MPI_Type_contiguous(static_cast<int>(args.type_size), MPI_BYTE, &type_), "MPI_Type_contiguous");
    check(MPI_Type_commit(&type_), "MPI_Type_commit");
    check(MPI_Op_create(byte_sum, 1, &sum_), "MPI_Op_create");
  }
  ~Collective() {
    MPI_Op_free(&sum_);
    MPI_Type_free(&type_);
  }
  Collective(const Collective&) = delete;
  Collective& operator=(const Collective&) = delete;

  void run();
  /// K reduce or allreduce calls on the same buffers between two barriers: seconds per call.
  double time_calls(long long iterations);

 private:
  [[nodiscard]] int count() const { return static_cast<int>(args_.count); }
  [[nodiscard]] std::vector<unsigned char> filled(int rank, int block) const {
    std::vector<unsigned char> data(block_);
    for (std::size_t i = 0; i < block_; ++i) data[i] = pattern(rank, block, i);
    return data;
  }
  /// n blocks laid end to end: block b is filled(b, 0) when rank_varies (one block per rank, as
  /// gathered), else filled(rank_of_block0, b) (one rank's blocks for each destination).
  [[nodiscard]] std::vector<unsigned char> blocks(int n, int rank_of_block0, bool rank_varies) const;
  void expect(bool ok, const char* what) const {
    if (!ok) abort_job(std::string(what) + ": wrong result; the collective did not do what MPI specifies");
  }
  [[nodiscard]] std::vector<unsigned char> reduced_sum() const;

  void bcast();
  void reduce(bool all);
  void alltoall();
  void allgather();
  void gather();
  void scatter();

  const Arguments& args_;
  int rank_, size_;
  std::size_t block_;  ///< bytes of `count` elements
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  MPI_Op sum_ = MPI_OP_NULL;
};

std::vector<unsigned char> Collective::blocks(int n, int rank_of_block0, bool rank_varies) const {
  std::vector<unsigned char> data;
  data.reserve(block_ * static_cast<std::size_t>(n));
  for (int b = 0; b < n; ++b) {
    auto part = rank_varies ? filled(b, 0) : filled(rank_of_block0, b);
    data.insert(data.end(), part.begin(), part.end());
  }
  return data;
}

std::vector<unsigned char> Collective::reduced_sum() const {
  std::vector<unsigned char> sum(block_, 0);
  for (int r = 0; r < size_; ++r) {
    auto part = filled(r, 0);
    for (std::size_t i = 0; i < block_; ++i) sum[i] = static_cast<unsigned char>(sum[i] + part[i]);
  }
  return sum;
}

void Collective::bcast() {
  auto data = rank_ == args_.root ? filled(args_.root, 0) : std::vector<unsigned char>(block_, 0);
  check(MPI_Bcast(data.data(), count(), type_, args_.root, MPI_COMM_WORLD), "MPI_Bcast");
  expect(data == filled(args_.root, 0), "MPI_Bcast");
}

void Collective::reduce(bool all) {
  auto mine = filled(rank_, 0);
  std::vector<unsigned char> result(block_, 0);
  if (all) {
    check(MPI_Allreduce(mine.data(), result.data(), count(), type_, sum_, MPI_COMM_WORLD), "MPI_Allreduce");
  } else {
    check(MPI_Reduce(mine.data(), result.data(), count(), type_, sum_, args_.root, MPI_COMM_WORLD), "MPI_Reduce");
  }
  if (all || rank_ == args_.root) expect(result == reduced_sum(), all ? "MPI_Allreduce" : "MPI_Reduce");
}

double Collective::time_calls(long long iterations) {
  if (args_.op != "reduce" && args_.op != "allreduce") abort_job("--iterations times reduce and allreduce only");
  auto mine = filled(rank_, 0);
  std::vector<unsigned char> result(block_, 0);
  check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  const double start = MPI_Wtime();
  for (long long i = 0; i < iterations; ++i) {
    if (args_.op == "allreduce") {
      check(MPI_Allreduce(mine.data(), result.data(), count(), type_, sum_, MPI_COMM_WORLD), "MPI_Allreduce");
    } else {
      check(MPI_Reduce(mine.data(), result.data(), count(), type_, sum_, args_.root, MPI_COMM_WORLD), "MPI_Reduce");
    }
  }
  check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  return (MPI_Wtime() - start) / static_cast<double>(iterations);
}

void Collective::alltoall() {
  // Block j of rank r's send buffer is pattern(r, j): after the call, block i of mine must be
  // pattern(i, me).
  auto send = blocks(size_, rank_, false);
  std::vector<unsigned char> recv(send.size(), 0);
  check(MPI_Alltoall(send.data(), count(), type_, recv.data(), count(), type_, MPI_COMM_WORLD), "MPI_Alltoall");
  std::vector<unsigned char> expected;
  for (int i = 0; i < size_; ++i) {
    auto part = filled(i, rank_);
    expected.insert(expected.end(), part.begin(), part.end());
  }
  expect(recv == expected, "MPI_Alltoall");
}

void Collective::allgather() {
  auto mine = filled(rank_, 0);
  std::vector<unsigned char> all(block_ * static_cast<std::size_t>(size_), 0);
  check(MPI_Allgather(mine.data(), count(), type_, all.data(), count(), type_, MPI_COMM_WORLD), "MPI_Allgather");
  expect(all == blocks(size_, 0, true), "MPI_Allgather");
}

void Collective::gather() {
  auto mine = filled(rank_, 0);
  std::vector<unsigned char> all(rank_ == args_.root ? block_ * static_cast<std::size_t>(size_) : 0);
  check(MPI_Gather(mine.data(), count(), type_, all.data(), count(), type_, args_.root, MPI_COMM_WORLD), "MPI_Gather");
  if (rank_ == args_.root) expect(all == blocks(size_, 0, true), "MPI_Gather");
}

void Collective::scatter() {
  auto all = rank_ == args_.root ? blocks(size_, args_.root, false) : std::vector<unsigned char>();
  std::vector<unsigned char> mine(block_, 0);
  check(MPI_Scatter(all.data(), count(), type_, mine.data(), count(), type_, args_.root, MPI_COMM_WORLD),
        "MPI_Scatter");
  expect(mine == filled(args_.root, rank_), "MPI_Scatter");
}

void Collective::run() {
  const std::string& op = args_.op;
  if (op == "bcast") {
    bcast();
  } else if (op == "reduce") {
    reduce(false);
  } else if (op == "allreduce") {
    reduce(true);
  } else if (op == "alltoall") {
    alltoall();
  } else if (op == "allgather") {
    allgather();
  } else if (op == "gather") {
    gather();
  } else if (op == "scatter") {
    scatter();
  } else if (op == "barrier") {
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  } else {
    abort_job("unknown --op " + op + " (bcast, reduce, allreduce, alltoall, allgather, gather, scatter, barrier)");
  }
}

}  // namespace

int main(int argc, char** argv) {
  mpimon::mpi::Session session(argc, argv);
  // Errors must abort the job rather than hang the other ranks in the collective.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const Arguments args = parse_arguments(argc, argv);
  if (args.root >= session.size()) abort_job("--root must be below the number of processes");
  Collective collective(args, session.rank(), session.size());
  if (!args.skip) collective.run();
  if (args.iterations > 0) {
    const double per_call = collective.time_calls(args.iterations);
    if (session.rank() == 0) std::printf("seconds per iteration: %.9f\n", per_call);
  }
  return 0;
}
