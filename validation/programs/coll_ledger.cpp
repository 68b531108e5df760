// Collective ground truth at the API level: one collective operation, called once on a named
// communicator, with the traffic RR-9038 documents for it recorded in the ledger.
// Usage: mpimon-coll-ledger LEDGER_PREFIX OPERATION [--control]     (OPERATION: --list prints them)
// --control creates the communicator but calls no collective: its dump is subtracted from the
// real run's to remove the communicator creation's own traffic.

#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "mpimon/mpi/mpi_support.hpp"
#include "mpimon/workloads/workloads.hpp"

int main(int argc, char** argv) {
  mpimon::mpi::Session session(argc, argv);
  if (argc == 2 && std::string(argv[1]) == "--list") {
    if (session.rank() == 0) {
      for (const auto& name : mpimon::workloads::collective_names()) std::printf("%s\n", name.c_str());
    }
    return 0;
  }
  if (argc < 3 || argc > 4) mpimon::mpi::abort_job("usage: mpimon-coll-ledger LEDGER_PREFIX OPERATION [--control]");
  const std::string prefix = argv[1];
  const bool control = argc == 4 && std::string(argv[3]) == "--control";
  mpimon::Ledger ledger(static_cast<std::uint32_t>(session.rank()), static_cast<std::uint32_t>(session.size()));
  try {
    mpimon::workloads::run_collective(MPI_COMM_WORLD, argv[2], control, ledger);
  } catch (const std::invalid_argument& e) {
    mpimon::mpi::abort_job(e.what());
  }
  mpimon::mpi::make_directories(std::filesystem::path(prefix).parent_path().string());
  ledger.write(prefix);
  return 0;
}
