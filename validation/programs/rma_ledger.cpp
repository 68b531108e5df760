// One-sided ground truth: every rank applies one operation to every rank's window in one epoch.
// Usage: mpimon-rma-ledger LEDGER_PREFIX OP SYNC [--control]
//   OP: put get accumulate get_accumulate fetch_and_op compare_and_swap; SYNC: fence lock pscw
// --control creates and frees the window and opens the epochs but issues no operation: its dump
// is subtracted from the real run's to remove the window's own traffic.

#include <filesystem>
#include <stdexcept>
#include <string>

#include "mpimon/mpi/mpi_support.hpp"
#include "mpimon/workloads/workloads.hpp"

int main(int argc, char** argv) {
  mpimon::mpi::Session session(argc, argv);
  if (argc < 4 || argc > 5) mpimon::mpi::abort_job("usage: mpimon-rma-ledger LEDGER_PREFIX OP SYNC [--control]");
  const std::string prefix = argv[1];
  const bool control = argc == 5 && std::string(argv[4]) == "--control";
  mpimon::Ledger ledger(static_cast<std::uint32_t>(session.rank()), static_cast<std::uint32_t>(session.size()));
  try {
    mpimon::workloads::run_rma(MPI_COMM_WORLD, mpimon::workloads::parse_rma_op(argv[2]),
                               mpimon::workloads::parse_rma_sync(argv[3]), control, ledger);
  } catch (const std::invalid_argument& e) {
    mpimon::mpi::abort_job(e.what());
  }
  mpimon::mpi::make_directories(std::filesystem::path(prefix).parent_path().string());
  ledger.write(prefix);
  return 0;
}
