// libFuzzer target for the callgrind dump reader of `mpimon gate` (parse_callgrind_dump). Seeds
// are dumps of mpimon-gate-probe. Run through ci/fuzz.sh.

#include <algorithm>
#include <sstream>
#include <string>

#include "fuzz_check.hpp"
#include "mpimon/base/error.hpp"
#include "mpimon/results/gate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in{std::string(mpimon::fuzz::as_text(data, size))};
  try {
    const mpimon::CallgrindDump dump = mpimon::parse_callgrind_dump(in, "fuzz.callgrind");
    // A labelled dump counts at least one operation, and names each object once.
    FUZZ_CHECK(dump.count > 0 && !dump.op.empty());
    auto objects = dump.objects;
    std::sort(objects.begin(), objects.end());
    FUZZ_CHECK(std::adjacent_find(objects.begin(), objects.end()) == objects.end());
  } catch (const mpimon::Error&) {
    // Malformed input, reported the documented way; any other exception is a crash.
  }
  return 0;
}
