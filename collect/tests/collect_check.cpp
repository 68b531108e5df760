// Checks a file written by `mpimon collect` from mpimon-collect-phases against that program's
// ledgers (validation/programs/collect_phases.cpp). The classes compared are those the caller
// expects the MPI library to deliver (COLLECTED, known from its version, never read from the
// file); the file's collected_classes and missing_classes must equal COLLECTED and MISSING.
// Usage: mpimon-collect-check FILE LEDGER_PREFIX NP COLLECTED MISSING   (comma-separated lists)
// Prints one line per mismatch and "CHECKED N phases", exits 1 on any mismatch.

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "mpimon/checks/ledger_check.hpp"
#include "mpimon/matrices/matrix_file.hpp"

namespace {

using mpimon::TrafficClass;

bool has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> items;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ",") + i;
  return out;
}

// The file's list (in any order) against the expected one.
void compare_list(const std::vector<std::string>& in_file, const std::vector<std::string>& expected,
                  const std::string& attribute, std::vector<std::string>& problems) {
  if (std::set(in_file.begin(), in_file.end()) != std::set(expected.begin(), expected.end())) {
    problems.push_back(attribute + " is [" + joined(in_file) + "], this MPI library delivers [" + joined(expected) +
                       "]");
  }
}

// What each checked phase compares, before removing what was not collected.
mpimon::LedgerCheck phase_check(int phase) {
  mpimon::LedgerCheck c;
  c.histograms = false;
  c.communicator_records = false;
  switch (phase) {
    case 2:  // no collective, so nothing internal
      c.classes = {TrafficClass::external};
      c.must_be_empty = {TrafficClass::internal, TrafficClass::osc_sent, TrafficClass::osc_recv, TrafficClass::coll};
      c.histograms = true;
      break;
    case 3:
    case 6:  // the one-sided phase of mpimon-collect-phases --late-window
      c.classes = {TrafficClass::osc_sent, TrafficClass::osc_recv};
      break;
    case 4:
      c.classes = {TrafficClass::coll};
      c.communicator_records = true;
      break;
    default:  // phase 5: nothing at all
      c.classes = {TrafficClass::external, TrafficClass::osc_sent, TrafficClass::osc_recv, TrafficClass::coll};
      c.must_be_empty = {TrafficClass::internal};
      c.histograms = true;
  }
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: mpimon-collect-check FILE LEDGER_PREFIX NP COLLECTED MISSING\n");
    return 2;
  }
  try {
    const std::string prefix = argv[2];
    const auto np = static_cast<std::uint32_t>(std::stoul(argv[3]));
    mpimon::MatrixFile file(argv[1]);
    const auto collected = split_commas(argv[4]);
    const auto missing = split_commas(argv[5]);
    std::vector<std::string> problems;
    compare_list(file.root_strings("collected_classes"), collected, "collected_classes", problems);
    compare_list(file.root_strings("missing_classes"), missing, "missing_classes", problems);
    auto collected_class = [&](TrafficClass c) { return has(collected, std::string(mpimon::class_name(c))); };
    for (TrafficClass c : mpimon::kAllTrafficClasses) {
      const std::string name(mpimon::class_name(c));
      if (has(collected, name) == has(missing, name)) {
        problems.push_back(name + " is not either collected or missing in the expected lists");
      }
    }
    const std::vector<std::string> expected_groups = {"phase_1", "phase_2", "phase_3", "phase_4", "phase_5", "phase_6"};
    if (file.dumps() != expected_groups) problems.push_back("the groups are not phase_1 to phase_6");
    int checked = 0;
    for (int phase = 2; phase <= 6; ++phase) {
      const std::string dump = "phase_" + std::to_string(phase);
      if (!has(file.dumps(), dump)) continue;
      // Phase 6 has a ledger only with --late-window (before, it holds the window's release).
      if (phase == 6 && !std::filesystem::exists(prefix + ".phase_6.0.ledger")) continue;
      ++checked;
      if (file.info(dump).nprocs != np) problems.push_back(dump + ": nprocs is not " + std::to_string(np));
      mpimon::LedgerCheck check = phase_check(phase);
      std::erase_if(check.classes, [&](TrafficClass c) { return !collected_class(c); });
      std::erase_if(check.must_be_empty, [&](TrafficClass c) { return !collected_class(c); });
      // A class the library does not deliver is all zeros in the file (docs/collect.md).
      for (TrafficClass c : mpimon::kAllTrafficClasses) {
        if (!collected_class(c)) check.must_be_empty.push_back(c);
      }
      check.histograms = check.histograms && has(collected, "histogram");
      std::vector<mpimon::Ledger> ledgers;
      for (std::uint32_t r = 0; r < np; ++r) {
        ledgers.push_back(mpimon::Ledger::read(prefix + "." + dump + "." + std::to_string(r) + ".ledger"));
      }
      if (check.communicator_records && !has(collected, "communicators")) {
        // Only MPI_COMM_WORLD's records can be read through MPI_T without the flush: compare those.
        check.communicator_records = has(collected, "communicators:MPI_COMM_WORLD");
        std::vector<mpimon::Ledger> world_only;
        for (const auto& l : ledgers) {
          mpimon::Ledger w(l.rank(), l.nprocs());
          for (const auto& e : l.entries()) w.record(e.traffic_class, e.peer, e.bytes);
          for (const auto& call : l.calls()) {
            if (call.communicator == "MPI_COMM_WORLD") w.record_call(call.kind, call.communicator, call.bytes);
          }
          world_only.push_back(w);
        }
        ledgers = world_only;
      }
      for (const auto& m : mpimon::compare_with_ledgers(file, dump, ledgers, check)) {
        problems.push_back(dump + ": " + m.what);
      }
    }
    for (const auto& p : problems) std::printf("MISMATCH %s\n", p.c_str());
    std::printf("CHECKED %d phases against the ledgers; expected and collected: ", checked);
    for (const auto& c : collected) std::printf("%s ", c.c_str());
    std::printf("\n");
    return problems.empty() ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mpimon-collect-check: %s\n", e.what());
    return 1;
  }
}
