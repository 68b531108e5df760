// The writers of a results table (mpimon/results/columns.hpp).

#include "mpimon/results/columns.hpp"

#include <limits>

#include "mpimon/base/number_text.hpp"
#include "mpimon/json.hpp"
#include "mpimon/results/csv.hpp"
#include "results_file.hpp"

namespace mpimon {

namespace {

template <typename... F>
struct Visitor : F... {
  using F::operator()...;
};
// Clang 14 (the fuzz build) deduces no aggregate's template arguments without a guide.
template <typename... F>
Visitor(F...) -> Visitor<F...>;

std::string csv_field(const ColumnFormat& column, const TableCell& cell) {
  return std::visit(Visitor{[](std::monostate) { return std::string(); },
                            [&](const std::string& text) { return column.quoted ? csv_quoted(text) : csv_text(text); },
                            [](std::uint64_t count) { return std::to_string(count); },
                            [](double number) { return csv_number(number); }},
                    cell);
}

std::string console_field(const ColumnFormat& column, const TableCell& cell) {
  return std::visit(
      Visitor{[](std::monostate) { return std::string("-"); }, [](const std::string& text) { return text; },
              [](std::uint64_t count) { return std::to_string(count); },
              [&](double number) { return format_number(number, column.format.c_str()); }},
      cell);
}

Json json_value(const TableCell& cell) {
  return std::visit(
      Visitor{[](std::monostate) { return Json(nullptr); }, [](const std::string& text) { return Json(text); },
              [](std::uint64_t count) { return Json(count); }, [](double number) { return Json(number); }},
      cell);
}

}  // namespace

void write_csv(const CellTable& table, std::ostream& out) {
  for (std::size_t c = 0; c < table.columns.size(); ++c) out << (c ? "," : "") << table.columns[c].name;
  out << '\n';
  for (const auto& row : table.rows) {
    for (std::size_t c = 0; c < row.size(); ++c) out << (c ? "," : "") << csv_field(table.columns[c], row[c]);
    out << '\n';
  }
}

void write_console(const CellTable& table, std::ostream& out) {
  auto line = [&](auto field_of) {
    std::string text;
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      const ColumnFormat& column = table.columns[c];
      const std::string field = field_of(c);
      const std::size_t width = static_cast<std::size_t>(column.width < 0 ? -column.width : column.width);
      const std::string pad(field.size() < width ? width - field.size() : 0, ' ');
      if (c > 0) text += std::string(static_cast<std::size_t>(column.gap), ' ');
      text += column.width < 0 ? field + pad : pad + field;
    }
    out << text << '\n';
  };
  line([&](std::size_t c) { return table.columns[c].heading; });
  for (const auto& row : table.rows) line([&](std::size_t c) { return console_field(table.columns[c], row[c]); });
}

std::string json_document(const CellTable& table, const std::string& key) {
  Json rows = Json::array();
  for (const auto& row : table.rows) {
    Json object = Json::object();
    for (std::size_t c = 0; c < row.size(); ++c) {
      const ColumnFormat& column = table.columns[c];
      object[column.json_name.empty() ? column.name : column.json_name] = json_value(row[c]);
    }
    rows.push_back(std::move(object));
  }
  return json_document(Json{{key, rows}});
}

void write_hdf5_table(const CellTable& table, const std::string& path, const std::string& group) {
  results_detail::Table columns;
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    const ColumnFormat& column = table.columns[c];
    for (const auto& row : table.rows) {
      const TableCell& cell = row[c];
      switch (column.kind) {
        case CellKind::text:
          columns.strings[column.name].push_back(std::holds_alternative<std::string>(cell) ? std::get<std::string>(cell)
                                                                                           : std::string());
          break;
        case CellKind::count:
          columns.integers[column.name].push_back(
              std::holds_alternative<std::uint64_t>(cell) ? std::get<std::uint64_t>(cell) : 0);
          break;
        case CellKind::number:
          columns.numbers[column.name].push_back(
              std::holds_alternative<double>(cell) ? std::get<double>(cell) : std::numeric_limits<double>::quiet_NaN());
          break;
      }
    }
  }
  results_detail::write_table(path, group, columns);
}

}  // namespace mpimon
