#include "mpimon/results/apps.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>
#include <tuple>

#include "mpimon/base/error.hpp"
#include "mpimon/json.hpp"
#include "mpimon/matrices/h5.hpp"
#include "mpimon/results/csv.hpp"
#include "mpimon/results/overhead.hpp"
#include "results_file.hpp"

namespace mpimon {

std::uint64_t TrafficTotals::point_to_point_messages() const {
  return messages[static_cast<std::size_t>(TrafficClass::external)] +
         messages[static_cast<std::size_t>(TrafficClass::internal)];
}

namespace {

constexpr std::string_view kReportTag = "mpimon-workload: ";

}  // namespace

std::optional<WorkloadReport> find_workload_report(const std::string& output, const std::string& where) {
  // The last tagged line: a line that starts with the tag (rank 0 prints it once).
  std::optional<std::string> json;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(kReportTag, 0) == 0) json = line.substr(kReportTag.size());
  }
  if (!json) return std::nullopt;
  const std::string in_report = where + ": workload report";
  const Json tree = parse_json(*json, in_report);
  WorkloadReport r;
  r.json = *json;
  r.seconds = json_value<double>(tree, "seconds", in_report);
  r.comm_share = json_value<double>(tree, "comm_share", in_report);
  r.messages_sent = json_value<std::uint64_t>(tree, "messages_sent", in_report);
  r.bytes_sent = json_value<std::uint64_t>(tree, "bytes_sent", in_report);
  r.passed = json_value<bool>(tree, "passed", in_report);
  if (!std::isfinite(r.seconds) || r.seconds < 0 || !(r.comm_share >= 0 && r.comm_share <= 1)) {
    raise_error(Error::Kind::input, where, "workload report with seconds < 0 or comm_share outside 0..1");
  }
  return r;
}

std::optional<double> reported_time(const std::string& output, const std::regex& pattern, const std::string& where) {
  std::optional<std::string> text;
  for (auto it = std::sregex_iterator(output.begin(), output.end(), pattern); it != std::sregex_iterator(); ++it) {
    text = it->size() > 1 ? (*it)[1].str() : it->str();
  }
  if (!text) return std::nullopt;
  std::size_t used = 0;
  double value = -1;
  try {
    value = std::stod(*text, &used);
  } catch (const std::exception&) {
  }
  if (used == 0 || used != text->size() || !std::isfinite(value) || value < 0) {
    raise_error(Error::Kind::input, where, "the time the output reports, '" + *text + "', is not a number >= 0");
  }
  return value;
}

namespace {

double median_of(const std::vector<double>& values) { return summarize(values).median; }

std::optional<double> mean_or_none(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

std::map<AppLaunchKey, const AppLaunchRecord*> successful(const std::vector<AppLaunchRecord>& launches) {
  std::map<AppLaunchKey, const AppLaunchRecord*> by_key;
  for (const auto& l : launches) {
    if (l.status == "ok") by_key[l.key] = &l;
  }
  return by_key;
}

}  // namespace

ArmPair arms_of(const std::map<std::string, std::string>& configuration) {
  auto it = configuration.find("arms");
  if (it == configuration.end()) return {};
  const auto comma = it->second.find(',');
  ArmPair arms{it->second.substr(0, comma), comma == std::string::npos ? "" : it->second.substr(comma + 1)};
  if (arms.base.empty() || arms.other.empty() || arms.other.find(',') != std::string::npos) {
    raise_error(Error::Kind::format, "configuration", "arms '" + it->second + "' do not name two arms");
  }
  return arms;
}

std::vector<AppPair> app_pairs(const std::vector<AppLaunchRecord>& launches, const ArmPair& arms) {
  auto by_key = successful(launches);
  std::vector<AppPair> pairs;
  for (const auto& [key, on] : by_key) {
    if (key.arm != arms.other) continue;
    auto off = by_key.find({key.app, key.np, key.pair, arms.base});
    if (off == by_key.end()) continue;
    const double o = off->second->seconds;
    pairs.push_back({key.app, key.np, key.pair, o, on->seconds,
                     o > 0 ? on->seconds / o - 1 : std::numeric_limits<double>::quiet_NaN(), off->second->comm_share});
  }
  return pairs;
}

void order_rows(std::vector<AppRow>& rows, const std::string& apps) {
  std::vector<std::string> order;
  std::istringstream in(apps);
  for (std::string app; std::getline(in, app, ',');) order.push_back(app);
  auto rank = [&](const AppRow& r) { return std::find(order.begin(), order.end(), r.app) - order.begin(); };
  std::stable_sort(rows.begin(), rows.end(), [&](const AppRow& a, const AppRow& b) { return rank(a) < rank(b); });
}

std::vector<AppRow> analyze_apps(const std::vector<AppLaunchRecord>& launches, double confidence, const ArmPair& arms) {
  auto by_key = successful(launches);
  struct Cell {
    std::vector<double> off, on, messages, external, bytes, share;
    std::string time_source;
  };
  std::map<std::pair<std::string, std::uint32_t>, Cell> cells;
  for (const auto& p : app_pairs(launches, arms)) {
    Cell& c = cells[{p.app, p.np}];
    c.off.push_back(p.off);
    c.on.push_back(p.on);
    if (p.comm_share) c.share.push_back(*p.comm_share);
    const AppLaunchRecord& on = *by_key.at({p.app, p.np, p.pair, arms.other});
    c.time_source = on.time_source;
    if (on.traffic) {
      const auto& t = *on.traffic;
      const double np = p.np;
      c.messages.push_back(static_cast<double>(t.point_to_point_messages()) / np);
      c.external.push_back(static_cast<double>(t.messages[static_cast<std::size_t>(TrafficClass::external)]) / np);
      c.bytes.push_back(static_cast<double>(t.bytes[static_cast<std::size_t>(TrafficClass::external)] +
                                            t.bytes[static_cast<std::size_t>(TrafficClass::internal)]) /
                        np);
    }
  }
  std::vector<AppRow> rows;
  for (const auto& [key, c] : cells) {
    AppRow r;
    r.app = key.first;
    r.np = key.second;
    r.time_source = c.time_source;
    r.analysis = paired_analysis(c.off, c.on, confidence);
    r.off_median = median_of(c.off);
    r.on_median = median_of(c.on);
    r.messages_per_process = mean_or_none(c.messages);
    r.external_per_process = mean_or_none(c.external);
    r.bytes_per_process = mean_or_none(c.bytes);
    if (r.messages_per_process && r.analysis.mean_on > 0) {
      r.messages_per_second = *r.messages_per_process * r.np / r.analysis.mean_on;
    }
    r.comm_share = mean_or_none(c.share);
    rows.push_back(std::move(r));
  }
  return rows;
}

AppLaunchRecord compact(const AppLaunchRecord& launch) {
  AppLaunchRecord c = launch;
  c.command.clear();
  c.report.clear();
  c.bindings.clear();  // the launcher's lines name the host
  return c;
}

void write_app_launches_csv(const std::vector<AppLaunchRecord>& launches, std::ostream& out) {
  out << "launch,app,np,pair,arm,position,status,time_source,seconds,wall_seconds,comm_share,messages_external,"
         "messages_internal,bytes_external,bytes_internal\n";
  std::size_t index = 0;
  for (const auto& l : launches) {
    const std::string status = csv_text(l.status);
    out << ++index << ',' << l.key.app << ',' << l.key.np << ',' << l.key.pair << ',' << l.key.arm << ',' << l.position
        << ',' << status << ',' << l.time_source << ',' << csv_number(l.seconds) << ',' << csv_number(l.wall_seconds)
        << ',' << csv_number(l.comm_share);
    for (auto c : {TrafficClass::external, TrafficClass::internal}) {
      out << ',' << (l.traffic ? std::to_string(l.traffic->messages[static_cast<std::size_t>(c)]) : "");
    }
    for (auto c : {TrafficClass::external, TrafficClass::internal}) {
      out << ',' << (l.traffic ? std::to_string(l.traffic->bytes[static_cast<std::size_t>(c)]) : "");
    }
    out << '\n';
  }
}

std::vector<AppLaunchRecord> read_app_launches_csv(const std::string& path) {
  const results_detail::CsvFile csv(path);
  std::vector<AppLaunchRecord> out;
  for (std::size_t row = 0; row < csv.rows(); ++row) {
    AppLaunchRecord l;
    l.key = {csv.text(row, "app"), static_cast<std::uint32_t>(csv.integer(row, "np")),
             static_cast<std::uint32_t>(csv.integer(row, "pair")), csv.text(row, "arm")};
    l.position = static_cast<std::uint32_t>(csv.integer(row, "position"));
    l.status = csv.text(row, "status");
    l.time_source = csv.text(row, "time_source");
    l.seconds = csv.number(row, "seconds");
    l.wall_seconds = csv.number(row, "wall_seconds");
    l.comm_share = csv.optional_number(row, "comm_share");
    if (auto m = csv.optional_integer(row, "messages_external")) {
      TrafficTotals t;
      const auto e = static_cast<std::size_t>(TrafficClass::external),
                 i = static_cast<std::size_t>(TrafficClass::internal);
      t.messages[e] = *m;
      t.messages[i] = csv.integer(row, "messages_internal");
      t.bytes[e] = csv.integer(row, "bytes_external");
      t.bytes[i] = csv.integer(row, "bytes_internal");
      t.point_to_point_only = true;
      l.traffic = t;
    }
    out.push_back(std::move(l));
  }
  return out;
}

void AppResults::create(const std::string& path, const std::map<std::string, std::string>& configuration) {
  results_detail::create(path, kAppsFormat, kAppsFormatVersion, configuration);
}

AppResults::AppResults(std::string path) : path_(std::move(path)) {
  results_detail::check_format(path_, kAppsFormat, kAppsFormatVersion);
}

std::map<std::string, std::string> AppResults::configuration() const {
  return results_detail::read_configuration(path_);
}

namespace {

std::string class_attribute(const char* metric, TrafficClass c) {
  return std::string(metric) + "_" + std::string(class_name(c));
}

void write_launch(hid_t g, const AppLaunchRecord& l) {
  h5::write_attribute(g, "app", l.key.app);
  results_detail::write_launch_identity(g, l);
  h5::write_attribute(g, "time_source", l.time_source);
  h5::write_attribute(g, "report", l.report);
  results_detail::write_number_attribute(g, "seconds", l.seconds);
  results_detail::write_number_attribute(g, "wall_seconds", l.wall_seconds);
  if (l.comm_share) results_detail::write_number_attribute(g, "comm_share", *l.comm_share);
  if (!l.bindings.empty()) h5::write_attribute(g, "bindings", l.bindings);
  if (!l.reorder_stats.empty()) h5::write_attribute(g, "reorder_stats", l.reorder_stats);
  if (l.simulated_seconds) results_detail::write_number_attribute(g, "simulated_seconds", *l.simulated_seconds);
  if (!l.host_traffic.empty()) h5::write_attribute(g, "host_traffic", l.host_traffic);
  if (l.traffic) {
    for (std::size_t i = 0; i < kTrafficClassCount; ++i) {
      const auto c = kAllTrafficClasses[i];
      if (l.traffic->point_to_point_only && c != TrafficClass::external && c != TrafficClass::internal) continue;
      h5::write_attribute(g, class_attribute("messages", kAllTrafficClasses[i]), l.traffic->messages[i]);
      h5::write_attribute(g, class_attribute("bytes", kAllTrafficClasses[i]), l.traffic->bytes[i]);
    }
  }
}

AppLaunchRecord read_app_launch(hid_t g, const std::string& where) {
  AppLaunchRecord l;
  auto integer = [&](const char* name) { return h5::read_uint_attribute(g, name, where).at(0); };
  l.key.app = h5::read_string_attribute(g, "app", where);
  results_detail::read_launch_identity(g, where, l);
  l.time_source = h5::read_string_attribute(g, "time_source", where);
  l.report = h5::read_string_attribute(g, "report", where);
  l.seconds = results_detail::read_number_attribute(g, "seconds", where);
  l.wall_seconds = results_detail::read_number_attribute(g, "wall_seconds", where);
  if (h5::has_attribute(g, "comm_share")) l.comm_share = results_detail::read_number_attribute(g, "comm_share", where);
  if (h5::has_attribute(g, "bindings")) l.bindings = h5::read_string_attribute(g, "bindings", where);
  if (h5::has_attribute(g, "reorder_stats")) l.reorder_stats = h5::read_string_attribute(g, "reorder_stats", where);
  if (h5::has_attribute(g, "simulated_seconds")) {
    l.simulated_seconds = results_detail::read_number_attribute(g, "simulated_seconds", where);
  }
  if (h5::has_attribute(g, "host_traffic")) l.host_traffic = h5::read_string_attribute(g, "host_traffic", where);
  if (h5::has_attribute(g, class_attribute("messages", TrafficClass::external).c_str())) {
    TrafficTotals t;
    for (std::size_t i = 0; i < kTrafficClassCount; ++i) {
      // A compact file made from a launches CSV has the external and internal classes only.
      const std::string messages = class_attribute("messages", kAllTrafficClasses[i]);
      if (!h5::has_attribute(g, messages)) {
        t.point_to_point_only = true;
        continue;
      }
      t.messages[i] = integer(messages.c_str());
      t.bytes[i] = integer(class_attribute("bytes", kAllTrafficClasses[i]).c_str());
    }
    l.traffic = t;
  }
  return l;
}

}  // namespace

std::vector<AppLaunchRecord> AppResults::launches() const {
  return results_detail::read_launches<AppLaunchRecord>(path_, read_app_launch);
}

std::set<AppLaunchKey> AppResults::completed() const { return results_detail::completed_keys(launches()); }

void AppResults::append(const AppLaunchRecord& launch) {
  results_detail::append_launch(path_, [&](hid_t g, const std::string&) { write_launch(g, launch); });
}

void AppResults::write_analysis(const std::vector<AppRow>& rows, const std::vector<AppPair>& pairs,
                                const ArmPair& arms) {
  write_hdf5_table(app_columns(arms), rows, path_, "analysis");
  const std::string& off = arms.base;
  const std::string& on = arms.other;
  constexpr double none = std::numeric_limits<double>::quiet_NaN();
  results_detail::Table per_pair;
  for (const auto& p : pairs) {
    per_pair.strings["app"].push_back(p.app);
    per_pair.integers["np"].push_back(p.np);
    per_pair.integers["pair"].push_back(p.pair);
    per_pair.numbers[off + "_s"].push_back(p.off);
    per_pair.numbers[on + "_s"].push_back(p.on);
    per_pair.numbers["relative"].push_back(p.relative);
    per_pair.numbers["comm_share"].push_back(p.comm_share.value_or(none));
  }
  results_detail::write_table(path_, "pairs", per_pair);
}

}  // namespace mpimon
