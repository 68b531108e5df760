// Unit tests of scratch directories and the clean-up registry (scratch.hpp): a process
// interrupted by a signal leaves nothing behind, nested directories included.

#include "mpimon/base/scratch.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>

#include "test_util.hpp"

namespace mpimon {
namespace {

namespace fs = std::filesystem;

void fill(const fs::path& dir) {
  fs::create_directories(dir / "prof" / "deep");
  for (int i = 0; i < 300; ++i) std::ofstream(dir / "prof" / ("dump." + std::to_string(i) + ".prof")) << i;
  std::ofstream(dir / "prof" / "deep" / "x") << "x";
}

TEST(Scratch, GoneAtTheEndOfItsScopeUnlessKept) {
  fs::path gone, kept;
  {
    const ScratchDirectory s("test");
    gone = s.path();
    fill(gone);
    EXPECT_TRUE(gone.filename().string().starts_with("mpimon-test-"));
  }
  EXPECT_FALSE(fs::exists(gone));
  {
    ScratchDirectory s("test");
    s.keep();
    kept = s.path();
  }
  EXPECT_TRUE(fs::exists(kept));
  fs::remove_all(kept);
}

// In a child: a scratch directory and a registered file, then the signal. The child must exit
// with 128 + signal and leave neither behind.
void interrupted_child_leaves_nothing(int signal) {
  const test::TempDir dir;
  const fs::path record = dir.file("scratch-path");
  const fs::path file = dir.file("partial.h5");
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const ScratchDirectory s("interrupt");
    fill(s.path());
    std::ofstream(record) << s.path().string();
    std::ofstream(file) << "partial";
    remove_on_interrupt_slot(file.string());
    raise(signal);
    _exit(0);  // not reached: the handler exits
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + signal);
  std::string scratch;
  std::ifstream(record) >> scratch;
  ASSERT_FALSE(scratch.empty());
  EXPECT_FALSE(fs::exists(scratch)) << scratch;
  EXPECT_FALSE(fs::exists(file));
}

TEST(Scratch, SigintLeavesNothing) { interrupted_child_leaves_nothing(SIGINT); }
TEST(Scratch, SigtermLeavesNothing) { interrupted_child_leaves_nothing(SIGTERM); }

// With every slot of the registry taken, a scratch directory is an error naming it, and is not
// left behind (an interruption could not have removed it).
TEST(Scratch, AnUnregisteredScratchPathIsAnError) {
  const test::TempDir dir;
  const pid_t pid = fork();  // the slots taken here are the child's alone
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    while (remove_on_interrupt_slot(dir.file("placeholder")) >= 0) {
    }
    std::string message;
    try {
      const ScratchDirectory s("full");
    } catch (const Error& e) {
      message = e.what();
    }
    bool left = false;
    for (const auto& entry : fs::directory_iterator(fs::temp_directory_path()))
      left = left || entry.path().filename().string().starts_with("mpimon-full-");
    _exit(message.find("cannot be registered for removal on interruption") != std::string::npos && !left ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(Scratch, AReleasedPathStays) {
  const test::TempDir dir;
  const fs::path file = dir.file("kept");
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::ofstream(file) << "kept";
    release_on_interrupt(remove_on_interrupt_slot(file.string()));
    raise(SIGTERM);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGTERM);
  EXPECT_TRUE(fs::exists(file));
}

// In a child: a scratch directory and a grandchild in its own process group, tracked; then the
// signal. The handler must stop the grandchild's group (SIGTERM) and let the child wait for it;
// the child then exits with 128 + signal, leaving nothing behind.
TEST(Scratch, AnInterruptionStopsTheTrackedGroupFirst) {
  const test::TempDir dir;
  const fs::path record = dir.file("record");
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const ScratchDirectory s("interrupt");
    StopGroupOnInterrupt stop;
    const pid_t grandchild = fork();
    if (grandchild == 0) {
      stop.track(0);
      setpgid(0, 0);
      execlp("sleep", "sleep", "30", static_cast<char*>(nullptr));
      _exit(127);
    }
    setpgid(grandchild, grandchild);
    stop.track(grandchild);
    raise(SIGTERM);  // held by the handler: the grandchild's group gets it
    int status = 0;
    while (waitpid(grandchild, &status, 0) < 0 && errno == EINTR) {
    }
    std::ofstream(record) << s.path().string() << " " << StopGroupOnInterrupt::interrupted()
                          << " "
                          // Killed by it, or (before its exec) ended by the handler it inherited.
                          << (WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status) - 128);
    StopGroupOnInterrupt::exit_if_interrupted();
    _exit(0);  // not reached
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM);
  std::string scratch;
  int interrupted = 0, grandchild_signal = 0;
  std::ifstream(record) >> scratch >> interrupted >> grandchild_signal;
  ASSERT_FALSE(scratch.empty());
  EXPECT_EQ(interrupted, SIGTERM);
  EXPECT_EQ(grandchild_signal, SIGTERM);
  EXPECT_FALSE(fs::exists(scratch)) << scratch;
}

TEST(Scratch, TemporaryFileGoneUnlessReleased) {
  const test::TempDir dir;
  std::string gone, kept;
  {
    const TemporaryFile a(dir.path(), "a-");
    TemporaryFile b(dir.path(), "b-");
    gone = a.path();
    kept = b.path();
    EXPECT_TRUE(fs::path(gone).filename().string().starts_with("a-"));
    EXPECT_TRUE(fs::exists(gone) && fs::exists(kept));
    b.release();
  }
  EXPECT_FALSE(fs::exists(gone));
  EXPECT_TRUE(fs::exists(kept));
  EXPECT_EQ(cannot_create_file_in(dir.path()), "");
  EXPECT_NE(cannot_create_file_in(dir.file("no-such-directory")), "");
}

}  // namespace
}  // namespace mpimon
