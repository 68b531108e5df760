#include "mpimon/checks/recorded_facts.hpp"

namespace mpimon {

RecordedFacts recorded_facts(const MatrixFile& file, const std::string& dump, const CommunicatorTable& comms,
                             bool internal_distinguished) {
  RecordedFacts facts;
  for (TrafficClass c : {TrafficClass::external, TrafficClass::internal}) {
    facts.point_to_point |= file.matrix(dump, c, Metric::count).stored() > 0;
  }
  facts.internal_distinguished = internal_distinguished;
  const std::string release = file.root_string("open_mpi_version");  // "4.1.4" -> series "4.1"
  const auto first_dot = release.find('.');
  facts.open_mpi_series =
      release.substr(0, first_dot == std::string::npos ? first_dot : release.find('.', first_dot + 1));
  facts.monitoring_components = file.root_strings("monitoring_components");
  for (const auto& row : comms.rows) {
    facts.one_to_all_records |= row.one_to_all.calls > 0;
    facts.all_to_one_records |= row.all_to_one.calls > 0;
    facts.all_to_all_records |= row.all_to_all.calls > 0;
  }
  return facts;
}

}  // namespace mpimon
