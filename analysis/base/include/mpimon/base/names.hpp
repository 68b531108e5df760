#pragma once
// The one idiom for the names of an enum's values: a constant table of {value, name} pairs beside
// the enum, read both ways by to_name and from_name, so that printing and parsing cannot disagree.
//
//   constexpr std::array<Named<Colour>, 2> kColourNames{{{Colour::red, "red"}, {Colour::blue, "blue"}}};
//   to_name(kColourNames, Colour::red) == "red"; from_name(kColourNames, "blue") == Colour::blue

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace mpimon {

template <typename Enum>
struct Named {
  Enum value;
  const char* name;
};

/// The name of `value` in `table`; "?" for a value the table lacks (a corrupt value).
template <typename Enum, std::size_t N>
constexpr const char* to_name(const std::array<Named<Enum>, N>& table, Enum value) {
  for (const auto& entry : table) {
    if (entry.value == value) return entry.name;
  }
  return "?";
}

/// The value named `name` in `table` (exact, case-sensitive match), nullopt when none is.
template <typename Enum, std::size_t N>
constexpr std::optional<Enum> from_name(const std::array<Named<Enum>, N>& table, std::string_view name) {
  for (const auto& entry : table) {
    if (name == entry.name) return entry.value;
  }
  return std::nullopt;
}

}  // namespace mpimon
