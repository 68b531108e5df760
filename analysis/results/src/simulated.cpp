#include "mpimon/results/simulated.hpp"

#include <cmath>
#include <limits>
#include <sstream>

#include "mpimon/base/error.hpp"
#include "mpimon/json.hpp"
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

std::string simulated_mappings_json(const std::vector<SimulatedMapping>& rows,
                                    const std::vector<std::string>& rankfiles,
                                    const std::vector<std::string>& time_sources) {
  auto number = [](std::optional<double> v) { return v && std::isfinite(*v) ? Json(*v) : Json(nullptr); };
  Json mappings = Json::array();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const bool ok = r.status == "ok";
    mappings.push_back({{"rankfile", rankfiles.at(i)},
                        {"arm", r.arm},
                        {"name", r.name},
                        {"status", r.status},
                        {"simulated_seconds", ok ? number(r.seconds) : Json(nullptr)},
                        {"ratio_to_first", number(r.ratio)},
                        {"modelled_cost", number(r.modelled)},
                        {"time_source", time_sources.at(i)},
                        {"simulated_clock_seconds", ok ? number(r.simulated_seconds) : Json(nullptr)},
                        {"wall_seconds", r.wall_seconds},
                        {"traffic_check", r.traffic.empty() ? Json(nullptr) : Json(r.traffic)}});
  }
  return json_document(Json{{"mappings", mappings}});
}

bool is_simulated(const std::map<std::string, std::string>& configuration) {
  return value_or(configuration, "kind", "") == kSimulatedKind;
}

std::string mapping_arm(std::size_t index) {
  std::string name;
  for (std::size_t i = index + 1; i > 0; i = (i - 1) / 26)
    name.insert(name.begin(), static_cast<char>('A' + (i - 1) % 26));
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
