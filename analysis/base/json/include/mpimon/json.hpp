#pragma once
// The project's JSON, written and read with nlohmann-json, with one set of conventions: keys stay
// in the order written (the documented formats list them so), NaN and infinities are written as
// null, text that is not UTF-8 is written with U+FFFD instead of failing, and a file that does not
// parse or holds a value of the wrong type is an mpimon::Error naming the file (and line) and key.
// Header-only (target mpimon::json): only the libraries that write or read JSON link it, privately,
// so no other library, program or installed consumer needs nlohmann-json.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <istream>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "mpimon/base/error.hpp"

namespace mpimon {

using Json = nlohmann::ordered_json;

/// `value` exact as a JSON integer up to 2^64 - 1; beyond, the nearest double.
__extension__ inline Json json_integer(unsigned __int128 value) {
  if (value <= std::numeric_limits<std::uint64_t>::max()) return static_cast<std::uint64_t>(value);
  return static_cast<double>(value);
}

/// The value, or null when it is absent.
template <typename T>
Json json_optional(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

/// `value` on one line without spaces (a line of a program's output, a view a script reads).
inline std::string json_line(const Json& value) { return value.dump(-1, ' ', false, Json::error_handler_t::replace); }

namespace json_detail {

inline bool is_container(const Json& v) { return v.is_object() || v.is_array(); }

/// One line, with a space after each comma and colon: a row of a document.
inline void write_row(std::string& out, const Json& v) {
  if (v.is_object()) {
    out += '{';
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (it != v.begin()) out += ", ";
      out += json_line(it.key()) + ": ";
      write_row(out, it.value());
    }
    out += '}';
  } else if (v.is_array()) {
    out += '[';
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (it != v.begin()) out += ", ";
      write_row(out, *it);
    }
    out += ']';
  } else {
    out += json_line(v);
  }
}

inline void write_block(std::string& out, const Json& v, int depth) {
  const std::string inner(static_cast<std::size_t>(2 * (depth + 1)), ' ');
  const bool rows = v.is_array() && std::any_of(v.begin(), v.end(), is_container);
  if (v.empty() || (!v.is_object() && !rows)) return write_row(out, v);
  out += v.is_object() ? "{" : "[";
  for (auto it = v.begin(); it != v.end(); ++it) {
    out += (it == v.begin() ? "\n" : ",\n") + inner;
    if (v.is_object()) {
      out += json_line(it.key()) + ": ";
      write_block(out, it.value(), depth + 1);
    } else {
      write_row(out, *it);
    }
  }
  out += "\n" + inner.substr(2) + (v.is_object() ? "}" : "]");
}

}  // namespace json_detail

/// `document` as a file holds it, ending with a newline: objects one member per line, an array of
/// objects or arrays one element (a row) per line, rows and arrays of numbers or strings on one line.
inline std::string json_document(const Json& document) {
  std::string out;
  json_detail::write_block(out, document, 0);
  return out + "\n";
}

/// Parses `text`, or throws Error{format, "WHERE:LINE: not JSON: ..."} (":LINE" when `text` has
/// more than one line).
inline Json parse_json(std::string_view text, const std::string& where) {
  // "[json.exception.parse_error.101] parse error at line 3, column 1: syntax error ...": the
  // place is said once, as in every other error.
  auto reason = [](const Json::exception& e, bool placed) {
    std::string said = e.what();
    said.erase(0, said.find("] ") + 2);
    if (placed) said.erase(0, said.find(": ") + 2);
    return "not JSON: " + said;
  };
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    const auto end = text.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(e.byte, text.size()));
    const auto line = static_cast<std::size_t>(std::count(text.begin(), end, '\n')) + 1;
    const bool lines = text.find('\n') < text.size() - 1;
    raise_error(Error::Kind::format, lines ? where + ":" + std::to_string(line) : where, reason(e, true));
  } catch (const Json::exception& e) {  // a number too large for a double
    raise_error(Error::Kind::format, where, reason(e, false));
  }
}

inline Json parse_json(std::istream& in, const std::string& where) {
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return parse_json(text, where);
}

/// `object[key]` as a T (a string, bool, floating-point or integer type), or throws
/// Error{format, "WHERE: 'KEY' ..."} when the object lacks it or holds another type or range.
template <typename T>
T json_value(const Json& object, std::string_view key, const std::string& where) {
  const auto it = object.is_object() ? object.find(key) : object.end();
  auto fail = [&](const char* what) -> T {
    raise_error(Error::Kind::format, where, "'" + std::string(key) + "' " + what);
  };
  if (it == object.end()) return fail("is missing");
  const Json& v = *it;
  if constexpr (std::is_same_v<T, std::string>) {
    return v.is_string() ? v.get<std::string>() : fail("is not a string");
  } else if constexpr (std::is_same_v<T, bool>) {
    return v.is_boolean() ? v.get<bool>() : fail("is not true or false");
  } else if constexpr (std::is_floating_point_v<T>) {
    // A number too large for a double reads as infinity, which JSON cannot write back.
    return v.is_number() && std::isfinite(v.get<double>()) ? v.get<T>() : fail("is not a finite number");
  } else {
    static_assert(std::is_integral_v<T>);
    if (v.is_number_unsigned()) {
      const auto n = v.get<std::uint64_t>();
      if (n <= static_cast<std::uint64_t>(std::numeric_limits<T>::max())) return static_cast<T>(n);
    } else if (v.is_number_integer()) {
      const auto n = v.get<std::int64_t>();
      if constexpr (std::is_signed_v<T>) {
        if (n >= std::numeric_limits<T>::min() && n <= std::numeric_limits<T>::max()) return static_cast<T>(n);
      }
    }
    return fail("is not a whole number in range");
  }
}

}  // namespace mpimon
