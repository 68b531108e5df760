// The link parameters `mpimon probe` writes and `mpimon place --links` reads (format "mpimon-links").
#include <fstream>

#include "mpimon/base/error.hpp"
#include "mpimon/json.hpp"
#include "mpimon/placement/time_model.hpp"

namespace mpimon {

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
