#include "results_file.hpp"

#include <cstdio>
#include <limits>

#include "mpimon/error.hpp"

namespace mpimon::results {

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
  std::map<std::string, std::string> out;
  const int n = static_cast<int>(H5Aget_num_attrs(config.get()));
  for (int i = 0; i < n; ++i) {
    char name[256];
    H5Aget_name_by_idx(config.get(), ".", H5_INDEX_NAME, H5_ITER_INC, static_cast<hsize_t>(i), name, sizeof name,
                       H5P_DEFAULT);
    out[name] = h5::read_string_attribute(config.get(), name, path + ":/configuration");
  }
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

void append_paired(Table& table, const PairedAnalysis& a, const PairedColumns& names) {
  constexpr double none = std::numeric_limits<double>::quiet_NaN();  // absent: undefined for the data
  auto& column = table.numbers;
  const auto& t = a.t_test;
  column[names.off].push_back(a.mean_off);
  column[names.on].push_back(a.mean_on);
  column["difference" + names.unit].push_back(a.mean_difference);
  column["difference_ci_low" + names.unit].push_back(t ? t->ci.low : none);
  column["difference_ci_high" + names.unit].push_back(t ? t->ci.high : none);
  column["t"].push_back(t ? t->t : none);
  column["df"].push_back(t ? t->df : none);
  column["p"].push_back(t ? t->p_value : none);
  const bool relative_ci = a.relative && a.relative->ci;
  column["relative"].push_back(a.relative ? a.relative->value : none);
  column["relative_ci_low"].push_back(relative_ci ? a.relative->ci->low : none);
  column["relative_ci_high"].push_back(relative_ci ? a.relative->ci->high : none);
  column["wilcoxon_v"].push_back(a.wilcoxon ? a.wilcoxon->v : none);
  column["wilcoxon_p"].push_back(a.wilcoxon ? a.wilcoxon->p_value : none);
  column["significant"].push_back(a.significant() ? 1.0 : 0.0);
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

}  // namespace mpimon::results
