#pragma once
// Helpers shared by the analysis unit tests.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "mpimon/base/error.hpp"
#include "mpimon/base/scratch.hpp"

namespace mpimon::test {

/// A fresh directory under the system temp dir, removed at the end of the test (a ScratchDirectory).
class TempDir {
 public:
  [[nodiscard]] std::string file(const std::string& name) const { return (path() / name).string(); }
  [[nodiscard]] const std::filesystem::path& path() const { return scratch_.path(); }
  std::string write(const std::string& name, const std::string& content) const {
    std::ofstream(file(name), std::ios::binary) << content;
    return file(name);
  }

 private:
  ScratchDirectory scratch_{"test"};
};

inline std::string data_path(const std::string& name) { return std::string(MPIMON_TEST_DATA) + "/" + name; }

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Runs f and returns the message of the mpimon::Error it throws ("" if none).
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const mpimon::Error& e) {
    return e.what();
  }
  return "";
}

/// 66 comma-separated bucket values, with `ones` listed buckets set.
inline std::string histogram_text(std::initializer_list<std::pair<int, int>> set = {}) {
  int b[66] = {};
  for (auto [k, v] : set) b[k] = v;
  std::string s;
  for (int i = 0; i < 66; ++i) s += (i ? "," : "") + std::to_string(b[i]);
  return s;
}

}  // namespace mpimon::test
