// mpimon-check-ledger: compares the monitoring dumps of a validation run with the ledgers its
// ranks wrote. Exit 0 when they agree exactly, 1 otherwise (every difference is listed).
//
//   mpimon-check-ledger --prof PREFIX --ledger PREFIX --np N --mode 1|2

#include <boost/program_options.hpp>

#include <filesystem>
#include <iostream>

#include "mpimon/error.hpp"
#include "mpimon/ledger.hpp"
#include "mpimon/merge.hpp"

namespace po = boost::program_options;

int main(int argc, char** argv) {
  std::string prof_prefix, ledger_prefix;
  std::uint32_t np = 0;
  int mode = 0;
  po::options_description options("mpimon-check-ledger options");
  options.add_options()("help,h", "print this help")("prof", po::value(&prof_prefix)->required(),
                                                      "dump prefix (pml_monitoring_filename)")(
      "ledger", po::value(&ledger_prefix)->required(), "ledger prefix")("np", po::value(&np)->required(),
                                                                        "number of processes")(
      "mode", po::value(&mode)->required(), "pml_monitoring_enable of the run (1 or 2)");
  try {
    po::variables_map vm;
    po::store(po::parse_command_line(argc, argv, options), vm);
    if (vm.count("help")) {
      std::cout << options << "\n";
      return 0;
    }
    po::notify(vm);
    if (mode != 1 && mode != 2) throw po::error("--mode must be 1 or 2");
  } catch (const po::error& e) {
    std::cerr << "mpimon-check-ledger: error: " << e.what() << "\n" << options << "\n";
    return 2;
  }

  try {
    std::vector<std::string> dumps;
    std::vector<mpimon::Ledger> ledgers;
    for (std::uint32_t r = 0; r < np; ++r) {
      std::string dump = prof_prefix + "." + std::to_string(r) + ".prof";
      if (!std::filesystem::exists(dump)) {
        std::cerr << "mpimon-check-ledger: " << dump
                  << ": missing; the monitoring wrote no dump (is pml_monitoring_enable set, and is 'monitoring' in "
                     "any --mca pml list?)\n";
        return 1;
      }
      dumps.push_back(dump);
      ledgers.push_back(mpimon::Ledger::read(ledger_prefix + "." + std::to_string(r) + ".ledger"));
    }
    const std::string merged = prof_prefix + ".merged.h5";
    mpimon::merge_prof_files(dumps, merged, {});
    mpimon::MatrixFile file(merged);
    mpimon::LedgerCheck check;
    // The workload calls no collective, so nothing travels with internal tags in mode 2, and in
    // mode 1 there are no I lines at all.
    check.must_be_empty = {mpimon::TrafficClass::internal};
    auto mismatches = mpimon::compare_with_ledgers(file, file.default_dump(), ledgers, check);
    std::size_t sent = 0;
    for (const auto& l : ledgers) sent += l.entries().size();
    if (mismatches.empty()) {
      std::cout << "agree: " << sent << " messages of " << np << " ranks, counts, bytes and histograms exact\n";
      return 0;
    }
    for (const auto& m : mismatches) std::cout << "MISMATCH " << m.what << "\n";
    std::cout << mismatches.size() << " mismatches\n";
    return 1;
  } catch (const mpimon::Error& e) {
    std::cerr << "mpimon-check-ledger: error: " << e.what() << "\n";
    return 1;
  }
}
