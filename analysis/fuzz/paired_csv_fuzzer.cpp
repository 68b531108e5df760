// libFuzzer target for the paired-timings reader of `mpimon stats paired FILE.csv`
// (parse_paired_samples) and the analysis the command runs on what it read. Seeds are the
// paired files the tests and results ship. Run through ci/fuzz.sh.

#include <cmath>
#include <sstream>
#include <string>

#include "fuzz_check.hpp"
#include "mpimon/base/error.hpp"
#include "mpimon/results/stats.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in{std::string(mpimon::fuzz::as_text(data, size))};
  mpimon::PairedSamples samples;
  try {
    samples = mpimon::parse_paired_samples(in, "fuzz.csv");
  } catch (const mpimon::Error&) {
    return 0;  // malformed input, reported the documented way
  }
  FUZZ_CHECK(!samples.off.empty() && samples.off.size() == samples.on.size());
  for (std::size_t i = 0; i < samples.off.size(); ++i) {
    FUZZ_CHECK(std::isfinite(samples.off[i]) && std::isfinite(samples.on[i]));
  }
  // What `mpimon stats paired` does next: finite numbers of any size must give a result or an
  // mpimon::Error, never another exception (Boost.Math's throw on a NaN, say).
  try {
    (void)mpimon::paired_analysis(samples.off, samples.on, 0.95);
  } catch (const mpimon::Error&) {
  }
  return 0;
}
