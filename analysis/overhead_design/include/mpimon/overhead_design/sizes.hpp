#pragma once
// The message sizes of the overhead benchmark (docs/benchmarks.md, "Sizes"): the named lists that
// --sizes takes besides byte counts, one definition read by mpimon-overhead-bench, which runs them,
// and by `mpimon bench overhead`, which checks --sizes before it launches anything.

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mpimon {

/// The sizes of Open MPI's test_overhead: from 0, next = floor(1.4 x) if that is larger, else
/// x + 1, while below 1.4 MiB: 44 sizes, the last 1385027, clamped here to 1 MiB so that the sweep
/// spans exactly 0..1 MiB.
inline std::vector<int> paper_sizes() {
  std::vector<int> sizes;
  for (int x = 0; x < 1024 * 1024 * 1.4;) {
    sizes.push_back(x);
    const int next = static_cast<int>(x * 1.4);
    x = next > x ? next : x + 1;
  }
  sizes.back() = 1024 * 1024;
  return sizes;
}

/// Four sizes for a short run.
inline std::vector<int> quick_sizes() { return {0, 8, 1024, 65536}; }

/// The words --sizes takes for a list: the one table the program, the command's check and the help read.
struct NamedSizes {
  const char* name;
  const char* summary;  ///< for the help; nullptr: the sizes themselves
  std::vector<int> (*sizes)();
};
inline constexpr std::array<NamedSizes, 2> kNamedSizes{
    {{"paper", "44 sizes 0..1 MiB, as Open MPI's test_overhead", paper_sizes}, {"quick", nullptr, quick_sizes}}};

/// The sizes a word of kNamedSizes names; nullopt for any other text.
inline std::optional<std::vector<int>> named_sizes(std::string_view word) {
  for (const auto& n : kNamedSizes) {
    if (word == n.name) return n.sizes();
  }
  return std::nullopt;
}

/// "LIST|paper|quick": for synopses.
inline std::string sizes_synopsis() {
  std::string text = "LIST";
  for (const auto& n : kNamedSizes) text += std::string("|") + n.name;
  return text;
}

/// "'paper' (44 sizes ...) or 'quick' (0,8,1024,65536)": for the help.
inline std::string named_sizes_help() {
  std::string text;
  for (const auto& n : kNamedSizes) {
    std::string what = n.summary ? n.summary : "";
    if (!n.summary) {
      for (int size : n.sizes()) what += (what.empty() ? "" : ",") + std::to_string(size);
    }
    text += std::string(text.empty() ? "" : " or ") + "'" + n.name + "' (" + what + ")";
  }
  return text;
}

}  // namespace mpimon
