#pragma once
// The columns of a results table, as google/benchmark's reporters share one run record: one record
// type per kind of row (a simulated mapping, an application row, an overhead cell) and one list of
// columns per kind, which drives every writer of that kind: the console table, the CSV, the JSON
// and the HDF5 table. A column names itself once; it says which writers show it and, where a
// file already spells it otherwise, that spelling (a JSON key), so that the files keep their names.

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

namespace mpimon {

/// A cell: absent (CSV "", console "-", JSON null, HDF5 NaN or ""), a text, a count or a number.
using TableCell = std::variant<std::monostate, std::string, std::uint64_t, double>;

/// A number cell, absent when `value` is.
inline TableCell number_cell(std::optional<double> value) { return value ? TableCell(*value) : TableCell(); }

/// The writers a column appears in (a mask).
enum ColumnWriters : unsigned {
  kConsoleColumn = 1,
  kCsvColumn = 2,
  kJsonColumn = 4,
  kHdf5Column = 8,
  kFileColumns = kCsvColumn | kJsonColumn | kHdf5Column,
};

/// What a column's cells are: the HDF5 table's type of the column (text: strings, count: unsigned
/// integers, number: doubles).
enum class CellKind { text, count, number };

/// A column without its cells: its names and where it is shown.
struct ColumnFormat {
  std::string name;  ///< the CSV header's and the HDF5 table's name, and the JSON key unless json_name
  CellKind kind = CellKind::number;
  unsigned writers = kFileColumns;
  std::string json_name;  ///< the JSON key where the JSON spells it otherwise
  bool quoted = false;    ///< CSV: quoted as RFC 4180 says (else commas, newlines, quotes become spaces)
  // The console: a heading, a width (negative: left-aligned), a printf format for numbers, and the
  // spaces before the column.
  std::string heading;
  int width = 0;
  std::string format = "%g";
  int gap = 1;
};

/// One column of a kind of row: its format and how a row fills it.
template <typename Row>
struct Column {
  ColumnFormat format;
  std::function<TableCell(const Row&)> cell;

  /// Also on the console, under `heading`, `width` wide (negative: left-aligned), numbers in printf's `number`.
  Column& console(std::string heading, int width, std::string number = "%g", int gap = 1) {
    format.writers |= kConsoleColumn;
    format.heading = std::move(heading);
    format.width = width;
    format.format = std::move(number);
    format.gap = gap;
    return *this;
  }
  /// In these files only (a mask of kCsvColumn, kJsonColumn, kHdf5Column; 0: the console alone).
  Column& files(unsigned mask) {
    format.writers = (format.writers & kConsoleColumn) | mask;
    return *this;
  }
  /// The JSON's key for it, where it differs from the name.
  Column& json(std::string key) {
    format.json_name = std::move(key);
    return *this;
  }
  Column& quoted() {
    format.quoted = true;
    return *this;
  }
};

namespace columns_detail {
template <typename Row, typename F>
Column<Row> column(std::string name, CellKind kind, F cell) {
  Column<Row> c;
  c.format.name = std::move(name);
  c.format.kind = kind;
  c.cell = std::move(cell);
  return c;
}
}  // namespace columns_detail

template <typename Row, typename F>
Column<Row> text_column(std::string name, F cell) {
  return columns_detail::column<Row>(std::move(name), CellKind::text, std::move(cell));
}
template <typename Row, typename F>
Column<Row> count_column(std::string name, F cell) {
  return columns_detail::column<Row>(std::move(name), CellKind::count, std::move(cell));
}
template <typename Row, typename F>
Column<Row> number_column(std::string name, F cell) {
  return columns_detail::column<Row>(std::move(name), CellKind::number, std::move(cell));
}
/// A column of the console alone (a cell made for reading: an interval, a verdict in words).
template <typename Row, typename F>
Column<Row> console_column(std::string heading, int width, F cell, std::string number = "%g", int gap = 1) {
  Column<Row> c = columns_detail::column<Row>("", CellKind::text, std::move(cell));
  c.files(0).console(std::move(heading), width, std::move(number), gap);
  return c;
}

/// The cells of the rows in the columns one writer shows.
struct CellTable {
  std::vector<ColumnFormat> columns;
  std::vector<std::vector<TableCell>> rows;
};

template <typename Row>
CellTable tabulate(const std::vector<Column<Row>>& columns, const std::vector<Row>& rows, ColumnWriters writer) {
  CellTable table;
  std::vector<const Column<Row>*> shown;
  for (const auto& c : columns) {
    if ((c.format.writers & writer) == 0) continue;
    shown.push_back(&c);
    table.columns.push_back(c.format);
  }
  for (const auto& r : rows) {
    auto& cells = table.rows.emplace_back();
    for (const auto* c : shown) cells.push_back(c->cell(r));
  }
  return table;
}

/// The header line and a line per row, fields separated by commas; numbers with 9 significant digits.
void write_csv(const CellTable& table, std::ostream& out);
/// The heading line and a line per row, each column at its width.
void write_console(const CellTable& table, std::ostream& out);
/// {"KEY": [rows]}: one object per row (its columns' JSON keys in order), as mpimon's JSON documents are laid out.
std::string json_document(const CellTable& table, const std::string& key);
/// Replaces the group `group` of the HDF5 results file `path` with one dataset per column.
void write_hdf5_table(const CellTable& table, const std::string& path, const std::string& group);

template <typename Row>
void write_csv(const std::vector<Column<Row>>& columns, const std::vector<Row>& rows, std::ostream& out) {
  write_csv(tabulate(columns, rows, kCsvColumn), out);
}
template <typename Row>
void write_console(const std::vector<Column<Row>>& columns, const std::vector<Row>& rows, std::ostream& out) {
  write_console(tabulate(columns, rows, kConsoleColumn), out);
}
template <typename Row>
std::string json_document(const std::vector<Column<Row>>& columns, const std::vector<Row>& rows,
                          const std::string& key) {
  return json_document(tabulate(columns, rows, kJsonColumn), key);
}
template <typename Row>
void write_hdf5_table(const std::vector<Column<Row>>& columns, const std::vector<Row>& rows, const std::string& path,
                      const std::string& group) {
  write_hdf5_table(tabulate(columns, rows, kHdf5Column), path, group);
}

}  // namespace mpimon
