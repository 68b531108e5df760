#pragma once
// What the results files of the launch harnesses share (mpimon-overhead, mpimon-apps): a format
// attribute and version, the sweep's configuration as string attributes, one group per launch
// appended and flushed as it completes, and columnar analysis tables.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "mpimon/matrices/h5.hpp"
#include "mpimon/results/stats.hpp"

namespace mpimon::results_detail {

/// Creates `path` with `format`, `format_version`, /configuration (string attributes) and an empty
/// /launches group.
void create(const std::string& path, std::string_view format, std::uint64_t version,
            const std::map<std::string, std::string>& configuration);
/// Throws mpimon::Error (format) unless `path` is a results file of this format and version.
void check_format(const std::string& path, std::string_view format, std::uint64_t version);
std::map<std::string, std::string> read_configuration(const std::string& path);

/// Opens `path`, creates the next /launches/NNNNNN group, lets `fill` write it, flushes.
void append_launch(const std::string& path, const std::function<void(hid_t group, const std::string& where)>& fill);
/// Calls `read` on each launch group, in the order they were appended.
void for_each_launch(const std::string& path, const std::function<void(hid_t group, const std::string& where)>& read);

/// Every launch of `path`, read by `read(group, where)`.
template <typename Record, typename Reader>
std::vector<Record> read_launches(const std::string& path, Reader read) {
  std::vector<Record> out;
  for_each_launch(path, [&](hid_t g, const std::string& where) { out.push_back(read(g, where)); });
  return out;
}

/// The keys of the launches that finished with status "ok" (what --resume skips).
template <typename Record>
auto completed_keys(const std::vector<Record>& launches) {
  std::set<decltype(Record::key)> keys;
  for (const auto& l : launches) {
    if (l.status == "ok") keys.insert(l.key);
  }
  return keys;
}

/// A columnar table: one dataset per column, all of the same length.
struct Table {
  std::map<std::string, std::vector<std::string>> strings;
  std::map<std::string, std::vector<std::uint64_t>> integers;
  std::map<std::string, std::vector<double>> numbers;  ///< NaN where undefined
};
/// Replaces the group `name` of `path` by `table`.
void write_table(const std::string& path, const std::string& name, const Table& table);

/// The attributes every launch record has, whatever its harness: arm, np and pair of its key, its
/// position in the pair, status and command line.
template <typename Record>
void write_launch_identity(hid_t g, const Record& l) {
  h5::write_attribute(g, "arm", l.key.arm);
  h5::write_attribute(g, "np", std::uint64_t{l.key.np});
  h5::write_attribute(g, "pair", std::uint64_t{l.key.pair});
  h5::write_attribute(g, "position", std::uint64_t{l.position});
  h5::write_attribute(g, "status", l.status);
  h5::write_attribute(g, "command", l.command);
}
template <typename Record>
void read_launch_identity(hid_t g, const std::string& where, Record& l) {
  auto integer = [&](const char* name) {
    return static_cast<std::uint32_t>(h5::read_uint_attribute(g, name, where).at(0));
  };
  l.key.arm = h5::read_string_attribute(g, "arm", where);
  l.key.np = integer("np");
  l.key.pair = integer("pair");
  l.position = integer("position");
  l.status = h5::read_string_attribute(g, "status", where);
  l.command = h5::read_string_attribute(g, "command", where);
}

/// Marks `path` as a compact results file: `compact` root attribute saying what it lacks.
void mark_compact(const std::string& path, const std::string& what);

/// A CSV file of `mpimon show --launches-csv` or `--csv`: a header line, then rows of fields
/// separated by commas (no quoting: those files have none). Errors name path:line.
class CsvFile {
 public:
  explicit CsvFile(const std::string& path);
  [[nodiscard]] const std::vector<std::string>& header() const { return header_; }
  [[nodiscard]] std::size_t rows() const { return rows_.size(); }
  [[nodiscard]] std::size_t line(std::size_t row) const { return lines_.at(row); }
  [[nodiscard]] const std::string& text(std::size_t row, const std::string& column) const;
  [[nodiscard]] double number(std::size_t row, const std::string& column) const;
  /// Nothing for an empty field.
  [[nodiscard]] std::optional<double> optional_number(std::size_t row, const std::string& column) const;
  [[nodiscard]] std::uint64_t integer(std::size_t row, const std::string& column) const;
  [[nodiscard]] std::optional<std::uint64_t> optional_integer(std::size_t row, const std::string& column) const;

 private:
  [[noreturn]] void fail(std::size_t row, const std::string& reason) const;
  std::string path_;
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<std::size_t> lines_;
};

/// Numbers kept as decimal text attributes (exact round trip of what was printed).
void write_number_attribute(hid_t obj, const std::string& name, double value);
double read_number_attribute(hid_t obj, const std::string& name, const std::string& where);

}  // namespace mpimon::results_detail
