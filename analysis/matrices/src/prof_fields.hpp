#pragma once
// The fields of a .prof line (private to the reader): numbers, ranks, suffixed counts, the
// 66-bucket histogram and communicator member lists, each parsed fast on the common path and
// handed to a careful version that names the problem, with errors located at the file and line
// the parser is at (docs/prof-format.md).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mpimon/matrices/prof.hpp"

namespace mpimon::prof_detail {

inline constexpr std::uint64_t kMaxRank = 0x7fffffff;  // MPI ranks are non-negative ints

/// Walks the TAB-separated fields of one line.
class FieldCursor {
 public:
  explicit FieldCursor(std::string_view line) : rest_(line) {}
  [[nodiscard]] bool at_end() const { return done_; }
  std::string_view next() {
    std::size_t tab = rest_.find('\t');
    std::string_view field = rest_.substr(0, tab);
    if (tab == std::string_view::npos) {
      done_ = true;
      rest_ = {};
    } else {
      rest_.remove_prefix(tab + 1);
    }
    return field;
  }

 private:
  std::string_view rest_;
  bool done_ = false;
};

/// The first characters of a field, with control bytes escaped, for error messages.
std::string printable_prefix(std::string_view text);

/// Parses fields of the line the parser is at: `line` is the parser's own counter, read at each error.
class LineFields {
 public:
  LineFields(const std::string& path, const std::size_t& line) : path_(path), line_(line) {}

  /// Throws an input error at path:line.
  [[noreturn]] void fail(const std::string& reason) const;
  /// The next field; an error naming `what` when the line has ended.
  std::string_view required(FieldCursor& fields, const char* what) const;
  std::uint64_t number(std::string_view text, const char* what) const;
  std::uint32_t rank(std::string_view text, const char* what) const;
  /// A number followed by `suffix` (" bytes", " msgs sent").
  std::uint64_t suffixed(std::string_view field, std::string_view suffix, const char* what) const;
  /// 66 comma-separated numbers into h.
  void histogram(std::string_view text, Histogram& h) const;
  /// A comma-separated list of ranks (a communicator's 'procs:').
  std::vector<std::uint32_t> members(std::string_view list) const;

 private:
  void histogram_carefully(std::string_view text, Histogram& h) const;
  std::vector<std::uint32_t> members_carefully(std::string_view list) const;

  const std::string& path_;
  const std::size_t& line_;
};

}  // namespace mpimon::prof_detail
