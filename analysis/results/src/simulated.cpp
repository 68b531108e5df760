#include "mpimon/results/simulated.hpp"

#include <cmath>
#include <limits>
#include <sstream>

#include "mpimon/base/error.hpp"
#include "results_file.hpp"

namespace mpimon {

namespace {

std::vector<std::string> split_arms(const std::string& text) {
  std::vector<std::string> arms;
  std::istringstream in(text);
  for (std::string a; std::getline(in, a, ',');) arms.push_back(a);
  return arms;
}

std::string value_or(const std::map<std::string, std::string>& m, const std::string& key, const std::string& other) {
  const auto it = m.find(key);
  return it == m.end() ? other : it->second;
}

}  // namespace

bool is_simulated(const std::map<std::string, std::string>& configuration) {
  return value_or(configuration, "kind", "") == kSimulatedKind;
}

std::string mapping_arm(std::size_t index) {
  std::string name;
  for (std::size_t i = index + 1; i > 0; i = (i - 1) / 26) name.insert(name.begin(), static_cast<char>('A' + (i - 1) % 26));
  return name;
}

std::vector<SimulatedMapping> simulated_mappings(const std::map<std::string, std::string>& configuration,
                                                 const std::vector<AppLaunchRecord>& launches) {
  if (!is_simulated(configuration)) raise_error(Error::Kind::format, "configuration", "not a simulation's results");
  std::vector<SimulatedMapping> rows;
  for (const auto& arm : split_arms(value_or(configuration, "arms", ""))) {
    SimulatedMapping row;
    row.arm = arm;
    row.name = value_or(configuration, "arm_" + arm + "_name", arm);
    row.status = "not run";
    row.traffic = value_or(configuration, "traffic_" + arm, "");
    if (const auto cost = value_or(configuration, "modelled_" + arm, ""); !cost.empty()) {
      try {
        row.modelled = std::stod(cost);
      } catch (const std::exception&) {
        raise_error(Error::Kind::format, "configuration", "modelled_" + arm + " is not a number: '" + cost + "'");
      }
    }
    for (const auto& l : launches) {
      if (l.key.arm != arm) continue;
      row.status = l.status;
      row.seconds = l.seconds;
      row.simulated_seconds = l.simulated_seconds.value_or(std::numeric_limits<double>::quiet_NaN());
      row.wall_seconds = l.wall_seconds;
    }
    rows.push_back(std::move(row));
  }
  if (!rows.empty() && rows.front().status == "ok" && rows.front().seconds > 0) {
    for (auto& r : rows) {
      if (r.status == "ok") r.ratio = r.seconds / rows.front().seconds;
    }
  }
  return rows;
}

void write_simulated_mappings(const std::string& path, const std::vector<SimulatedMapping>& rows) {
  constexpr double none = std::numeric_limits<double>::quiet_NaN();
  results_detail::Table table;
  for (const auto& r : rows) {
    table.strings["arm"].push_back(r.arm);
    table.strings["name"].push_back(r.name);
    table.strings["status"].push_back(r.status);
    table.strings["traffic_check"].push_back(r.traffic);
    table.numbers["seconds"].push_back(r.status == "ok" ? r.seconds : none);
    table.numbers["ratio"].push_back(r.ratio.value_or(none));
    table.numbers["simulated_clock_s"].push_back(r.status == "ok" ? r.simulated_seconds : none);
    table.numbers["wall_s"].push_back(r.wall_seconds);
    table.numbers["modelled_cost"].push_back(r.modelled.value_or(none));
  }
  results_detail::write_table(path, "mappings", table);
}

}  // namespace mpimon
