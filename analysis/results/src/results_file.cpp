#include "results_file.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <limits>

#include "mpimon/base/error.hpp"

namespace mpimon::results_detail {

void create(const std::string& path, std::string_view format, std::uint64_t version,
            const std::map<std::string, std::string>& configuration) {
  h5::Handle file = h5::create_file(path);
  h5::write_attribute(file.get(), "format", std::string(format));
  h5::write_attribute(file.get(), "format_version", version);
  h5::Handle config = h5::create_group(file.get(), "configuration", path);
  for (const auto& [k, v] : configuration) h5::write_attribute(config.get(), k, v);
  h5::create_group(file.get(), "launches", path);
}

void check_format(const std::string& path, std::string_view format, std::uint64_t version) {
  h5::Handle file = h5::open_file_readonly(path);
  std::string found =
      h5::has_attribute(file.get(), "format") ? h5::read_string_attribute(file.get(), "format", path) : std::string();
  if (found != format) raise_error(Error::Kind::format, path, "not an " + std::string(format) + " results file");
  auto v = h5::read_uint_attribute(file.get(), "format_version", path);
  if (v.size() != 1 || v[0] != version) raise_error(Error::Kind::format, path, "unsupported format_version");
}

std::map<std::string, std::string> read_configuration(const std::string& path) {
  h5::Handle file = h5::open_file_readonly(path);
  h5::Handle config = h5::open_group(file.get(), "configuration", path);
  const std::string where = path + ":/configuration";
  std::map<std::string, std::string> out;
  for (const auto& name : h5::attribute_names(config.get(), where))
    out[name] = h5::read_string_attribute(config.get(), name, where);
  return out;
}

void append_launch(const std::string& path, const std::function<void(hid_t, const std::string&)>& fill) {
  h5::Handle file = h5::open_file_readwrite(path);
  h5::Handle group = h5::open_group(file.get(), "launches", path);
  const std::string where = path + ":/launches";
  char name[16];
  std::snprintf(name, sizeof name, "%06zu", h5::member_names(group.get(), where).size() + 1);
  h5::Handle g = h5::create_group(group.get(), name, where);
  fill(g.get(), where + "/" + name);
  h5::flush(file.get(), path);
}

void for_each_launch(const std::string& path, const std::function<void(hid_t, const std::string&)>& read) {
  h5::Handle file = h5::open_file_readonly(path);
  h5::Handle group = h5::open_group(file.get(), "launches", path);
  for (const auto& name : h5::member_names(group.get(), path + ":/launches")) {
    h5::Handle g = h5::open_group(group.get(), name, path + ":/launches");
    read(g.get(), path + ":/launches/" + name);
  }
}

void write_table(const std::string& path, const std::string& name, const Table& table) {
  h5::Handle file = h5::open_file_readwrite(path);
  h5::remove_if_exists(file.get(), name, path);
  const std::string where = path + ":/" + name;
  h5::Handle g = h5::create_group(file.get(), name, path);
  for (const auto& [column, values] : table.strings) h5::write_strings(g.get(), column, values, where);
  for (const auto& [column, values] : table.integers) {
    const hsize_t n[] = {values.size()};
    h5::write_dataset(g.get(), column, n, values, where);
  }
  for (const auto& [column, values] : table.numbers) h5::write_doubles(g.get(), column, values, where);
  h5::flush(file.get(), path);
}

void mark_compact(const std::string& path, const std::string& what) {
  h5::Handle file = h5::open_file_readwrite(path);
  h5::write_attribute(file.get(), "compact", what);
  h5::flush(file.get(), path);
}

namespace {
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  for (std::size_t comma; (comma = line.find(',', start)) != std::string::npos; start = comma + 1) {
    fields.push_back(line.substr(start, comma - start));
  }
  fields.push_back(line.substr(start));
  return fields;
}
}  // namespace

CsvFile::CsvFile(const std::string& path) : path_(path) {
  std::ifstream in(path);
  if (!in) raise_error(Error::Kind::input, path, "cannot read the file");
  std::string text;
  for (std::size_t number = 1; std::getline(in, text); ++number) {
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text.empty()) continue;
    auto fields = split_csv(text);
    if (header_.empty()) {
      header_ = std::move(fields);
      continue;
    }
    if (fields.size() != header_.size()) {
      raise_input_error(
          path, number,
          "expected " + std::to_string(header_.size()) + " fields, found " + std::to_string(fields.size()));
    }
    rows_.push_back(std::move(fields));
    lines_.push_back(number);
  }
  if (header_.empty()) raise_error(Error::Kind::input, path, "empty file (no header line)");
}

void CsvFile::fail(std::size_t row, const std::string& reason) const {
  raise_input_error(path_, lines_.at(row), reason);
}

const std::string& CsvFile::text(std::size_t row, const std::string& column) const {
  auto it = std::find(header_.begin(), header_.end(), column);
  if (it == header_.end()) raise_input_error(path_, 1, "no column '" + column + "' in the header");
  return rows_.at(row)[static_cast<std::size_t>(it - header_.begin())];
}

std::optional<double> CsvFile::optional_number(std::size_t row, const std::string& column) const {
  const std::string& field = text(row, column);
  if (field.empty()) return std::nullopt;
  double value = 0;
  auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || end != field.data() + field.size()) fail(row, column + " is not a number: '" + field + "'");
  return value;
}

double CsvFile::number(std::size_t row, const std::string& column) const {
  auto v = optional_number(row, column);
  if (!v) fail(row, column + " is empty");
  return *v;
}

std::optional<std::uint64_t> CsvFile::optional_integer(std::size_t row, const std::string& column) const {
  const std::string& field = text(row, column);
  if (field.empty()) return std::nullopt;
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || end != field.data() + field.size()) {
    fail(row, column + " is not a non-negative integer: '" + field + "'");
  }
  return value;
}

std::uint64_t CsvFile::integer(std::size_t row, const std::string& column) const {
  auto v = optional_integer(row, column);
  if (!v) fail(row, column + " is empty");
  return *v;
}

void write_number_attribute(hid_t obj, const std::string& name, double value) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", value);
  h5::write_attribute(obj, name, std::string(buf));
}

double read_number_attribute(hid_t obj, const std::string& name, const std::string& where) {
  const std::string text = h5::read_string_attribute(obj, name, where);
  try {
    return std::stod(text);
  } catch (const std::exception&) {
    raise_error(Error::Kind::format, where, "attribute " + name + " is not a number: '" + text + "'");
  }
}

}  // namespace mpimon::results_detail
