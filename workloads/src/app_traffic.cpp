#include "app_traffic.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "mpimon/mpi/mpi_support.hpp"

namespace mpimon::workloads {

using mpi::abort_job;
using mpi::check;

namespace {

constexpr int kGatherTag = 30000;               // above every workload's own tags
constexpr std::uint64_t kCorruptedMessage = 2;  // rank 0's third message of the loop

int as_int(std::size_t count) { return static_cast<int>(count); }

}  // namespace

// Adds the time spent in one communication call to the loop's communication time.
class Traffic::CommTimer {
 public:
  explicit CommTimer(Traffic& t) : t_(t), start_(t.in_loop_ ? MPI_Wtime() : 0) {}
  ~CommTimer() {
    if (t_.in_loop_) t_.comm_seconds_ += MPI_Wtime() - start_;
  }
  CommTimer(const CommTimer&) = delete;
  CommTimer& operator=(const CommTimer&) = delete;

 private:
  Traffic& t_;
  double start_;
};

Traffic::Traffic(MPI_Comm comm, Ledger& ledger, bool inject_error, bool renumbered)
    : comm_(comm), ledger_(ledger), inject_error_(inject_error) {
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &size_);
  char name[MPI_MAX_OBJECT_NAME] = {};
  int len = 0;
  check(MPI_Comm_get_name(comm, name, &len), "MPI_Comm_get_name");
  comm_name_.assign(name, static_cast<std::size_t>(len));
  std::replace(comm_name_.begin(), comm_name_.end(), ' ', '_');  // ledger names have no spaces
  if (comm != MPI_COMM_WORLD) {
    // The ledger names peers by MPI_COMM_WORLD rank; the workloads run on the world only, or on
    // its processes renumbered when told (their ledger then names the communicator's ranks).
    int result = MPI_UNEQUAL;
    MPI_Comm_compare(comm, MPI_COMM_WORLD, &result);
    if (result != MPI_IDENT && result != MPI_CONGRUENT && !(renumbered && result == MPI_SIMILAR)) {
      abort_job(renumbered ? "workloads run on MPI_COMM_WORLD's processes" : "workloads run on MPI_COMM_WORLD");
    }
  }
}

void Traffic::count_message(std::size_t bytes) {
  if (!in_loop_) return;
  ++messages_;
  bytes_ += bytes;
}

void Traffic::isend(double* data, std::size_t count, int dest, int tag) {
  if (inject_error_ && in_loop_ && rank_ == 0 && messages_ == kCorruptedMessage) {
    for (std::size_t i = 0; i < count; ++i) data[i] += 1.0;
  }
  const std::size_t bytes = count * sizeof(double);
  ledger_.record(TrafficClass::external, static_cast<std::uint32_t>(dest), bytes);
  count_message(bytes);
  CommTimer timer(*this);
  MPI_Request r;
  check(MPI_Isend(data, as_int(count), MPI_DOUBLE, dest, tag, comm_, &r), "MPI_Isend");
  pending_.push_back(r);
}

void Traffic::irecv(double* data, std::size_t count, int source, int tag) {
  CommTimer timer(*this);
  MPI_Request r;
  check(MPI_Irecv(data, as_int(count), MPI_DOUBLE, source, tag, comm_, &r), "MPI_Irecv");
  pending_.push_back(r);
}

void Traffic::recv(double* data, std::size_t count, int source, int tag) {
  CommTimer timer(*this);
  check(MPI_Recv(data, as_int(count), MPI_DOUBLE, source, tag, comm_, MPI_STATUS_IGNORE), "MPI_Recv");
}

void Traffic::wait_all() {
  CommTimer timer(*this);
  check(MPI_Waitall(as_int(pending_.size()), pending_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  pending_.clear();
}

void Traffic::allreduce_sum(double* values, int n) {
  std::vector<double> in(values, values + n);
  {
    CommTimer timer(*this);
    check(MPI_Allreduce(in.data(), values, n, MPI_DOUBLE, MPI_SUM, comm_), "MPI_Allreduce");
  }
  const std::uint64_t bytes = static_cast<std::uint64_t>(n) * sizeof(double);
  for (int p = 0; p < size_; ++p) {
    if (p != rank_) ledger_.record(TrafficClass::coll, static_cast<std::uint32_t>(p), bytes);
  }
  ledger_.record_call(CollectiveKind::all_to_all, comm_name_, bytes * static_cast<std::uint64_t>(size_ - 1));
  if (in_loop_) ++collectives_;
}

void Traffic::start_loop() {
  in_loop_ = true;
  loop_start_ = MPI_Wtime();
}

void Traffic::stop_loop() {
  loop_seconds_ = MPI_Wtime() - loop_start_;
  in_loop_ = false;
}

std::vector<double> Traffic::gather_to_root(const std::vector<double>& values) {
  const std::size_t n = values.size();
  if (rank_ != 0) {
    std::vector<double> copy = values;
    isend(copy.data(), n, 0, kGatherTag);
    wait_all();
    return {};
  }
  std::vector<double> all(n * static_cast<std::size_t>(size_));
  std::copy(values.begin(), values.end(), all.begin());
  for (int p = 1; p < size_; ++p) recv(all.data() + n * static_cast<std::size_t>(p), n, p, kGatherTag);
  return all;
}

void Traffic::summarise(WorkloadReport& report) {
  const std::vector<double> mine{loop_seconds_, comm_seconds_, static_cast<double>(messages_),
                                 static_cast<double>(bytes_), static_cast<double>(collectives_)};
  const std::vector<double> all = gather_to_root(mine);
  if (rank_ != 0) return;
  report.np = size_;
  double comm_sum = 0;
  for (int p = 0; p < size_; ++p) {
    const double* v = all.data() + mine.size() * static_cast<std::size_t>(p);
    report.seconds = std::max(report.seconds, v[0]);
    comm_sum += v[1];
    report.comm_seconds_max = std::max(report.comm_seconds_max, v[1]);
    report.messages += static_cast<std::uint64_t>(v[2]);
    report.bytes += static_cast<std::uint64_t>(v[3]);
    report.collectives += static_cast<std::uint64_t>(v[4]);
  }
  report.comm_seconds = comm_sum / size_;
}

void burn_flops(double flops) {
  const auto n = static_cast<long long>(std::llround(flops));
  double x = 1.0;
  for (long long i = 0; i < n; ++i) {
    x = x * 0.999999 + 1e-6;
    // The value is "used" at every step, so the compiler can neither fold nor drop the loop.
#if defined(__x86_64__)
    asm volatile("" : "+x"(x));
#elif defined(__aarch64__)
    asm volatile("" : "+w"(x));
#else
    asm volatile("" : "+m"(x));
#endif
  }
}

}  // namespace mpimon::workloads
