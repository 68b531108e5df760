// The regression replay of a fuzz target without libFuzzer: feeds every file of the directories
// (or files) named on the command line to the target's LLVMFuzzerTestOneInput, the same entry
// function ci/fuzz.sh fuzzes. Each input runs in a child process of its own: a crash, a sanitizer
// report (LeakSanitizer's at the child's exit included) or a failed invariant ends that child
// abnormally, and the replay fails naming the input. Each input's time and peak memory (the
// child's maxrss, its own, not a high-water mark of the inputs before it) are printed; with
// --max-rss-mb N, an input whose peak passes N MB fails the replay: a reader that allocates what a
// corrupted file declares (4 GiB for a 16 kB file) fails even when the allocation succeeds.

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

struct Outcome {
  int status = 0;    // as wait4 reports it
  long peak_mb = 0;  // the child's maxrss
  double ms = 0;     // wall time
};

Outcome replay_in_child(const std::vector<char>& bytes) {
  std::fflush(nullptr);  // nothing buffered twice
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("replay: fork");
    std::exit(1);
  }
  if (pid == 0) {
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    std::exit(0);  // exit, not _exit: LeakSanitizer checks at exit
  }
  Outcome o;
  rusage usage{};
  while (wait4(pid, &o.status, 0, &usage) < 0) {
    if (errno != EINTR) {
      std::perror("replay: wait4");
      std::exit(1);
    }
  }
  o.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  o.peak_mb = usage.ru_maxrss / 1024;  // kB on Linux
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> inputs;
  long max_rss_mb = 0;
  int first = 1;
  if (argc > 2 && std::string_view(argv[1]) == "--max-rss-mb") {
    max_rss_mb = std::atol(argv[2]);
    if (max_rss_mb <= 0) {
      std::fprintf(stderr, "replay: --max-rss-mb needs a positive number of MB, not '%s'\n", argv[2]);
      return 1;
    }
    first = 3;
  }
  for (int i = first; i < argc; ++i) {
    const fs::path p(argv[i]);
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      for (const auto& e : fs::directory_iterator(p)) {
        if (e.is_regular_file() && e.path().filename().string().front() != '.') inputs.push_back(e.path());
      }
    } else if (fs::is_regular_file(p, ec)) {
      inputs.push_back(p);
    } else {
      std::fprintf(stderr, "replay: %s: no such file or directory\n", argv[i]);
      return 1;
    }
  }
  // A replay of nothing checks nothing.
  if (inputs.empty()) {
    std::fprintf(stderr, "replay: no input files (usage: %s [--max-rss-mb N] DIR_OR_FILE...)\n", argv[0]);
    return 1;
  }
  std::sort(inputs.begin(), inputs.end());
  for (const auto& p : inputs) {
    const std::string name = p.string();
    std::ifstream in(p, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.eof() && in.fail()) {
      std::fprintf(stderr, "replay: %s: read error\n", name.c_str());
      return 1;
    }
    const Outcome o = replay_in_child(bytes);
    if (WIFSIGNALED(o.status)) {
      std::fprintf(stderr, "replay: %s: FAILED: killed by signal %d\n", name.c_str(), WTERMSIG(o.status));
      return 1;
    }
    if (WEXITSTATUS(o.status) != 0) {
      std::fprintf(stderr, "replay: %s: FAILED: exit %d\n", name.c_str(), WEXITSTATUS(o.status));
      return 1;
    }
    std::fprintf(stderr, "replay: %s: %.0f ms, peak memory %ld MB\n", name.c_str(), o.ms, o.peak_mb);
    if (max_rss_mb > 0 && o.peak_mb > max_rss_mb) {
      std::fprintf(stderr, "replay: %s: FAILED: peak memory %ld MB, over the %ld MB limit (--max-rss-mb)\n",
                   name.c_str(), o.peak_mb, max_rss_mb);
      return 1;
    }
  }
  std::printf("replay: %zu inputs ran clean\n", inputs.size());
  return 0;
}
