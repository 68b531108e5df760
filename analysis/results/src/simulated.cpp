#include "mpimon/results/simulated.hpp"

#include <cmath>
#include <filesystem>
#include <limits>
#include <sstream>

#include "mpimon/base/error.hpp"
#include "mpimon/base/number_text.hpp"
#include "mpimon/base/output.hpp"
#include "mpimon/json.hpp"

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

// The configuration keys of one arm: arm_X, arm_X_name, modelled_X, traffic_X.
std::string rankfile_key(const std::string& arm) { return "arm_" + arm; }
std::string name_key(const std::string& arm) { return "arm_" + arm + "_name"; }
std::string modelled_key(const std::string& arm) { return "modelled_" + arm; }
std::string traffic_key(const std::string& arm) { return "traffic_" + arm; }
constexpr std::string_view kRankfilePrefix = "rankfile ";

// The path of arm_X's "rankfile PATH:\nTEXT" ("" when it is not of that form).
std::string rankfile_path(const std::string& description) {
  if (!description.starts_with(kRankfilePrefix)) return "";
  const auto end = description.find(":\n");
  return description.substr(kRankfilePrefix.size(),
                            end == std::string::npos ? std::string::npos : end - kRankfilePrefix.size());
}

bool ok(const SimulatedMapping& m) { return m.status == "ok"; }

std::vector<Column<SimulatedMapping>> simulated_mapping_column_list() {
  using M = SimulatedMapping;
  auto text = [](const std::string& s) { return s.empty() ? TableCell() : TableCell(s); };
  std::vector<Column<M>> c;
  c.push_back(text_column<M>("rankfile", [](const M& m) { return m.rankfile; }).files(kJsonColumn));
  c.push_back(text_column<M>("arm", [](const M& m) { return m.arm; }).console("arm", -4));
  c.push_back(text_column<M>("name", [](const M& m) { return m.name; }).console("mapping", -24));
  c.push_back(text_column<M>("status", [](const M& m) { return m.status; }));
  c.push_back(number_column<M>("seconds", [](const M& m) { return ok(m) ? TableCell(m.seconds) : TableCell(); })
                  .json("simulated_seconds")
                  .console("simulated s", 14, "%.6g"));
  c.push_back(number_column<M>("ratio", [](const M& m) { return number_cell(m.ratio); })
                  .json("ratio_to_first")
                  .console("vs first", 9, "%.3f"));
  // The JSON and the table give the modelled cost beside the time; the CSV and /mappings after it.
  c.push_back(number_column<M>("modelled_cost", [](const M& m) { return number_cell(m.modelled); })
                  .files(kJsonColumn)
                  .console("modelled cost", 14, "%.4g"));
  c.push_back(text_column<M>("time_source", [](const M& m) { return m.time_source; }).files(kJsonColumn));
  c.push_back(number_column<M>("simulated_clock_s", [](const M& m) {
                return ok(m) ? TableCell(m.simulated_seconds) : TableCell();
              }).json("simulated_clock_seconds"));
  c.push_back(number_column<M>("wall_s", [](const M& m) { return TableCell(m.wall_seconds); })
                  .json("wall_seconds")
                  .console("wall s", 10, "%.1f"));
  c.push_back(number_column<M>("modelled_cost", [](const M& m) {
                return number_cell(m.modelled);
              }).files(kCsvColumn | kHdf5Column));
  c.push_back(text_column<M>("traffic_check", [text](const M& m) { return text(m.traffic); }));
  c.push_back(console_column<M>(
      "status", 0, [](const M& m) { return TableCell(m.status); }, "%g", 2));
  return c;
}

}  // namespace

const std::vector<Column<SimulatedMapping>>& simulated_columns() {
  static const std::vector<Column<SimulatedMapping>> columns = simulated_mapping_column_list();
  return columns;
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

void describe_simulated_mappings(std::map<std::string, std::string>& configuration,
                                 const std::vector<SimulatedMapping>& mappings,
                                 const std::vector<std::string>& rankfile_texts) {
  std::string arms;
  for (std::size_t i = 0; i < mappings.size(); ++i) {
    const SimulatedMapping& m = mappings[i];
    arms += (i ? "," : "") + m.arm;
    configuration[rankfile_key(m.arm)] = std::string(kRankfilePrefix) + m.rankfile + ":\n" + rankfile_texts.at(i);
    configuration[name_key(m.arm)] = m.name;
    if (m.modelled) configuration[modelled_key(m.arm)] = format_number(*m.modelled, "%.17g");
    if (!m.traffic.empty()) configuration[traffic_key(m.arm)] = m.traffic;
  }
  configuration["kind"] = kSimulatedKind;
  configuration["arms"] = arms;
}

std::vector<SimulatedMapping> simulated_mappings(const std::map<std::string, std::string>& configuration,
                                                 const std::vector<AppLaunchRecord>& launches) {
  if (!is_simulated(configuration)) raise_error(Error::Kind::format, "configuration", "not a simulation's results");
  std::vector<SimulatedMapping> rows;
  for (const auto& arm : split_arms(value_or(configuration, "arms", ""))) {
    SimulatedMapping row;
    row.arm = arm;
    row.name = value_or(configuration, name_key(arm), arm);
    row.rankfile = rankfile_path(value_or(configuration, rankfile_key(arm), ""));
    row.status = "not run";
    row.traffic = value_or(configuration, traffic_key(arm), "");
    if (const auto cost = value_or(configuration, modelled_key(arm), ""); !cost.empty()) {
      try {
        row.modelled = std::stod(cost);
      } catch (const std::exception&) {
        raise_error(Error::Kind::format, "configuration", modelled_key(arm) + " is not a number: '" + cost + "'");
      }
    }
    for (const auto& l : launches) {
      if (l.key.arm != arm) continue;
      row.status = l.status;
      row.seconds = l.seconds;
      row.time_source = l.time_source;
      row.simulated_seconds = l.simulated_seconds.value_or(std::numeric_limits<double>::quiet_NaN());
      row.wall_seconds = l.wall_seconds;
    }
    rows.push_back(std::move(row));
  }
  if (!rows.empty() && ok(rows.front()) && rows.front().seconds > 0) {
    for (auto& r : rows) {
      if (ok(r)) r.ratio = r.seconds / rows.front().seconds;
    }
  }
  return rows;
}

void write_simulation_results(const std::string& path, const std::map<std::string, std::string>& configuration,
                              const std::vector<AppLaunchRecord>& launches) {
  AtomicOutput out(path);
  std::filesystem::remove(out.temporary());  // HDF5 creates it
  AppResults::create(out.temporary(), configuration);
  AppResults results(out.temporary());
  for (const auto& l : launches) results.append(l);
  write_simulated_mappings(out.temporary(), simulated_mappings(configuration, results.launches()));
  out.commit();
}

void write_simulated_mappings(const std::string& path, const std::vector<SimulatedMapping>& rows) {
  write_hdf5_table(simulated_columns(), rows, path, "mappings");
}

std::string simulated_mappings_json(const std::vector<SimulatedMapping>& rows) {
  return json_document(simulated_columns(), rows, "mappings");
}

void write_simulated_csv(const std::vector<SimulatedMapping>& rows, std::ostream& out) {
  write_csv(simulated_columns(), rows, out);
}

void write_simulated_table(const std::vector<SimulatedMapping>& rows, const std::string& label, std::uint32_t np,
                           std::ostream& out) {
  out << "\n" << label << ", np " << np << ": SIMULATED (SimGrid SMPI)\n";
  write_console(simulated_columns(), rows, out);
  out << "(simulated s: the program's time in the simulation; vs first: its ratio to the first mapping's;\n"
         " modelled cost: mpimon place's model of the same mapping; wall s: how long the simulation took here)\n";
  for (const auto& r : rows) {
    if (!r.traffic.empty()) out << "traffic " << r.arm << ": " << r.traffic << "\n";
  }
}

}  // namespace mpimon
