#pragma once
// Text written into XML (SimGrid's platform files, JUnit reports): one escaping for every writer.

#include <string>
#include <string_view>

namespace mpimon {

/// `text` with the characters XML reserves in attribute values and text replaced by entities.
inline std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace mpimon
