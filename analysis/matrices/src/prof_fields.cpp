#include "prof_fields.hpp"

#include <charconv>
#include <cstring>

#include "mpimon/base/error.hpp"

namespace mpimon::prof_detail {

void LineFields::fail(const std::string& reason) const { raise_input_error(path_, line_, reason); }

// One pass over the digits, and anything unusual handed to the careful version.
std::vector<std::uint32_t> LineFields::members(std::string_view list) const {
  std::vector<std::uint32_t> members;
  if (list.empty()) return members;
  members.reserve(list.size() / 2);
  std::uint64_t value = 0;
  bool digits = false;
  for (char c : list) {
    if (c >= '0' && c <= '9' && value < kMaxRank) {
      value = value * 10 + static_cast<unsigned>(c - '0');
      digits = true;
    } else if (c == ',' && digits && value < kMaxRank) {
      members.push_back(static_cast<std::uint32_t>(value));
      value = 0;
      digits = false;
    } else {
      return members_carefully(list);
    }
  }
  if (!digits || value >= kMaxRank) return members_carefully(list);
  members.push_back(static_cast<std::uint32_t>(value));
  return members;
}

std::vector<std::uint32_t> LineFields::members_carefully(std::string_view list) const {
  std::vector<std::uint32_t> members;
  while (!list.empty()) {
    std::size_t comma = list.find(',');
    members.push_back(rank(list.substr(0, comma), "communicator member"));
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
    if (list.empty()) fail("trailing comma in the 'procs:' list");
  }
  return members;
}

std::string_view LineFields::required(FieldCursor& fields, const char* what) const {
  if (fields.at_end()) fail(std::string("line ends before its ") + what);
  return fields.next();
}

std::uint32_t LineFields::rank(std::string_view text, const char* what) const {
  std::uint64_t v = number(text, what);
  if (v >= kMaxRank) fail(std::string(what) + " " + std::string(text) + " is not a valid MPI rank");
  return static_cast<std::uint32_t>(v);
}

std::uint64_t LineFields::suffixed(std::string_view field, std::string_view suffix, const char* what) const {
  if (!field.ends_with(suffix)) {
    fail(std::string(what) + " field '" + printable_prefix(field) + "' does not end with '" + std::string(suffix) +
         "'");
  }
  field.remove_suffix(suffix.size());
  return number(field, what);
}

std::uint64_t LineFields::number(std::string_view text, const char* what) const {
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) {
    fail(std::string(what) + " " + printable_prefix(text) + " exceeds 2^64-1");
  }
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    fail(std::string(what) + " '" + printable_prefix(text) + "' is not a non-negative integer");
  }
  return value;
}

// The hot loop of large dumps (66 numbers per line, most of them 0): one pass over the
// characters, skipping "0,0,0,0," eight bytes at a time (h starts as zeros). Anything unusual is
// handed to the careful version, which names the problem.
void LineFields::histogram(std::string_view text, Histogram& h) const {
  static constexpr char four_zeros[] = "0,0,0,0,";
  std::uint64_t zeros_word = 0;
  std::memcpy(&zeros_word, four_zeros, 8);
  const char* p = text.data();
  const char* const end = p + text.size();
  std::size_t n = 0;
  while (true) {
    while (n + 4 < kHistogramBuckets && end - p >= 8) {
      std::uint64_t word = 0;
      std::memcpy(&word, p, 8);
      if (word != zeros_word) break;
      n += 4;
      p += 8;
    }
    std::uint64_t value = 0;
    const char* first = p;
    while (p != end && *p >= '0' && *p <= '9') {
      if (__builtin_mul_overflow(value, 10u, &value) ||
          __builtin_add_overflow(value, static_cast<unsigned>(*p - '0'), &value)) {
        return histogram_carefully(text, h);
      }
      ++p;
    }
    if (p == first || n >= kHistogramBuckets) return histogram_carefully(text, h);
    h[n++] = value;
    if (p == end) break;
    if (*p != ',') return histogram_carefully(text, h);
    ++p;
  }
  if (n != kHistogramBuckets) histogram_carefully(text, h);
}

void LineFields::histogram_carefully(std::string_view text, Histogram& h) const {
  h = {};
  std::size_t n = 0;
  while (true) {
    std::size_t comma = text.find(',');
    if (n < kHistogramBuckets) h[n] = number(text.substr(0, comma), "histogram bucket");
    ++n;
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  if (n != kHistogramBuckets) {
    fail("histogram has " + std::to_string(n) + " buckets, expected " + std::to_string(kHistogramBuckets));
  }
}

/// The first characters of a field, with control bytes escaped, for error messages.
std::string printable_prefix(std::string_view text) {
  constexpr std::size_t limit = 40;
  std::string out;
  for (char ch : text.substr(0, limit)) {
    auto u = static_cast<unsigned char>(ch);
    if (u < 0x20 || u >= 0x7f) {
      static constexpr char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    } else {
      out += ch;
    }
  }
  if (text.size() > limit) out += "...";
  return out;
}

}  // namespace mpimon::prof_detail
