#pragma once
// Link rates and latencies as users write them: the emulated cluster's --rate, the time model's
// --link, the simulator's --rate and --latency all read them here, so "100mbit" and "50us" mean
// the same thing everywhere (tc's units for rates, SI prefixes for durations).

#include <cstdint>
#include <string>

namespace mpimon {

/// Bits per second of a rate in tc's units: a positive integer followed by bit, kbit, mbit or
/// gbit (decimal prefixes, as tc reads them): "100mbit" is 10^8. Throws Error::Kind::usage naming
/// `option` for anything else.
std::uint64_t parse_rate(const std::string& text, const std::string& option);

/// Seconds of a duration: a non-negative decimal number followed by ns, us, ms or s ("50us" is
/// 5e-5). Throws Error::Kind::usage naming `option` for anything else.
double parse_duration(const std::string& text, const std::string& option);

/// The rate as parse_rate reads it back: "100mbit", "1gbit", "1500kbit".
std::string format_rate(std::uint64_t bits_per_second);

}  // namespace mpimon
