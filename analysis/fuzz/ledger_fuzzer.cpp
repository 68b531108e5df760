// libFuzzer target for the ledger reader (Ledger::parse, what `mpimon validate` reads of each
// rank's PREFIX.RANK.ledger). Seeds are real ledgers of validation runs. Run through ci/fuzz.sh.

#include <sstream>
#include <string>

#include "fuzz_check.hpp"
#include "mpimon/base/error.hpp"
#include "mpimon/models/ledger.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in{std::string(mpimon::fuzz::as_text(data, size))};
  try {
    const mpimon::Ledger ledger = mpimon::Ledger::parse(in, "fuzz.ledger");
    for (const auto& e : ledger.entries()) {
      // Peers are MPI_COMM_WORLD ranks of the header's run; the class is one of the .prof letters.
      FUZZ_CHECK(e.peer < ledger.nprocs());
      FUZZ_CHECK(static_cast<std::size_t>(e.traffic_class) < mpimon::kTrafficClassCount);
    }
    for (const auto& c : ledger.calls()) {
      // A communicator name is one whitespace-free word (the line format cannot carry more).
      FUZZ_CHECK(!c.communicator.empty());
      FUZZ_CHECK(c.communicator.find_first_of(" \t\n\r\v\f") == std::string::npos);
      FUZZ_CHECK(mpimon::collective_kind_name(c.kind) != "?");
    }
    for (const auto& b : ledger.locals()) {
      FUZZ_CHECK(!b.communicator.empty());
      FUZZ_CHECK(b.communicator.find_first_of(" \t\n\r\v\f") == std::string::npos);
    }
  } catch (const mpimon::Error&) {
    // Malformed input, reported the documented way; any other exception is a crash.
  }
  return 0;
}
