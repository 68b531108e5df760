#include "mpimon/harness/report_data.hpp"

#include <fstream>
#include <numeric>

#include "mpimon/base/error.hpp"
#include "mpimon/checks/recorded_facts.hpp"
#include "mpimon/json.hpp"
#include "mpimon/matrices/export.hpp"

namespace mpimon::harness {

namespace {

uint128 total(const SparseMatrix& m) {
  return std::accumulate(m.values.begin(), m.values.end(), static_cast<uint128>(0));
}

}  // namespace

std::string run_facts_json(const MatrixFile& file, const std::string& dump_name) {
  const std::string dump = dump_name.empty() ? file.default_dump() : dump_name;
  const DumpInfo info = file.info(dump);
  Json classes = Json::array();
  for (TrafficClass c : kAllTrafficClasses) {
    const SparseMatrix count = file.matrix(dump, c, Metric::count), bytes = file.matrix(dump, c, Metric::bytes);
    classes.push_back({{"name", class_name(c)},
                       {"messages", json_integer(total(count))},
                       {"bytes", json_integer(total(bytes))},
                       {"pairs", std::max(count.stored(), bytes.stored())}});
  }
  Json defects = Json::array();
  const auto facts = recorded_facts(file, dump, file.communicators(dump), info.internal_distinguished);
  for (const auto& w : defects_affecting(facts)) {
    defects.push_back(
        {{"id", w.id}, {"meaning", known_defect(w.id).meaning}, {"why", w.why}, {"link", defect_link(w.id)}});
  }
  const Json facts_json = {{"open_mpi_version", file.root_string("open_mpi_version")},
                           {"monitoring_components", file.root_strings("monitoring_components")},
                           {"classes", classes},
                           {"defects", defects}};
  return json_line(facts_json) + "\n";
}

std::string report_json_kind(const std::string& path) {
  std::ifstream in(path);
  if (!in) raise_error(Error::Kind::input, path, "cannot open");
  if (char first = 0; !(in >> first) || first != '{')
    raise_error(Error::Kind::input, path,
                "neither HDF5 nor a JSON object (mpimon validate --json, mpimon place --json)");
  in.clear();
  in.seekg(0);
  const Json json = parse_json(in, path);
  if (json.is_object() && json.contains("cases")) return "validate";
  if (json.is_object() && json.value("format", "") == "mpimon-placement") return "place";
  raise_error(Error::Kind::input, path, "neither mpimon validate --json nor mpimon place --json output");
}

}  // namespace mpimon::harness
