#pragma once
// A comma-separated option value ("--method packed,refine"): the one place such a list is cut,
// so that every option refuses an empty item with the same answer.

#include <string>
#include <vector>

#include "mpimon/base/error.hpp"

namespace mpimon {

/// "a,b" -> {"a", "b"}; throws Error::Kind::usage naming --`option` for an empty item ("a,,b", "").
inline std::vector<std::string> split_list(const std::string& text, const std::string& option) {
  std::vector<std::string> items;
  for (std::size_t start = 0;;) {
    const std::size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty()) throw Error(Error::Kind::usage, "empty item in --" + option + " '" + text + "'");
    items.push_back(std::move(item));
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

}  // namespace mpimon
