#pragma once
// Minimal RAII over the HDF5 C API, for the library's own use. Every failing call becomes an
// mpimon::Error carrying the HDF5 object path and HDF5's own innermost message; HDF5's automatic
// error printing is switched off so nothing reaches stderr behind the caller's back.

#include <hdf5.h>

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace mpimon::h5 {

/// Owns one hid_t and closes it with the matching H5?close.
class Handle {
 public:
  Handle() = default;
  explicit Handle(hid_t id) : id_(id) {}
  Handle(Handle&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, H5I_INVALID_HID);
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { reset(); }

  [[nodiscard]] hid_t get() const { return id_; }
  void reset();

 private:
  hid_t id_ = H5I_INVALID_HID;
};

/// Throws mpimon::Error (system) if id is negative: "<where>: <what> failed (<HDF5 message>)".
hid_t check(hid_t id, const std::string& where, const char* what);
void check_status(herr_t status, const std::string& where, const char* what);
/// Turns HDF5's automatic error printing off (idempotent).
void silence_errors();

Handle create_file(const std::string& path);
Handle open_file_readonly(const std::string& path);
void flush(hid_t file, const std::string& path);
Handle create_group(hid_t parent, const std::string& name, const std::string& where);
Handle open_group(hid_t parent, const std::string& name, const std::string& where);
Handle open_dataset(hid_t parent, const std::string& name, const std::string& where);
bool exists(hid_t parent, const std::string& name);
/// Names of the direct members of a group, in creation order when it is tracked, else by name.
std::vector<std::string> member_names(hid_t group, const std::string& where);
bool is_group(hid_t parent, const std::string& name);

void write_attribute(hid_t obj, const std::string& name, const std::string& value);
void write_attribute(hid_t obj, const std::string& name, std::uint64_t value);
void write_attribute(hid_t obj, const std::string& name, std::span<const std::uint64_t> values);
void write_attribute(hid_t obj, const std::string& name, std::span<const std::string> values);
bool has_attribute(hid_t obj, const std::string& name);
std::string read_string_attribute(hid_t obj, const std::string& name, const std::string& where);
std::vector<std::uint64_t> read_uint_attribute(hid_t obj, const std::string& name, const std::string& where);
std::vector<std::string> read_strings_attribute(hid_t obj, const std::string& name, const std::string& where);

/// Writes a whole 1-D or 2-D dataset of uint64 (dims.size() == 1 or 2).
void write_dataset(hid_t parent, const std::string& name, std::span<const hsize_t> dims,
                   std::span<const std::uint64_t> data, const std::string& where);
void write_dataset(hid_t parent, const std::string& name, std::span<const std::int64_t> data,
                   const std::string& where);
void write_strings(hid_t parent, const std::string& name, std::span<const std::string> values,
                   const std::string& where);
void write_doubles(hid_t parent, const std::string& name, std::span<const double> values, const std::string& where);
std::vector<double> read_doubles(hid_t dataset, const std::string& where);
/// Opens a file for appending (read-write).
Handle open_file_readwrite(const std::string& path);
/// Deletes a link if it exists (the space is not reclaimed, which is fine for small tables).
void remove_if_exists(hid_t parent, const std::string& name, const std::string& where);

/// Dims of a dataset.
std::vector<hsize_t> dataset_dims(hid_t dataset, const std::string& where);
/// Reads a whole dataset converted to uint64 / int64 (any integer type stored).
std::vector<std::uint64_t> read_uint64(hid_t dataset, const std::string& where);
std::vector<std::int64_t> read_int64(hid_t dataset, const std::string& where);
/// Reads rows [first, first+count) of a 2-D uint64 dataset.
std::vector<std::uint64_t> read_rows(hid_t dataset, hsize_t first, hsize_t count, const std::string& where);
std::vector<std::string> read_strings(hid_t dataset, const std::string& where);

/// A 2-D uint64 dataset whose rows are appended in chunks, for data whose length is only known
/// at the end (the histograms).
class RowAppender {
 public:
  RowAppender(hid_t parent, const std::string& name, hsize_t columns, hsize_t chunk_rows, std::string where);
  void append(std::span<const std::uint64_t> row);
  void finish();
  [[nodiscard]] hid_t dataset() const { return dataset_.get(); }

 private:
  void flush_buffer();
  Handle dataset_;
  hsize_t columns_;
  hsize_t chunk_rows_;
  hsize_t rows_written_ = 0;
  std::vector<std::uint64_t> buffer_;
  std::string where_;
};

/// A dense 2-D uint64 dataset (N x N) filled with zeros and written by blocks of rows.
Handle create_dense(hid_t parent, const std::string& name, hsize_t rows, hsize_t columns, const std::string& where);
void write_rows(hid_t dataset, hsize_t first_row, hsize_t rows, hsize_t columns, std::span<const std::uint64_t> data,
                const std::string& where);

}  // namespace mpimon::h5
