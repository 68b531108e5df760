// Point-to-point ground truth: send modes, many sizes, self-sends, MPI_PROC_NULL, a derived
// datatype; each rank writes the ledger of what it sent. Run under monitoring, e.g.
//   mpiexec -np 4 --mca pml_monitoring_enable 1 --mca pml_monitoring_enable_output 3
//       --mca pml_monitoring_filename out/prof/p2p ./mpimon-p2p-ledger out/ledger/p2p
// then compare with: mpimon-check-ledger --prof out/prof/p2p --ledger out/ledger/p2p --np 4 --mode 1
//
// Usage: mpimon-p2p-ledger LEDGER_PREFIX [MODE,MODE,...]   (default: every mode but persistent,
// which Open MPI 4.1 does not count: docs/defects.md)

#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string>

#include "mpi_support.hpp"
#include "workloads.hpp"

namespace {

std::vector<mpimon::mpi::SendMode> parse_modes(const std::string& list) {
  std::vector<mpimon::mpi::SendMode> modes;
  std::istringstream in(list);
  for (std::string item; std::getline(in, item, ',');) modes.push_back(mpimon::mpi::parse_send_mode(item));
  if (modes.empty()) throw std::invalid_argument("no send mode given");
  return modes;
}

}  // namespace

int main(int argc, char** argv) {
  mpimon::mpi::Session session(argc, argv);
  if (argc < 2 || argc > 3) mpimon::mpi::abort_job("usage: mpimon-p2p-ledger LEDGER_PREFIX [MODE,...]");
  const std::string prefix = argv[1];
  std::vector<mpimon::mpi::SendMode> modes;
  try {
    modes = parse_modes(argc == 3 ? argv[2] : "send,isend,ssend,bsend,rsend,sendrecv,derived");
  } catch (const std::invalid_argument& e) {
    mpimon::mpi::abort_job(e.what());
  }
  mpimon::mpi::make_directories(std::filesystem::path(prefix).parent_path().string());
  mpimon::Ledger ledger(static_cast<std::uint32_t>(session.rank()), static_cast<std::uint32_t>(session.size()));
  mpimon::mpi::run_p2p_sweep(MPI_COMM_WORLD, ledger, modes);
  ledger.write(prefix);
  return 0;
}
