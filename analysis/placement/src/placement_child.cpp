// A mapping computed in a child process: libraries that exit on errors (TreeMatch) or that cannot
// be interrupted (Scotch) are stopped there when their share of the time is over.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "mpimon/base/error.hpp"
#include "mpimon/base/scratch.hpp"
#include "placement_internal.hpp"

namespace mpimon::placement_detail {

namespace {

[[noreturn]] void run_child(const std::function<Mapping()>& compute, int out_fd, int messages_fd) {
  if (messages_fd >= 0) {
    dup2(messages_fd, STDERR_FILENO);
    dup2(messages_fd, STDOUT_FILENO);  // TreeMatch prints progress on stdout
  }
  Mapping mapping;
  try {
    mapping = compute();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    std::fflush(stderr);
    _exit(6);
  }
  const auto* bytes = reinterpret_cast<const char*>(mapping.data());
  std::size_t left = mapping.size() * sizeof(std::uint64_t);
  while (left > 0) {
    const ssize_t w = write(out_fd, bytes, left);
    if (w <= 0) _exit(5);
    bytes += w;
    left -= static_cast<std::size_t>(w);
  }
  _exit(0);
}

// Reads until end of file or the deadline; false when the deadline passed first.
bool read_until(int fd, std::chrono::steady_clock::time_point deadline, std::string& text) {
  char buffer[65536];
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready < 0 && errno == EINTR) {
      StopGroupOnInterrupt::exit_if_interrupted();
      continue;
    }
    if (ready <= 0) continue;
    const ssize_t r = read(fd, buffer, sizeof buffer);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return true;
    text.append(buffer, static_cast<std::size_t>(r));
  }
}

}  // namespace

Mapping compute_in_child(const std::string& what, const std::function<Mapping()>& compute, std::uint32_t ranks,
                         double seconds, bool& timed_out, int messages_fd) {
  timed_out = false;
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) raise_error(Error::Kind::system, what, "cannot create a pipe");
  std::fflush(nullptr);
  // In a process group of its own, which Ctrl-C stops first (scratch.hpp), as for a launch.
  StopGroupOnInterrupt stop_on_interrupt;
  const auto deadline = deadline_after(seconds);
  const pid_t child = fork();
  if (child == 0) {
    stop_on_interrupt.track(0);
    setpgid(0, 0);
    close(pipe_fds[0]);
    run_child(compute, pipe_fds[1], messages_fd);
  }
  if (child > 0) {
    setpgid(child, child);
    stop_on_interrupt.track(child);
  }
  close(pipe_fds[1]);
  std::string out;
  const bool finished = child > 0 && read_until(pipe_fds[0], deadline, out);
  close(pipe_fds[0]);
  if (child > 0 && !finished) kill(-child, SIGKILL);
  int status = 0;
  while (child > 0 && waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  StopGroupOnInterrupt::exit_if_interrupted();
  if (child > 0 && !finished) {
    timed_out = true;
    return {};
  }
  if (child < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || out.size() != ranks * sizeof(std::uint64_t)) {
    const std::string why = child < 0             ? "fork failed"
                            : WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                                                  : "exit status " + std::to_string(WEXITSTATUS(status));
    raise_error(Error::Kind::system, what, "failed: " + why);
  }
  Mapping mapping(ranks);
  if (ranks > 0) std::memcpy(mapping.data(), out.data(), out.size());
  return mapping;
}

}  // namespace mpimon::placement_detail
