// mpimon-link-probe: what `mpimon probe` launches on two ranks placed by a rankfile (docs/placement.md,
// "Measuring the links"): a ping-pong of small messages (latency: half the median round trip) and a
// stream of large ones (bandwidth: bytes over the time until the receiver's acknowledgement, median
// of the rounds). Rank 0 prints one JSON line (mpimon/link_probe/result_line.hpp, which the harness
// reads back):
//   {"hosts":["node0","node1"],"latency_seconds":...,"bytes_per_second":...,...}
//
// Usage: mpimon-link-probe [--repetitions N] [--size BYTES] [--messages K] [--rounds R]

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "mpimon/link_probe/result_line.hpp"
#include "mpimon/mpi/mpi_support.hpp"

namespace {

struct Settings {
  int repetitions = 1000;      // timed round trips (after a tenth as many untimed)
  std::size_t size = 1 << 20;  // bytes of one message of the stream
  int messages = 16;           // messages of a round of the stream
  int rounds = 5;              // rounds of the stream
  std::size_t small_size = 8;  // bytes of a ping-pong message
};

Settings parse(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
    auto number = [&](auto& target) {
      char* end = nullptr;
      const long long v = value ? std::strtoll(value, &end, 10) : 0;
      if (!value || *end != '\0' || v <= 0) mpimon::mpi::abort_job(a + " takes a positive integer");
      target = static_cast<std::remove_reference_t<decltype(target)>>(v);
      ++i;
    };
    if (a == "--repetitions") {
      number(s.repetitions);
    } else if (a == "--size") {
      number(s.size);
    } else if (a == "--messages") {
      number(s.messages);
    } else if (a == "--rounds") {
      number(s.rounds);
    } else {
      mpimon::mpi::abort_job("unknown option '" + a + "' (--repetitions, --size, --messages, --rounds)");
    }
  }
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Half the round trip of each of `repetitions` ping-pongs, after untimed ones (rank 0's view).
std::vector<double> ping_pong(int rank, const Settings& s) {
  std::vector<char> buffer(s.small_size, 0);
  const int peer = 1 - rank, untimed = std::max(1, s.repetitions / 10);
  std::vector<double> half;
  for (int k = 0; k < untimed + s.repetitions; ++k) {
    const double t0 = MPI_Wtime();
    if (rank == 0) {
      mpimon::mpi::check(MPI_Send(buffer.data(), static_cast<int>(buffer.size()), MPI_CHAR, peer, 1, MPI_COMM_WORLD),
                         "MPI_Send");
      mpimon::mpi::check(MPI_Recv(buffer.data(), static_cast<int>(buffer.size()), MPI_CHAR, peer, 1, MPI_COMM_WORLD,
                                  MPI_STATUS_IGNORE),
                         "MPI_Recv");
    } else {
      mpimon::mpi::check(MPI_Recv(buffer.data(), static_cast<int>(buffer.size()), MPI_CHAR, peer, 1, MPI_COMM_WORLD,
                                  MPI_STATUS_IGNORE),
                         "MPI_Recv");
      mpimon::mpi::check(MPI_Send(buffer.data(), static_cast<int>(buffer.size()), MPI_CHAR, peer, 1, MPI_COMM_WORLD),
                         "MPI_Send");
    }
    if (k >= untimed) half.push_back((MPI_Wtime() - t0) / 2);
  }
  return half;
}

// Bytes a second of each round: rank 0 sends `messages` of `size` bytes at once, rank 1 receives
// them and acknowledges with an empty message.
std::vector<double> stream(int rank, const Settings& s) {
  std::vector<char> buffer(s.size * static_cast<std::size_t>(s.messages), 1);
  std::vector<MPI_Request> requests(static_cast<std::size_t>(s.messages));
  std::vector<double> rates;
  for (int round = 0; round < s.rounds + 1; ++round) {  // the first round untimed (connections, pages)
    mpimon::mpi::check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    const double t0 = MPI_Wtime();
    for (int m = 0; m < s.messages; ++m) {
      char* at = buffer.data() + static_cast<std::size_t>(m) * s.size;
      const int n = static_cast<int>(s.size);
      mpimon::mpi::check(rank == 0 ? MPI_Isend(at, n, MPI_CHAR, 1, 2, MPI_COMM_WORLD, &requests[m])
                                   : MPI_Irecv(at, n, MPI_CHAR, 0, 2, MPI_COMM_WORLD, &requests[m]),
                         "MPI_Isend/Irecv");
    }
    mpimon::mpi::check(MPI_Waitall(s.messages, requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    char ack = 0;
    if (rank == 1) {
      mpimon::mpi::check(MPI_Send(&ack, 0, MPI_CHAR, 0, 3, MPI_COMM_WORLD), "MPI_Send");
    } else {
      mpimon::mpi::check(MPI_Recv(&ack, 0, MPI_CHAR, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
      if (round > 0) rates.push_back(static_cast<double>(s.size) * s.messages / (MPI_Wtime() - t0));
    }
  }
  return rates;
}

}  // namespace

int main(int argc, char** argv) {
  mpimon::mpi::Session session(argc, argv);
  if (session.size() != 2) mpimon::mpi::abort_job("mpimon-link-probe runs on exactly 2 ranks");
  const Settings s = parse(argc, argv);
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  mpimon::mpi::check(MPI_Get_processor_name(name, &length), "MPI_Get_processor_name");
  std::vector<char> names(2 * MPI_MAX_PROCESSOR_NAME, 0);
  mpimon::mpi::check(MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                                0, MPI_COMM_WORLD),
                     "MPI_Gather");
  const std::vector<double> half = ping_pong(session.rank(), s);
  const std::vector<double> rates = stream(session.rank(), s);
  if (session.rank() == 0) {
    mpimon::LinkProbeLine line;
    line.hosts = {std::string(names.data()), std::string(names.data() + MPI_MAX_PROCESSOR_NAME)};
    line.latency_seconds = median(half);
    line.latency_min_seconds = *std::min_element(half.begin(), half.end());
    line.bytes_per_second = median(rates);
    line.bytes_per_second_max = *std::max_element(rates.begin(), rates.end());
    line.repetitions = static_cast<std::uint64_t>(s.repetitions);
    line.message_bytes = s.size;
    line.messages = static_cast<std::uint64_t>(s.messages);
    line.rounds = static_cast<std::uint64_t>(s.rounds);
    std::printf("%s\n", mpimon::link_probe_line(line).c_str());
    std::fflush(stdout);
  }
  return 0;
}
