#pragma once
// Shared by the libFuzzer targets (run by ci/fuzz.sh) and their regression replay (replay_main.cpp,
// run by CTest). Each target defines LLVMFuzzerTestOneInput: the reader must either return a result
// that satisfies the target's invariants or throw mpimon::Error; anything else (another exception,
// a sanitizer report, a trap, a hang) is a bug.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

// Stops the run with a crash report that points at the failed invariant.
#define FUZZ_CHECK(cond)           \
  do {                             \
    if (!(cond)) __builtin_trap(); \
  } while (0)

namespace mpimon::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace mpimon::fuzz
