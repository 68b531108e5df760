// `mpimon validate`'s selection, series and reports (validation_run.hpp).

#include "mpimon/harness/validation_run.hpp"

#include <fnmatch.h>

#include <regex>
#include <sstream>

#include "mpimon/base/error.hpp"
#include "mpimon/base/version.hpp"
#include "mpimon/harness/launch.hpp"
#include "mpimon/json.hpp"

namespace mpimon::harness {

namespace {

std::string join_series(const std::vector<std::string>& series) {
  std::string out;
  for (const auto& s : series) out += (out.empty() ? "" : ",") + s;
  return out;
}

}  // namespace

const std::map<std::string, std::string>& installed_components() {
  static const std::map<std::string, std::string> found = [] {
    std::map<std::string, std::string> components;
    LaunchResult r = run_process({"ompi_info", "--parsable"}, {}, std::chrono::seconds(60));
    std::istringstream in(r.output);
    // e.g. mca:pml:monitoring:version:"component:4.1.4" (also "mca:..." and "api:..." lines)
    static const std::regex version(R"re(^mca:([a-z0-9_]+):([a-z0-9_]+):version:"([a-z]+):([^"]*)")re");
    std::smatch m;
    for (std::string line; std::getline(in, line);) {
      if (!std::regex_search(line, m, version)) continue;
      std::string& v = components[m[1].str() + ":" + m[2].str()];
      if (m[3] == "component") v = m[4].str();
    }
    return components;
  }();
  return found;
}

std::vector<Selection> select_cases(const std::vector<std::string>& patterns, const std::vector<int>& nps,
                                    const std::vector<int>& modes, const ComponentsProbe& components) {
  std::vector<Selection> out;
  std::vector<bool> matched(patterns.size(), false);
  for (const auto& c : validation_cases()) {
    bool wanted = patterns.empty();
    for (std::size_t i = 0; i < patterns.size(); ++i) {
      if (fnmatch(patterns[i].c_str(), c.name.c_str(), 0) == 0) wanted = matched[i] = true;
    }
    if (!wanted) continue;
    std::string left_out;
    if (!c.required_component.empty()) {
      // Without ompi_info at all, run the case: its failure then says what is wrong.
      const auto& listed = components();
      if (!listed.empty() && !listed.count(c.required_component))
        left_out = "needs " + c.required_component + ", which ompi_info does not list";
    }
    for (int np : nps.empty() ? c.process_counts : nps) {
      for (int mode : modes.empty() ? c.modes : modes) out.push_back({&c, np, mode, left_out});
    }
  }
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    if (!matched[i])
      throw Error(Error::Kind::usage, "--case '" + patterns[i] + "' matches no validation case (see --list)");
  }
  return out;
}

std::string test_name(const Selection& s) {
  return "validation." + s.c->name + ".mode" + std::to_string(s.mode) + ".np" + std::to_string(s.np);
}

void write_ctest_script(std::ostream& out, const std::vector<Selection>& selection, const std::string& self,
                        const std::string& programs) {
  for (const auto& s : selection) {
    std::string name = test_name(s);
    out << "add_test([=[" << name << "]=] [=[" << self << "]=] validate --case [=[" << s.c->name << "]=] --np " << s.np
        << " --mode " << s.mode << " --programs [=[" << programs << "]=])\n";
    out << "set_tests_properties([=[" << name << "]=] PROPERTIES LABELS [=[validation;mpi;suite"
        << (s.c->defect.empty() ? "" : ";defect") << "]=] PROCESSORS " << s.np
        << " TIMEOUT 300 SKIP_RETURN_CODE 77 FAIL_REGULAR_EXPRESSION HDF5-DIAG)\n";
  }
}

std::vector<std::string> monitoring_components(const std::map<std::string, std::string>& components) {
  std::vector<std::string> found;
  for (const char* framework : {"pml", "osc", "coll"}) {
    auto it = components.find(std::string(framework) + ":monitoring");
    if (it != components.end()) found.push_back(std::string(framework) + "/monitoring " + it->second);
  }
  return found;
}

std::string mpi_series_of(const std::string& launcher) {
  const std::string release = open_mpi_release_of(launcher);
  return release.empty() ? established_series().back() : release_series(release);
}

void write_validation_json(std::ostream& out, const std::vector<std::pair<Selection, CaseResult>>& results,
                           const SuiteOptions& options, const std::string& library,
                           const std::vector<std::string>& components) {
  Json cases = Json::array();
  for (const auto& [s, r] : results) {
    Json mca = Json::object();
    for (const auto& [key, value] : s.c->mca) mca[key] = value;
    const auto shown = std::min<std::size_t>(r.details.size(), 50);
    cases.push_back({{"case", r.name},
                     {"np", r.np},
                     {"pml_monitoring_enable", r.mode},
                     {"mca", mca},
                     {"outcome", outcome_name(r.outcome)},
                     {"expected", outcome_expected(r.outcome)},
                     {"defect", r.defect},
                     {"defect_expected", defect_expected(*s.c, options.mpi_series)},
                     {"defect_present_on", join_series(s.c->defect_present_on)},
                     {"summary", r.summary},
                     {"seconds", r.seconds},
                     {"details", std::vector<std::string>(r.details.begin(), r.details.begin() + shown)}});
  }
  const Json report = {{"generator", "mpimon " + std::string(kVersion)},
                       {"mpi_library", library},
                       {"open_mpi_version", open_mpi_release_of(options.launcher)},
                       {"defects_expected_as_on", options.mpi_series},
                       {"monitoring_components", components},
                       {"launcher", options.launcher},
                       {"cases", cases}};
  out << json_document(report);
}

}  // namespace mpimon::harness
