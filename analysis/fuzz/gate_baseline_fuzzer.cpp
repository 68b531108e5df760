// libFuzzer target for the gate's baseline JSON reader (parse_gate_baseline, `mpimon gate
// --baseline`). A baseline that reads must also survive a round trip through
// write_gate_baseline unchanged (doubles are written exactly). Seeds are the committed baseline and its variants. Run
// through ci/fuzz.sh.

#include <sstream>
#include <string>

#include "fuzz_check.hpp"
#include "mpimon/base/error.hpp"
#include "mpimon/results/gate.hpp"

namespace {

void check_same(const mpimon::GateBaseline& a, const mpimon::GateBaseline& b) {
  FUZZ_CHECK(a.provenance == b.provenance);
  FUZZ_CHECK(a.instructions.has_value() == b.instructions.has_value());
  if (a.instructions) {
    FUZZ_CHECK(a.instructions->build == b.instructions->build);
    FUZZ_CHECK(a.instructions->settings == b.instructions->settings);
    FUZZ_CHECK(a.instructions->operations.size() == b.instructions->operations.size());
    for (std::size_t i = 0; i < a.instructions->operations.size(); ++i) {
      const auto &x = a.instructions->operations[i], &y = b.instructions->operations[i];
      FUZZ_CHECK(x.op == y.op && x.size == y.size && x.count == y.count && x.at_n == y.at_n && x.at_2n == y.at_2n &&
                 x.per_op == y.per_op);
    }
  }
  FUZZ_CHECK(a.timing.has_value() == b.timing.has_value());
  if (a.timing) {
    FUZZ_CHECK(a.timing->machine == b.timing->machine);
    FUZZ_CHECK(a.timing->settings == b.timing->settings);
    FUZZ_CHECK(a.timing->cells.size() == b.timing->cells.size());
    for (std::size_t i = 0; i < a.timing->cells.size(); ++i) {
      const auto &x = a.timing->cells[i], &y = b.timing->cells[i];
      FUZZ_CHECK(x.op == y.op && x.np == y.np && x.size == y.size && x.pairs == y.pairs && x.off_ns == y.off_ns &&
                 x.difference_ns == y.difference_ns && x.sd_difference_ns == y.sd_difference_ns);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in{std::string(mpimon::fuzz::as_text(data, size))};
  mpimon::GateBaseline baseline;
  try {
    baseline = mpimon::parse_gate_baseline(in, "fuzz.json");
  } catch (const mpimon::Error&) {
    return 0;  // malformed input, reported the documented way
  }
  std::stringstream written;
  mpimon::write_gate_baseline(baseline, written);
  mpimon::GateBaseline again;
  try {
    again = mpimon::parse_gate_baseline(written, "rewritten.json");
  } catch (const mpimon::Error&) {
    FUZZ_CHECK(false);  // what mpimon writes, mpimon must read
  }
  check_same(baseline, again);
  return 0;
}
