#include "mpimon/harness/launch.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <regex>
#include <sstream>

#include "mpimon/base/error.hpp"
#include "mpimon/base/scratch.hpp"

namespace mpimon::harness {

namespace {

[[noreturn]] void exec_child(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                             const std::string& directory, int out_fd, ChildOutput output) {
  setpgid(0, 0);  // own process group, so a timeout can kill mpirun and everything it started
  // mpirun forwards its standard input to rank 0: never let it take the caller's.
  int null_fd = open("/dev/null", O_RDONLY);
  if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
  if (output == ChildOutput::captured) {
    dup2(out_fd, STDOUT_FILENO);
    dup2(out_fd, STDERR_FILENO);
    // Only through those two: a daemon the child starts (munged, slurmd) closes them, and the caller's
    // read must then see the end, not wait for a copy of the pipe the daemon would keep open.
    if (out_fd > STDERR_FILENO) close(out_fd);
  }
  // Inherited output: out_fd stays open through exec all the same, so that the caller's read sees
  // the end when mpirun and every process it started are gone, as when the output is captured.
  if (!directory.empty() && chdir(directory.c_str()) != 0) _exit(126);
  for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
  _exit(127);
}

/// Reads the child's output until it closes it; kills its process group when `timeout` expires
/// (SIGKILL), or after a grace period once the caller is asked to stop (the clean-up registry's
/// handler sends the group SIGTERM, which mpirun passes on to its ranks). Returns the child's wait
/// status.
int wait_for_child(pid_t pid, int fd, std::chrono::seconds timeout, LaunchResult& result) {
  constexpr std::chrono::seconds kStopGrace{10};
  auto deadline = std::chrono::steady_clock::now() + timeout;
  bool stopping = false;
  char buffer[4096];
  for (bool open = true; open;) {
    if (StopGroupOnInterrupt::interrupted() != 0 && !stopping) {
      stopping = true;
      deadline = std::min(deadline, std::chrono::steady_clock::now() + kStopGrace);
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = !stopping;
      kill(-pid, SIGKILL);
      break;
    }
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000))) <= 0) continue;
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n > 0) {
      result.output.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      open = false;
    }
  }
  close(fd);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace

LaunchResult run_process(const std::vector<std::string>& argv, const std::map<std::string, std::string>& environment,
                         std::chrono::seconds timeout, const std::string& directory, ChildOutput output) {
  if (argv.empty()) raise_error(Error::Kind::input, "", "empty command");
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) raise_error(Error::Kind::system, argv[0], "pipe failed");
  LaunchResult result;
  int status = 0;
  {
    StopGroupOnInterrupt stop_on_interrupt;  // Ctrl-C stops mpirun's group first (scratch.hpp)
    const pid_t pid = fork();
    if (pid < 0) {
      const std::string reason = std::strerror(errno);
      close(pipe_fds[0]);
      close(pipe_fds[1]);
      raise_error(Error::Kind::system, argv[0], "fork failed: " + reason);
    }
    if (pid == 0) {
      stop_on_interrupt.track(0);
      close(pipe_fds[0]);
      exec_child(argv, environment, directory, pipe_fds[1], output);
    }
    setpgid(pid, pid);  // also here: whichever runs first, the group exists before any kill
    stop_on_interrupt.track(pid);
    close(pipe_fds[1]);
    status = wait_for_child(pid, pipe_fds[0], timeout, result);
  }
  StopGroupOnInterrupt::exit_if_interrupted();  // as interrupted, once the group is gone
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.exit_code = 128 + WTERMSIG(status);
  return result;
}

std::map<std::string, std::string> open_mpi_environment() {
  // Open MPI 4.1 reads the OMPI_MCA_ variable, 5.0's launcher (PRRTE) the PRTE_MCA_ one; each
  // ignores the other's. Both accept --oversubscribe on the command line.
  return {{"OMPI_ALLOW_RUN_AS_ROOT", "1"},
          {"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"},
          {"OMPI_MCA_rmaps_base_oversubscribe", "1"},
          {"PRTE_MCA_rmaps_default_mapping_policy", ":oversubscribe"}};
}

std::string launcher_version_line(const std::string& launcher) {
  static std::mutex mutex;
  static std::map<std::string, std::string> cache;
  std::lock_guard lock(mutex);
  auto [it, inserted] = cache.try_emplace(launcher);
  if (inserted) {
    const std::string program = split_words(launcher).at(0);
    LaunchResult r = run_process({program, "--version"}, {}, std::chrono::seconds(30));
    it->second =
        r.exit_code == 0 ? r.output.substr(0, r.output.find('\n')) : "unknown (" + program + " --version failed)";
  }
  return it->second;
}

std::string open_mpi_release(const std::string& version_line) {
  // 4.1: "mpirun (Open MPI) 4.1.4"; 5.0 (PRRTE): "mpirun (Open MPI) 5.0.7"
  std::smatch m;
  static const std::regex release(R"(\(Open MPI\) ([0-9]+\.[0-9]+\.[0-9]+[^ ]*))");
  return std::regex_search(version_line, m, release) ? m[1].str() : "";
}

std::string release_series(const std::string& release) {
  const auto first = release.find('.');
  if (first == std::string::npos) return release;
  return release.substr(0, release.find('.', first + 1));
}

std::string open_mpi_release_of(const std::string& launcher) {
  if (is_open_mpi_launcher(launcher)) {
    if (std::string release = open_mpi_release(launcher_version_line(launcher)); !release.empty()) return release;
  }
  static const std::regex line(R"(Open MPI v([0-9]+\.[0-9]+\.[0-9]+[^ \n]*))");
  static std::mutex mutex;
  static std::map<std::string, std::string> cache;
  std::lock_guard lock(mutex);
  auto [it, inserted] = cache.try_emplace(launcher);
  if (inserted) {
    try {
      LaunchResult r = run_process({"ompi_info", "--version"}, {}, std::chrono::seconds(30));
      std::smatch m;
      if (r.exit_code == 0 && std::regex_search(r.output, m, line)) it->second = m[1].str();
    } catch (const Error&) {
    }
  }
  return it->second;
}

std::vector<std::string> installed_monitoring_components(const std::string& launcher) {
  static std::mutex mutex;
  static std::map<std::string, std::vector<std::string>> cache;
  std::lock_guard lock(mutex);
  auto [it, inserted] = cache.try_emplace(launcher);
  if (!inserted) return it->second;
  // ompi_info of the same installation: beside Open MPI's launcher when it is named by a path; for
  // srun and other launchers, the one in PATH (the library the ranks most likely link).
  const std::filesystem::path program = split_words(launcher).at(0);
  const std::string info = is_open_mpi_launcher(launcher) && program.has_parent_path()
                               ? (program.parent_path() / "ompi_info").string()
                               : "ompi_info";
  LaunchResult r;
  try {
    r = run_process({info, "--parsable"}, {}, std::chrono::seconds(30));
  } catch (const Error&) {
    return it->second;  // no ompi_info: the components stay unknown
  }
  static const std::regex line(R"(^mca:(coll|osc|pml):monitoring:version:)");
  std::istringstream in(r.output);
  std::smatch m;
  for (std::string l; r.exit_code == 0 && std::getline(in, l);) {
    if (std::regex_search(l, m, line) &&
        std::find(it->second.begin(), it->second.end(), m[1].str()) == it->second.end()) {
      it->second.push_back(m[1]);
    }
  }
  std::sort(it->second.begin(), it->second.end());
  return it->second;
}

namespace {

// One row per kind; the last row is the fallback for any other program.
const std::array<LauncherFlags, 3>& launcher_table() {
  static const std::array<LauncherFlags, 3> table{{
      {.kind = LauncherKind::open_mpi,
       .name = "Open MPI's mpirun",
       .programs = {"mpirun", "mpiexec", "orterun"},
       .processes = "-np",
       .bind_core = {"--bind-to", "core"},
       .bind_none = {"--bind-to", "none"},
       .oversubscribe = {"--oversubscribe"},
       .export_option = "-x"},
      // srun exports the whole environment by default; --export=ALL,K=V adds to the ranks' alone.
      // Slurm allocates the CPUs: a job larger than them needs the user's -O (--overcommit).
      {.kind = LauncherKind::slurm,
       .name = "Slurm's srun",
       .programs = {"srun"},
       .processes = "-n",
       .bind_core = {"--cpu-bind=cores"},
       .bind_none = {"--cpu-bind=none"},
       .oversubscribe = {},
       .export_option = "--export=ALL,"},
      {.kind = LauncherKind::other,
       .name = "the launcher",
       .programs = {},
       .processes = "-np",
       .bind_core = {},
       .bind_none = {},
       .oversubscribe = {},
       .export_option = ""},
  }};
  return table;
}

}  // namespace

const LauncherFlags& launcher_flags(const std::string& launcher) {
  const std::string base = std::filesystem::path(split_words(launcher).at(0)).filename().string();
  for (const auto& row : launcher_table()) {
    for (const char* program : row.programs) {
      if (base == program) return row;
    }
  }
  return launcher_table().back();
}

LauncherKind launcher_kind(const std::string& launcher) { return launcher_flags(launcher).kind; }

bool is_open_mpi_launcher(const std::string& launcher) { return launcher_kind(launcher) == LauncherKind::open_mpi; }

std::vector<std::string> split_words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  if (words.empty()) raise_error(Error::Kind::input, "", "empty launcher");
  return words;
}

MpiLaunch::MpiLaunch(const std::string& launcher, std::uint32_t np)
    : argv_(split_words(launcher)), flags_(&launcher_flags(launcher)) {
  if (np > 0) argv_.insert(argv_.end(), {flags_->processes, std::to_string(np)});
  if (open_mpi()) environment_ = open_mpi_environment();
}

MpiLaunch& MpiLaunch::option(const std::vector<std::string>& words) {
  argv_.insert(argv_.end(), words.begin(), words.end());
  return *this;
}

MpiLaunch& MpiLaunch::bind(bool to_cores) {
  for (const char* w : to_cores ? flags_->bind_core : flags_->bind_none) argv_.emplace_back(w);
  return *this;
}

MpiLaunch& MpiLaunch::oversubscribe() {
  for (const char* w : flags_->oversubscribe) argv_.emplace_back(w);
  return *this;
}

MpiLaunch& MpiLaunch::mca(const std::string& key, const std::string& value) {
  if (open_mpi()) {
    argv_.insert(argv_.end(), {"--mca", key, value});
  } else {
    environment_["OMPI_MCA_" + key] = value;
  }
  return *this;
}

MpiLaunch& MpiLaunch::environment(const std::string& key, const std::string& value) {
  const std::string option = flags_->export_option;
  if (option == "-x") {
    argv_.insert(argv_.end(), {"-x", key + "=" + value});
  } else if (!option.empty() && value.find(',') == std::string::npos) {
    exports_.push_back(key + "=" + value);
  } else {
    environment_[key] = value;
  }
  return *this;
}

MpiLaunch& MpiLaunch::program(const std::string& path, const std::vector<std::string>& args) {
  if (!exports_.empty()) {
    std::string option = flags_->export_option;
    for (const auto& kv : exports_) option += (&kv == &exports_.front() ? "" : ",") + kv;
    argv_.push_back(option);
    exports_.clear();
  }
  argv_.push_back(path);
  argv_.insert(argv_.end(), args.begin(), args.end());
  return *this;
}

std::string MpiLaunch::text() const {
  std::string line;
  for (const auto& [k, v] : environment_) line += k + "=" + v + " ";
  for (const auto& w : argv_) line += (&w == &argv_.front() ? "" : " ") + w;
  return line;
}

LaunchResult MpiLaunch::run(std::chrono::seconds timeout, const std::string& directory, ChildOutput output) const {
  return run_process(argv_, environment_, timeout, directory, output);
}

}  // namespace mpimon::harness
