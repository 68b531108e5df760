// The text of a .prof file (docs/prof-format.md): what the reader (prof_reader.cpp) reads, for dumps
// that Open MPI did not write (mpimon simulate's traffic).

#include <algorithm>
#include <string>

#include "mpimon/matrices/prof.hpp"

namespace mpimon {

namespace {

void append_counts(std::string& out, std::uint64_t bytes, std::uint64_t count) {
  out += std::to_string(bytes) + " bytes\t" + std::to_string(count) + " msgs sent";
}

void append_histogram(std::string& out, const RankProfile& profile, std::uint32_t peer) {
  for (const auto& h : profile.histograms) {
    if (h.peer != peer) continue;
    for (std::size_t b = 0; b < h.buckets.size(); ++b) out += (b ? "," : "\t") + std::to_string(h.buckets[b]);
    return;
  }
}

void append_pairs(std::string& out, const RankProfile& profile, std::initializer_list<TrafficClass> classes) {
  for (const TrafficClass c : classes) {
    for (const auto& p : profile.pairs) {
      if (p.traffic_class != c) continue;
      out +=
          std::string(1, class_letter(c)) + "\t" + std::to_string(profile.rank) + "\t" + std::to_string(p.peer) + "\t";
      append_counts(out, p.bytes, p.count);
      // Open MPI writes a pair's one histogram on its E line, or on its I line when it has none.
      const bool has_external = std::any_of(profile.pairs.begin(), profile.pairs.end(), [&](const PairRecord& e) {
        return e.traffic_class == TrafficClass::external && e.peer == p.peer;
      });
      if (c == TrafficClass::external || (c == TrafficClass::internal && !has_external)) {
        append_histogram(out, profile, p.peer);
      }
      out += "\n";
    }
  }
}

}  // namespace

std::string format_prof(const RankProfile& profile) {
  std::string out = "# POINT TO POINT\n";
  append_pairs(out, profile, {TrafficClass::external, TrafficClass::internal});
  out += "# OSC\n";
  append_pairs(out, profile, {TrafficClass::osc_sent, TrafficClass::osc_recv});
  out += "# COLLECTIVES\n";
  append_pairs(out, profile, {TrafficClass::coll});
  for (const auto& c : profile.communicators) {
    out += "D\t" + c.name + "\tprocs: ";
    for (std::size_t i = 0; i < c.members.size(); ++i) out += (i ? "," : "") + std::to_string(c.members[i]);
    out += "\n";
    const std::pair<const char*, const CollectiveTotals*> blocks[] = {
        {"O2A", &c.one_to_all}, {"A2O", &c.all_to_one}, {"A2A", &c.all_to_all}};
    for (const auto& [tag, totals] : blocks) {
      out += std::string(tag) + "\t" + std::to_string(profile.rank) + "\t";
      append_counts(out, totals->bytes, totals->calls);
      out += "\n";
    }
  }
  return out;
}

}  // namespace mpimon
