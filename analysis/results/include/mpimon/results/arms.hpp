#pragma once
// The arms of the benchmarks' launch pairs and the comparisons the overhead analysis makes of them,
// named once (docs/overhead.md#arms): the sweeps launch arms by these names and record them, the
// analyses pair them, and the plots get the comparisons' titles from here (mpimon plot passes them
// to analysis/scripts/plot_overhead.py), so no other file spells an arm.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace mpimon {

/// The baseline of every sweep of mpimon bench overhead and app: monitoring components excluded.
inline constexpr std::string_view kArmOff = "off";
/// Monitoring on (pml_monitoring_enable), its dumps kept.
inline constexpr std::string_view kArmOn = "on";
/// Monitoring loaded but stopped through MPI_T (the paper's third case).
inline constexpr std::string_view kArmMpitOff = "mpit_off";
/// What an interleaved launch switches per block when it has no calibration: monitoring's counting;
/// also the comparison of on with mpit_off by launch pairs.
inline constexpr std::string_view kArmCounting = "counting";
/// mpimon bench app --preload LIB: monitoring on in both arms, LIB preloaded in the second.
inline constexpr std::string_view kArmMonitored = "monitored";
inline constexpr std::string_view kArmPreloaded = "preloaded";
/// The arms of interleaved launches: this prefix and what they switch ("interleaved-counting").
inline constexpr std::string_view kInterleavedPrefix = "interleaved-";

/// A calibration's arm: "loops<N>" for a loop count, else "delay<NS>"; "" without calibration.
inline std::string calibration_arm(std::uint64_t delay_ns, std::uint64_t loops) {
  if (loops > 0) return "loops" + std::to_string(loops);
  return delay_ns > 0 ? "delay" + std::to_string(delay_ns) : "";
}

/// The arm of the interleaved launches that switch `switched` (kArmCounting or a calibration arm).
inline std::string interleaved_arm(std::string_view switched) {
  return std::string(kInterleavedPrefix) + std::string(switched);
}
inline bool is_interleaved_arm(std::string_view arm) { return arm.starts_with(kInterleavedPrefix); }
/// What an interleaved arm switches: "counting" for "interleaved-counting".
inline std::string_view switched_by(std::string_view interleaved) {
  return interleaved.substr(kInterleavedPrefix.size());
}

/// A comparison of the overhead analysis (an /analysis row's arm and design) and its title.
struct ArmComparison {
  std::string_view arm, design, title;
};
inline constexpr std::array kArmComparisons{
    ArmComparison{kArmOn, "pairs", "monitoring on vs off"},
    ArmComparison{kArmMpitOff, "pairs", "monitoring loaded, stopped through MPI_T, vs off"},
    ArmComparison{kArmCounting, "pairs", "monitoring's counting on vs stopped (launch pairs)"},
    ArmComparison{kArmCounting, "interleaved", "monitoring's counting on vs stopped (interleaved blocks)"},
};

/// The title of the comparison of `arm` in `design`, "" for one the table does not name (a
/// calibration's).
constexpr std::string_view comparison_title(std::string_view arm, std::string_view design) {
  for (const auto& c : kArmComparisons) {
    if (c.arm == arm && c.design == design) return c.title;
  }
  return "";
}

}  // namespace mpimon
