// The links of a tree (links.hpp): --link values, and the file `mpimon probe` writes and `mpimon
// place --links` reads (format "mpimon-links").
#include "mpimon/placement/links.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "mpimon/base/error.hpp"
#include "mpimon/base/units.hpp"
#include "mpimon/json.hpp"

namespace mpimon {

LinkSpec parse_link(const std::string& text, const std::string& option) {
  const auto comma = text.find(',');
  LinkSpec link;
  link.bits_per_second = static_cast<double>(parse_rate(text.substr(0, comma), option));
  if (comma != std::string::npos) link.latency_seconds = parse_duration(text.substr(comma + 1), option);
  return link;
}

std::string format_link(const LinkSpec& link) {
  if (link.bits_per_second <= 0 && link.latency_seconds <= 0) return "free";
  std::ostringstream out;
  // parse_rate takes whole units: the rate to 4 significant digits (a probe's 95.234 Mbit/s reads
  // "95230kbit", 126.34 Gbit/s "126300mbit").
  std::uint64_t bits = 0;
  if (link.bits_per_second >= 1) {
    const double scale = std::pow(10.0, std::max(0.0, std::floor(std::log10(link.bits_per_second)) - 3));
    bits = static_cast<std::uint64_t>(std::round(link.bits_per_second / scale) * scale);
  }
  out << (bits > 0 ? format_rate(bits) : "free");
  const double us = link.latency_seconds * 1e6;
  out << ',' << std::setprecision(4) << (us >= 1000 ? us / 1000 : us) << (us >= 1000 ? "ms" : "us");
  return out.str();
}

TreeTopology with_links(TreeTopology topo, const std::vector<LinkSpec>& links, const std::string& option) {
  const std::uint32_t levels = topo.levels() - (topo.slots_per_core > 1 ? 1 : 0);  // not the slots' level
  if (links.size() > levels) {
    raise_error(Error::Kind::usage, option,
                std::to_string(links.size()) + " links given, but '" + topo.tleaf() + "' has " +
                    std::to_string(levels) + " levels (one link per level, top first)");
  }
  topo.links = links;
  topo.links.resize(topo.levels());
  return topo;
}

bool has_links(const TreeTopology& topo) {
  return std::any_of(topo.links.begin(), topo.links.end(),
                     [](const LinkSpec& l) { return l.bits_per_second > 0 || l.latency_seconds > 0; });
}

namespace {
constexpr const char* kLinksFormat = "mpimon-links";
constexpr int kLinksVersion = 1;
}  // namespace

void write_links_file(std::ostream& out, const LinksFile& file) {
  Json links = Json::array();
  for (std::size_t l = 0; l < file.links.size(); ++l) {
    links.push_back({{"level", l},
                     {"link", format_link(file.links[l])},
                     {"bits_per_second", file.links[l].bits_per_second},
                     {"latency_seconds", file.links[l].latency_seconds},
                     {"how", l < file.notes.size() ? file.notes[l] : ""}});
  }
  const Json doc = {{"format", kLinksFormat},
                    {"version", kLinksVersion},
                    {"topology", file.topology},
                    {"meaning",
                     "per level of the tree, top first: the rate and latency of one link below it "
                     "(a message between leaves whose lowest common level is c crosses two links "
                     "of each level c..L-1)"},
                    {"links", links}};
  out << json_document(doc);
}

LinksFile read_links_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) raise_input_error(path, 0, "cannot read the links file (--links)");
  const Json doc = parse_json(in, path);
  if (!doc.is_object() || doc.value("format", "") != kLinksFormat) {
    raise_input_error(path, 0, std::string("not an ") + kLinksFormat + " file (what mpimon probe writes)");
  }
  if (const int version = json_value<int>(doc, "version", path); version != kLinksVersion) {
    raise_input_error(path, 0,
                      "version " + std::to_string(version) + ", this mpimon reads " + std::to_string(kLinksVersion));
  }
  LinksFile file;
  file.topology = doc.value("topology", "");
  if (!doc.contains("links") || !doc["links"].is_array()) raise_input_error(path, 0, "no 'links' array");
  for (const auto& link : doc["links"]) {
    const std::string where = path + ": link " + std::to_string(file.links.size());
    const auto number = [&](const char* key) {
      const double value = json_value<double>(link, key, where);
      if (value < 0) raise_error(Error::Kind::input, where, std::string("'") + key + "' must be a number >= 0");
      return value;
    };
    file.links.push_back({number("bits_per_second"), number("latency_seconds")});
    file.notes.push_back(link.value("how", ""));
  }
  return file;
}

}  // namespace mpimon
