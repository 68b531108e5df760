#include "mpimon/harness/collect.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "mpimon/base/error.hpp"
#include "mpimon/base/scratch.hpp"
#include "mpimon/harness/launch_pairs.hpp"
#include "mpimon/harness/locations.hpp"
#include "mpimon/harness/record.hpp"

namespace mpimon::harness {

namespace fs = std::filesystem;

void check_collect_settings(const CollectSettings& s) {
  if (s.output.empty()) throw Error(Error::Kind::usage, "-o OUT.h5 is required");
  if (s.command.empty()) throw Error(Error::Kind::usage, "no command to run: give it after --");
  if (s.np == 0) throw Error(Error::Kind::usage, "--np must be at least 1");
  if (s.mode != 1 && s.mode != 2) throw Error(Error::Kind::usage, "--mode takes 1 or 2, not " + std::to_string(s.mode));
  HarnessSettings h;
  h.mca = s.mca;
  check_harness_settings(h);
  if (fs::is_directory(s.output)) throw Error(Error::Kind::input, s.output + ": is a directory");
}

std::string find_collect_library() { return own_library("libmpimon-collect.so", "MPIMON_COLLECT_LIBRARY"); }

CollectResult run_collect(const CollectSettings& s) {
  check_collect_settings(s);
  const std::string library = s.library.empty() ? find_collect_library() : fs::absolute(s.library).string();
  const fs::path output = fs::absolute(s.output);
  // Rank 0 writes the file over this empty one; gone if it never does, and on Ctrl-C.
  TemporaryFile partial(output.parent_path(), output.filename().string() + ".collect-");
  const ScratchDirectory directory = launch_directory("collect");

  MpiLaunch l(s.launcher, s.np);
  bind_processes(l, s.np, "auto");
  const std::pair<std::string, std::string> variables[] = {
      {"LD_PRELOAD", library},
      {"MPIMON_COLLECT_OUTPUT", partial.path()},
      {"MPIMON_COLLECT_MISSING", s.refuse_missing ? "refuse" : "label"},
      {"MPIMON_COLLECT_TMPDIR", directory.path().string()},
      {"MPIMON_COLLECT_COMPONENTS", join(run_provenance(s.launcher, s.mca).monitoring_components, ",")}};
  for (const auto& [key, value] : variables) l.environment(key, value);
  monitoring_on(l, s.mode, "");
  user_mca(l, s.mca);
  l.program(s.command.front(), std::vector<std::string>(s.command.begin() + 1, s.command.end()));

  CollectResult r;
  r.command_line = l.text();
  r.launch = l.run(std::chrono::hours(24 * 365));
  std::error_code ec;
  if (r.launch.exit_code == 0 && fs::file_size(partial.path(), ec) > 0) {
    fs::rename(partial.path(), output, ec);
    if (ec) throw Error(Error::Kind::system, output.string() + ": cannot write: " + ec.message());
    partial.release();
    r.written = true;
  }
  return r;
}

}  // namespace mpimon::harness
