#pragma once
// Minimal RAII over the HDF5 C API, for the library's own use. Every failing call becomes an
// mpimon::Error carrying the HDF5 object path and HDF5's own innermost message; HDF5's automatic
// error printing is switched off so nothing reaches stderr behind the caller's back.

#include <hdf5.h>

#include <algorithm>
#include <cstdint>
#include <functional>
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

/// Creates (truncates) a file; `configure_access` may set the file driver on the file access
/// property list (the parallel merge sets MPI-IO there).
Handle create_file(const std::string& path, const std::function<void(hid_t fapl)>& configure_access = {});
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
/// Names of the attributes of `obj`, in name order, whatever their length.
std::vector<std::string> attribute_names(hid_t obj, const std::string& where);
std::string read_string_attribute(hid_t obj, const std::string& name, const std::string& where);
std::vector<std::uint64_t> read_uint_attribute(hid_t obj, const std::string& name, const std::string& where);
std::vector<std::string> read_strings_attribute(hid_t obj, const std::string& name, const std::string& where);

/// Writes a whole 1-D or 2-D dataset of uint64 (dims.size() == 1 or 2).
void write_dataset(hid_t parent, const std::string& name, std::span<const hsize_t> dims,
                   std::span<const std::uint64_t> data, const std::string& where);
void write_dataset(hid_t parent, const std::string& name, std::span<const std::int64_t> data, const std::string& where);
void write_strings(hid_t parent, const std::string& name, std::span<const std::string> values,
                   const std::string& where);
/// The dataset write_strings makes, created empty (`count` strings) and filled by fill_strings:
/// MPI-IO files take no variable-length data, so the parallel merge fills it after closing.
Handle create_strings(hid_t parent, const std::string& name, hsize_t count, const std::string& where);
void fill_strings(hid_t dataset, std::span<const std::string> values, const std::string& where);
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

/// A contiguous 1-D or 2-D dataset of `file_type`, to be written by write_slab.
Handle create_dataset(hid_t parent, const std::string& name, std::span<const hsize_t> dims, hid_t file_type,
                      const std::string& where);
/// Writes rows [first_row, first_row + rows) of a 1-D or 2-D dataset (all its columns) from
/// `data`. With a collective transfer list as `dxpl`, every process calls it, some with 0 rows.
void write_slab(hid_t dataset, hsize_t first_row, hsize_t rows, hid_t memory_type, const void* data,
                const std::string& where, hid_t dxpl = H5P_DEFAULT);
/// Sets the number of rows of an extendable dataset.
void set_rows(hid_t dataset, hsize_t rows, hsize_t columns, const std::string& where);

/// Element types of the datasets RowAppender writes: the HDF5 file and memory types of T.
template <typename T>
struct TypeOf;
template <>
struct TypeOf<std::uint8_t> {
  static hid_t file() { return H5T_STD_U8LE; }
  static hid_t memory() { return H5T_NATIVE_UINT8; }
};
template <>
struct TypeOf<std::uint32_t> {
  static hid_t file() { return H5T_STD_U32LE; }
  static hid_t memory() { return H5T_NATIVE_UINT32; }
};
template <>
struct TypeOf<std::uint64_t> {
  static hid_t file() { return H5T_STD_U64LE; }
  static hid_t memory() { return H5T_NATIVE_UINT64; }
};
template <>
struct TypeOf<std::int64_t> {
  static hid_t file() { return H5T_STD_I64LE; }
  static hid_t memory() { return H5T_NATIVE_INT64; }
};

/// An extendable dataset of `columns` columns (1: a 1-D dataset), chunked, no filter.
Handle create_extendable(hid_t parent, const std::string& name, hsize_t columns, hsize_t chunk_rows, hid_t file_type,
                         const std::string& where);
/// Extends the dataset to first_row + rows rows and writes them from `data` (rows x columns).
void append_rows(hid_t dataset, hsize_t first_row, hsize_t rows, hsize_t columns, hid_t memory_type, const void* data,
                 const std::string& where);

/// A dataset whose rows are appended in large blocks, for data whose length is only known at the
/// end (the histograms): memory stays at one block, and HDF5 sees few, large, whole-chunk writes.
template <typename T>
class RowAppender {
 public:
  /// `chunk_rows` rows make one chunk, and one write.
  RowAppender(hid_t parent, const std::string& name, hsize_t columns, hsize_t chunk_rows, const std::string& where)
      : columns_(columns),
        chunk_rows_(chunk_rows),
        where_(where + "/" + name),
        dataset_(create_extendable(parent, name, columns, chunk_rows, TypeOf<T>::file(), where)) {
    buffer_.reserve(chunk_rows * columns);
  }
  void append(T value) {
    buffer_.push_back(value);
    if (buffer_.size() == chunk_rows_ * columns_) flush();
  }
  /// Appends whole rows (values.size() a multiple of columns); writes stay one chunk each.
  void append(std::span<const T> values) {
    const std::size_t block = chunk_rows_ * columns_;
    while (!values.empty()) {
      const std::size_t n = std::min(values.size(), block - buffer_.size());
      buffer_.insert(buffer_.end(), values.begin(), values.begin() + static_cast<std::ptrdiff_t>(n));
      values = values.subspan(n);
      if (buffer_.size() == block) flush();
    }
  }
  void finish() { flush(); }
  [[nodiscard]] hsize_t rows() const { return rows_written_ + buffer_.size() / columns_; }

 private:
  void flush() {
    if (buffer_.empty()) return;
    const hsize_t rows = buffer_.size() / columns_;
    append_rows(dataset_.get(), rows_written_, rows, columns_, TypeOf<T>::memory(), buffer_.data(), where_);
    rows_written_ += rows;
    buffer_.clear();
  }

  hsize_t columns_;
  hsize_t chunk_rows_;
  std::string where_;
  Handle dataset_;
  hsize_t rows_written_ = 0;
  std::vector<T> buffer_;
};

/// A dense 2-D uint64 dataset (N x N) filled with zeros and written by blocks of rows.
Handle create_dense(hid_t parent, const std::string& name, hsize_t rows, hsize_t columns, const std::string& where);
void write_rows(hid_t dataset, hsize_t first_row, hsize_t rows, hsize_t columns, std::span<const std::uint64_t> data,
                const std::string& where);

}  // namespace mpimon::h5
