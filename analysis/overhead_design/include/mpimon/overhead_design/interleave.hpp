#pragma once
// The interleaved design's schedule (docs/overhead.md, "Designs"): inside one launch, the
// timed iterations of a benchmark run in blocks of B iterations, the cost switched on and off
// from block to block in ABBA order (on, off, off, on, on, off, ...), so that a linear drift
// over a block pair cancels. Part of the overhead design's vocabulary (mpimon::overhead_design,
// header-only, no dependency): mpimon-overhead-bench, which links no analysis, and the analysis
// that reads its output both use it.

#include <cstddef>
#include <string>

namespace mpimon {

/// Whether block `k` (0-based) has the cost switched on: ABBA, blocks 0 and 3 of every 4.
inline bool abba_on(std::size_t k) { return k % 4 == 0 || k % 4 == 3; }

/// The schedule of `blocks` blocks as a string of '1' (on) and '0' (off): "1001" for 4.
inline std::string abba_states(std::size_t blocks) {
  std::string s;
  for (std::size_t k = 0; k < blocks; ++k) s += abba_on(k) ? '1' : '0';
  return s;
}

/// Why `iterations` cannot be cut into whole ABBA block pairs of `block_length`, or "" when it can.
inline std::string abba_plan_error(std::size_t iterations, std::size_t block_length) {
  if (block_length == 0) return "the block length must be at least 1";
  if (iterations % (2 * block_length) != 0 || iterations == 0)
    return "the iterations (" + std::to_string(iterations) +
           ") must be a non-zero multiple of twice the block length (" + std::to_string(block_length) + ")";
  return "";
}

}  // namespace mpimon
