#include "mpimon/harness/report_data.hpp"

#include <numeric>
#include <sstream>

#include "mpimon/base/json.hpp"
#include "mpimon/checks/recorded_facts.hpp"
#include "mpimon/matrices/export.hpp"

namespace mpimon::harness {

namespace {

std::string quoted_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ",\"" : "\"") + json_escape(items[i]) + "\"";
  return out + "]";
}

uint128 total(const SparseMatrix& m) {
  return std::accumulate(m.values.begin(), m.values.end(), static_cast<uint128>(0));
}

}  // namespace

std::string run_facts_json(const MatrixFile& file, const std::string& dump_name) {
  const std::string dump = dump_name.empty() ? file.default_dump() : dump_name;
  const DumpInfo info = file.info(dump);
  std::ostringstream out;
  out << "{\"open_mpi_version\":\"" << json_escape(file.root_string("open_mpi_version"))
      << "\",\"monitoring_components\":" << quoted_list(file.root_strings("monitoring_components")) << ",\"classes\":[";
  bool first = true;
  for (TrafficClass c : kAllTrafficClasses) {
    const SparseMatrix count = file.matrix(dump, c, Metric::count), bytes = file.matrix(dump, c, Metric::bytes);
    out << (first ? "" : ",") << "{\"name\":\"" << class_name(c) << "\",\"messages\":" << to_decimal(total(count))
        << ",\"bytes\":" << to_decimal(total(bytes)) << ",\"pairs\":" << std::max(count.stored(), bytes.stored())
        << "}";
    first = false;
  }
  out << "],\"defects\":[";
  const auto facts = recorded_facts(file, dump, file.communicators(dump), info.internal_distinguished);
  first = true;
  for (const auto& w : defects_affecting(facts)) {
    out << (first ? "" : ",") << "{\"id\":\"" << w.id << "\",\"meaning\":\"" << json_escape(known_defect(w.id).meaning)
        << "\",\"why\":\"" << json_escape(w.why) << "\",\"link\":\"" << defect_link(w.id) << "\"}";
    first = false;
  }
  out << "]}\n";
  return out.str();
}

}  // namespace mpimon::harness
