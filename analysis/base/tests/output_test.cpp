// Unit tests of output files written whole or not at all (output.hpp).

#include "mpimon/base/output.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>

#include "test_util.hpp"

namespace mpimon {
namespace {

namespace fs = std::filesystem;

std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST(Output, AFileAppearsOnlyWhenCommitted) {
  const test::TempDir dir;
  const std::string path = dir.file("out.json");
  {
    AtomicOutput out(path);
    EXPECT_TRUE(fs::exists(out.temporary()));
    EXPECT_FALSE(fs::exists(path));
  }
  EXPECT_EQ(entries(dir.path()), 0U);  // never committed: the temporary is gone too
  write_file_atomically(path, [](std::ostream& out) { out << "whole"; });
  EXPECT_EQ(test::read_text(path), "whole");
  EXPECT_EQ(entries(dir.path()), 1U);
}

TEST(Output, AFailingWriterLeavesTheOldFileAndNoTemporary) {
  const test::TempDir dir;
  const std::string path = dir.write("out.txt", "old");
  EXPECT_THROW(write_file_atomically(path,
                                     [](std::ostream& out) {
                                       out << "partial";
                                       throw std::runtime_error("writer failed");
                                     }),
               std::runtime_error);
  EXPECT_EQ(test::read_text(path), "old");
  EXPECT_EQ(entries(dir.path()), 1U);
}

}  // namespace
}  // namespace mpimon
