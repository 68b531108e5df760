#include "mpimon/harness/record.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>

#include "mpimon/base/error.hpp"
#include "mpimon/base/scratch.hpp"
#include "mpimon/base/version.hpp"
#include "mpimon/harness/launch_pairs.hpp"

extern char** environ;

namespace mpimon::harness {

namespace fs = std::filesystem;

namespace {

// The parameters record chooses: a second value for one of them would make mpirun fail, or
// send the dumps where record does not look.
const char* const kRecordParameters[] = {"pml_monitoring_enable", "pml_monitoring_enable_output",
                                         "pml_monitoring_filename"};

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// The `key = value` lines of an MCA parameter file ('#' starts a comment); nothing when absent.
std::map<std::string, std::string> read_parameter_file(const std::string& path) {
  std::map<std::string, std::string> values;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    line = line.substr(0, line.find('#'));
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    values.emplace(trim(line.substr(0, eq)), trim(line.substr(eq + 1)));
  }
  return values;
}

// "NAME.RANK.prof" -> RANK, for the dumps of this run only.
std::optional<std::uint32_t> dump_rank(const std::string& file, const std::string& name) {
  const std::string head = name + ".", tail = ".prof";
  if (file.size() <= head.size() + tail.size() || file.compare(0, head.size(), head) != 0 ||
      file.compare(file.size() - tail.size(), tail.size(), tail) != 0) {
    return std::nullopt;
  }
  const std::string rank = file.substr(head.size(), file.size() - head.size() - tail.size());
  if (rank.empty() || rank.size() > 9 || rank.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return static_cast<std::uint32_t>(std::stoul(rank));
}

std::vector<std::pair<std::uint32_t, std::string>> find_dumps(const fs::path& directory, const std::string& name) {
  std::vector<std::pair<std::uint32_t, std::string>> dumps;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(directory, ec)) {
    if (auto rank = dump_rank(e.path().filename().string(), name)) dumps.emplace_back(*rank, e.path().string());
  }
  std::sort(dumps.begin(), dumps.end());
  return dumps;
}

fs::path output_directory(const std::string& output) {
  const fs::path parent = fs::path(output).parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

// A private directory next to the output file: on a cluster the current directory's file system
// is usually shared by the nodes, where /tmp is not.
std::shared_ptr<ScratchDirectory> make_private_directory(const std::string& output) {
  try {
    return std::make_shared<ScratchDirectory>(output_directory(output), ".mpimon-record-");
  } catch (const Error& e) {
    throw Error(Error::Kind::input, std::string(e.what()) + " (the dump directory next to the output file)");
  }
}

fs::path make_kept_directory(const std::string& keep, const std::string& dump_name) {
  std::error_code ec;
  fs::create_directories(keep, ec);
  if (ec) raise_error(Error::Kind::input, keep, "--keep-dumps: cannot make the directory: " + ec.message());
  if (!fs::is_directory(keep)) raise_error(Error::Kind::input, keep, "--keep-dumps: not a directory");
  if (!find_dumps(keep, dump_name).empty()) {
    raise_error(Error::Kind::input, keep,
                "--keep-dumps: already holds " + dump_name +
                    ".RANK.prof dumps of an earlier run (they would mix "
                    "with this run's): remove them or choose another directory");
  }
  return fs::absolute(keep).lexically_normal();
}

}  // namespace

bool list_excludes_monitoring(const std::string& list) {
  const bool exclusive = !list.empty() && list[0] == '^';
  bool names_it = false;
  std::string item;
  for (std::size_t i = exclusive ? 1 : 0; i <= list.size(); ++i) {
    if (i == list.size() || list[i] == ',') {
      names_it |= trim(item) == "monitoring";
      item.clear();
    } else {
      item += list[i];
    }
  }
  return exclusive == names_it;
}

std::vector<MonitoringDisabler> find_monitoring_disablers(const std::vector<std::string>& user_mca,
                                                          const std::map<std::string, std::string>& environment,
                                                          const std::vector<std::string>& parameter_files) {
  std::vector<std::map<std::string, std::string>> files;
  for (const auto& f : parameter_files) files.push_back(read_parameter_file(f));
  std::vector<MonitoringDisabler> found;
  for (const std::string framework : {"pml", "osc", "coll"}) {
    std::optional<MonitoringDisabler> setting;
    // The last --mca of a key is the one a launcher keeps.
    for (const auto& kv : user_mca) {
      const auto eq = kv.find('=');
      if (kv.substr(0, eq) == framework) setting = MonitoringDisabler{framework, kv.substr(eq + 1), "--mca " + kv};
    }
    if (auto it = environment.find("OMPI_MCA_" + framework); !setting && it != environment.end()) {
      setting =
          MonitoringDisabler{framework, it->second, "OMPI_MCA_" + framework + "=" + it->second + " in the environment"};
    }
    for (std::size_t i = 0; !setting && i < files.size(); ++i) {
      if (auto it = files[i].find(framework); it != files[i].end()) {
        setting =
            MonitoringDisabler{framework, it->second, framework + " = " + it->second + " in " + parameter_files[i]};
      }
    }
    if (setting && list_excludes_monitoring(setting->value)) found.push_back(*setting);
  }
  return found;
}

std::vector<std::string> user_parameter_files(const std::map<std::string, std::string>& environment) {
  if (auto it = environment.find("OMPI_MCA_mca_base_param_files"); it != environment.end()) {
    std::vector<std::string> files;
    std::string path;
    for (std::size_t i = 0; i <= it->second.size(); ++i) {
      if (i == it->second.size() || it->second[i] == ':') {
        if (!path.empty()) files.push_back(path);
        path.clear();
      } else {
        path += it->second[i];
      }
    }
    return files;
  }
  auto home = environment.find("HOME");
  if (home == environment.end()) return {};
  return {(fs::path(home->second) / ".openmpi" / "mca-params.conf").string()};
}

std::map<std::string, std::string> current_environment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string kv = *e;
    const auto eq = kv.find('=');
    if (eq != std::string::npos) env.emplace(kv.substr(0, eq), kv.substr(eq + 1));
  }
  return env;
}

std::string rank_ranges(const std::vector<std::uint32_t>& ranks) {
  std::string text;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    text += (text.empty() ? "" : ", ") + std::to_string(ranks[i]);
    if (j > i) text += "-" + std::to_string(ranks[j]);
    i = j + 1;
  }
  return text;
}

void check_record_settings(const RecordSettings& s) {
  if (s.command.empty()) throw Error(Error::Kind::usage, "no application: give it after --, e.g. -- ./app ARGS");
  if (s.mode != 1 && s.mode != 2) {
    throw Error(Error::Kind::usage,
                "--mode takes 1 (every message as external) or 2 (internal told apart), not " + std::to_string(s.mode));
  }
  for (const auto& kv : s.mca) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) throw Error(Error::Kind::usage, "--mca takes KEY=VALUE, not '" + kv + "'");
    const std::string key = kv.substr(0, eq);
    if (std::find(std::begin(kRecordParameters), std::end(kRecordParameters), key) != std::end(kRecordParameters)) {
      throw Error(Error::Kind::usage, "--mca " + key +
                                          " is set by mpimon record (use --mode for the monitoring "
                                          "mode, --keep-dumps DIR to keep the dumps)");
    }
  }
  if (s.output.empty()) throw Error(Error::Kind::usage, "-o takes a file name");
}

RecordPlan prepare_record(const RecordSettings& s) {
  check_record_settings(s);
  const auto environment = current_environment();
  RecordPlan plan{s, MpiLaunch(s.launcher, s.np), {}, fs::path(s.command[0]).filename().string(), {}, {}};
  for (auto& d : find_monitoring_disablers(s.mca, environment, user_parameter_files(environment))) {
    if (d.framework != "pml") {
      plan.partial.push_back(d);
      continue;
    }
    throw Error(d.source.rfind("--mca", 0) == 0 ? Error::Kind::usage : Error::Kind::input,
                d.source +
                    ": a pml list without 'monitoring' switches the monitoring off, and Open MPI then writes "
                    "no dump and says nothing; name it too (e.g. pml=" +
                    d.value + ",monitoring), or unset it");
  }
  if (auto why = cannot_create_file_in(output_directory(s.output)); !why.empty()) {
    raise_error(Error::Kind::input, output_directory(s.output).string(), "cannot write the output file here: " + why);
  }
  if (s.keep_dumps.empty()) {
    plan.private_directory = make_private_directory(s.output);
    plan.directory = fs::absolute(plan.private_directory->path()).lexically_normal();
  } else {
    plan.directory = make_kept_directory(s.keep_dumps, plan.dump_name);
  }
  if (auto why = cannot_create_file_in(plan.directory); !why.empty()) {
    raise_error(Error::Kind::input, plan.directory.string(),
                "the ranks could not write their dumps here (Open MPI would lose them without a word): " + why);
  }
  monitoring_on(plan.launch, s.mode, (plan.directory / plan.dump_name).string());
  user_mca(plan.launch, s.mca);
  plan.launch.program(s.command[0], {s.command.begin() + 1, s.command.end()});
  return plan;
}

RunProvenance run_provenance(const std::string& launcher, const std::vector<std::string>& user_mca) {
  RunProvenance p{open_mpi_release_of(launcher), {}};
  const auto environment = current_environment();
  const auto disabled = find_monitoring_disablers(user_mca, environment, user_parameter_files(environment));
  for (const auto& framework : installed_monitoring_components(launcher)) {
    const bool off = std::any_of(disabled.begin(), disabled.end(),
                                 [&](const MonitoringDisabler& d) { return d.framework == framework; });
    if (!off) p.monitoring_components.push_back(framework);
  }
  return p;
}

void add_provenance(MergeOptions& options, const RunProvenance& provenance) {
  options.root_strings.emplace_back("open_mpi_version", provenance.open_mpi_version);
  options.root_string_lists.emplace_back("monitoring_components", provenance.monitoring_components);
}

RecordOutcome run_record(const RecordPlan& plan) {
  const auto& s = plan.settings;
  RecordOutcome outcome;
  outcome.dump_directory = plan.directory.string();
  // No time limit of its own: the application runs as long as it runs under the launcher.
  outcome.launch = plan.launch.run(std::chrono::hours(24 * 365), "", ChildOutput::inherited);

  const auto dumps = find_dumps(plan.directory, plan.dump_name);
  std::vector<std::string> files;
  for (const auto& [rank, path] : dumps) {
    outcome.present_ranks.push_back(rank);
    files.push_back(path);
  }
  if (!files.empty()) {
    MergeOptions options;
    options.generator = std::string("mpimon ") + kVersion + " record";
    add_provenance(options, run_provenance(s.launcher, s.mca));
    try {
      auto merged = merge_prof_files(files, s.output, options);
      if (!merged.empty()) outcome.merged = merged.front();
    } catch (const Error& e) {
      outcome.merge_error = e.what();
    }
  }
  outcome.expected_ranks = s.np > 0 ? s.np : (outcome.merged ? outcome.merged->nprocs : 0);
  const std::set<std::uint32_t> present(outcome.present_ranks.begin(), outcome.present_ranks.end());
  for (std::uint32_t r = 0; r < outcome.expected_ranks; ++r) {
    if (!present.count(r)) outcome.missing_ranks.push_back(r);
  }
  outcome.dumps_kept = !plan.private_directory || !outcome.merge_error.empty();
  if (plan.private_directory && outcome.dumps_kept) plan.private_directory->keep();
  return outcome;
}

std::string no_dump_explanation(const RecordPlan& plan, const RecordOutcome& outcome) {
  if (outcome.launch.exit_code != 0) {
    return "the application ended before MPI_Finalize, where the ranks write their dumps";
  }
  return "the application ended normally, so monitoring was off where mpimon cannot see it: a pml list without "
         "'monitoring' in Open MPI's own parameter file (PREFIX/etc/openmpi-mca-params.conf), the directory " +
         plan.directory.string() +
         " not writable on the nodes the ranks ran on, or a program that is not an MPI "
         "program (or never calls MPI_Finalize)";
}

}  // namespace mpimon::harness
