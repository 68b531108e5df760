#pragma once
// The result line of mpimon-link-probe (docs/placement.md, "Measuring the links"): rank 0 prints
// what the pair of ranks measured as one JSON line, which the harness reads back from the launch's
// output. Its writer beside its reader, with the project's JSON (header-only: target
// mpimon::link_probe, linked privately by the program and the harness).

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "mpimon/json.hpp"

namespace mpimon {

/// What one pair of ranks measured.
struct LinkProbeLine {
  std::vector<std::string> hosts;   ///< where ranks 0 and 1 ran (MPI_Get_processor_name)
  double latency_seconds = 0;       ///< half the median round trip of a small message
  double latency_min_seconds = 0;   ///< half the shortest round trip
  double bytes_per_second = 0;      ///< the median round of the stream
  double bytes_per_second_max = 0;  ///< its fastest round
  std::uint64_t repetitions = 0, message_bytes = 0, messages = 0, rounds = 0;  ///< the settings
};

namespace link_probe_detail {

inline constexpr const char* kFirstKey = "{\"hosts\":";

/// A measurement with 9 significant digits, as the line has always carried them.
inline double significant(double v) {
  std::ostringstream text;
  text.precision(9);
  text << v;
  return std::stod(text.str());
}

}  // namespace link_probe_detail

/// The line (without its newline): {"hosts":["H0","H1"],"latency_seconds":...,...}, the host
/// names escaped as JSON strings.
inline std::string link_probe_line(const LinkProbeLine& r) {
  using link_probe_detail::significant;
  return json_line(Json{{"hosts", r.hosts},
                        {"latency_seconds", significant(r.latency_seconds)},
                        {"latency_min_seconds", significant(r.latency_min_seconds)},
                        {"bytes_per_second", significant(r.bytes_per_second)},
                        {"bytes_per_second_max", significant(r.bytes_per_second_max)},
                        {"repetitions", r.repetitions},
                        {"message_bytes", r.message_bytes},
                        {"messages", r.messages},
                        {"rounds", r.rounds}});
}

/// The first result line in `output` (a launch's, `where` naming it): nothing when no line is one,
/// or when the first that starts as one does not read as one.
inline std::optional<LinkProbeLine> find_link_probe_line(const std::string& output, const std::string& where) {
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(link_probe_detail::kFirstKey, 0) != 0) continue;
    try {
      const Json j = parse_json(line, where);
      LinkProbeLine r;
      r.hosts = j.at("hosts").get<std::vector<std::string>>();
      r.latency_seconds = json_value<double>(j, "latency_seconds", where);
      r.latency_min_seconds = json_value<double>(j, "latency_min_seconds", where);
      r.bytes_per_second = json_value<double>(j, "bytes_per_second", where);
      r.bytes_per_second_max = json_value<double>(j, "bytes_per_second_max", where);
      for (auto [key, value] : {std::pair{"repetitions", &r.repetitions}, std::pair{"message_bytes", &r.message_bytes},
                                std::pair{"messages", &r.messages}, std::pair{"rounds", &r.rounds}}) {
        *value = json_value<std::uint64_t>(j, key, where);
      }
      return r;
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace mpimon
