// Point-to-point ground truth: send modes, many sizes, self-sends, MPI_PROC_NULL, a derived
// datatype; each rank writes the ledger of what it sent. Run under monitoring, e.g.
//   mpiexec -np 4 --mca pml_monitoring_enable 1 --mca pml_monitoring_enable_output 3
//       --mca pml_monitoring_filename out/prof/p2p ./mpimon-p2p-ledger out/ledger/p2p
// `mpimon validate --case 'p2p.*'` does this and compares the merged dumps with the ledgers.
//
// Usage: mpimon-p2p-ledger LEDGER_PREFIX [MODE,MODE,...] [--subcomm] [--control]
//   MODE,...   send modes (default: every mode but persistent, which Open MPI 4.1 does not
//              count: docs/defects.md)
//   --subcomm  run on a communicator splitting the world in two, ranks in reverse order, so
//              that communicator ranks differ from MPI_COMM_WORLD ranks
//   --control  create the communicator but send nothing (its traffic is subtracted)

#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string>

#include "mpimon/mpi/mpi_support.hpp"
#include "mpimon/workloads/workloads.hpp"

namespace {

std::vector<mpimon::workloads::SendMode> parse_modes(const std::string& list) {
  std::vector<mpimon::workloads::SendMode> modes;
  std::istringstream in(list);
  for (std::string item; std::getline(in, item, ',');) modes.push_back(mpimon::workloads::parse_send_mode(item));
  if (modes.empty()) throw std::invalid_argument("no send mode given");
  return modes;
}

}  // namespace

int main(int argc, char** argv) {
  mpimon::mpi::Session session(argc, argv);
  if (argc < 2) mpimon::mpi::abort_job("usage: mpimon-p2p-ledger LEDGER_PREFIX [MODE,...] [--subcomm] [--control]");
  const std::string prefix = argv[1];
  std::string mode_list = "send,isend,ssend,bsend,rsend,sendrecv,derived";
  bool subcomm = false, control = false;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--subcomm") {
      subcomm = true;
    } else if (arg == "--control") {
      control = true;
    } else {
      mode_list = arg;
    }
  }
  std::vector<mpimon::workloads::SendMode> modes;
  try {
    modes = parse_modes(mode_list);
  } catch (const std::invalid_argument& e) {
    mpimon::mpi::abort_job(e.what());
  }
  mpimon::mpi::make_directories(std::filesystem::path(prefix).parent_path().string());
  mpimon::Ledger ledger(static_cast<std::uint32_t>(session.rank()), static_cast<std::uint32_t>(session.size()));
  MPI_Comm comm = MPI_COMM_WORLD;
  if (subcomm) {
    mpimon::mpi::check(MPI_Comm_split(MPI_COMM_WORLD, session.rank() % 2, -session.rank(), &comm), "MPI_Comm_split");
  }
  if (!control) mpimon::workloads::run_p2p_sweep(comm, ledger, modes);
  ledger.write(prefix);
  return 0;
}
