#include "mpimon/base/traffic.hpp"

#include <algorithm>
#include <bit>

#include "mpimon/base/names.hpp"

namespace mpimon {

namespace {

constexpr std::array<Named<TrafficClass>, kTrafficClassCount> kClassNames{{{TrafficClass::external, "external"},
                                                                           {TrafficClass::internal, "internal"},
                                                                           {TrafficClass::osc_sent, "osc_sent"},
                                                                           {TrafficClass::osc_recv, "osc_recv"},
                                                                           {TrafficClass::coll, "coll"}}};

}  // namespace

std::string_view class_name(TrafficClass c) { return to_name(kClassNames, c); }

char class_letter(TrafficClass c) {
  static constexpr char letters[] = {'E', 'I', 'S', 'R', 'C'};
  return letters[static_cast<std::size_t>(c)];
}

std::optional<TrafficClass> parse_class(std::string_view text) {
  for (TrafficClass c : kAllTrafficClasses) {
    if (text == class_name(c) || (text.size() == 1 && text[0] == class_letter(c))) return c;
  }
  return std::nullopt;
}

std::size_t histogram_bucket(std::uint64_t bytes) {
  if (bytes == 0) return 0;
  return std::min<std::size_t>(static_cast<std::size_t>(std::bit_width(bytes)), kHistogramBuckets - 1);
}

}  // namespace mpimon
