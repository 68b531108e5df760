#pragma once
// Measuring the links of a machine for the placement time model (docs/placement.md, "Measuring the
// links"): mpimon-link-probe launched on two ranks that a rankfile puts on two leaves of the tree,
// a ping-pong (latency) and a stream (bandwidth) between them, monitoring off.

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace mpimon::harness {

struct LinkProbeSettings {
  std::string launcher = "mpirun";
  std::vector<std::string> mca;      ///< KEY=VALUE added to every launch
  std::uint32_t repetitions = 1000;  ///< timed ping-pongs
  std::uint64_t size = 1 << 20;      ///< bytes of a message of the stream
  std::uint32_t messages = 16;       ///< messages of a round
  std::uint32_t rounds = 5;          ///< rounds of the stream
  std::chrono::seconds timeout{600};
};

/// What one pair of ranks measured.
struct LinkProbeResult {
  std::vector<std::string> hosts;  ///< where ranks 0 and 1 ran (MPI_Get_processor_name)
  double latency_seconds = 0;      ///< half the median round trip of a small message
  double bytes_per_second = 0;     ///< the median round of the stream
  std::string command;             ///< the launch line, as a user would type it
};

/// Throws a usage Error for an --mca that is not KEY=VALUE or a zero count.
void check_link_probe_settings(const LinkProbeSettings& s);

/// Launches mpimon-link-probe on 2 ranks placed by `rankfile` (mpirun --rankfile); throws an
/// Error::Kind::launch naming the command and its last line when the launch fails or prints no result.
LinkProbeResult probe_link(const LinkProbeSettings& settings, const std::string& rankfile);

}  // namespace mpimon::harness
