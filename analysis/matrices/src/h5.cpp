#include "mpimon/matrices/h5.hpp"

#include <algorithm>
#include <cstring>

#include "h5_sizes.hpp"
#include "mpimon/base/error.hpp"

namespace mpimon::h5 {

namespace {

// The innermost (most specific) description on the current HDF5 error stack.
std::string innermost_message() {
  std::string message;
  auto walker = [](unsigned n, const H5E_error2_t* err, void* data) -> herr_t {
    if (n == 0 && err->desc != nullptr) *static_cast<std::string*>(data) = err->desc;
    return 0;
  };
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, walker, &message);
  H5Eclear2(H5E_DEFAULT);
  return message.empty() ? "unknown HDF5 error" : message;
}

Handle simple_space(std::span<const hsize_t> dims, const std::string& where) {
  return Handle(check(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), where, "dataspace"));
}

Handle string_type(const std::string& where) {
  Handle type(check(H5Tcopy(H5T_C_S1), where, "string type"));
  check_status(H5Tset_size(type.get(), H5T_VARIABLE), where, "string type");
  check_status(H5Tset_cset(type.get(), H5T_CSET_UTF8), where, "string type");
  return type;
}

std::string join(const std::string& where, const std::string& name) {
  return where.empty() || where.back() == '/' ? where + name : where + "/" + name;
}

}  // namespace

void Handle::reset() {
  if (id_ < 0) return;
  switch (H5Iget_type(id_)) {
    case H5I_FILE:
      H5Fclose(id_);
      break;
    case H5I_GROUP:
      H5Gclose(id_);
      break;
    case H5I_DATASET:
      H5Dclose(id_);
      break;
    case H5I_DATASPACE:
      H5Sclose(id_);
      break;
    case H5I_DATATYPE:
      H5Tclose(id_);
      break;
    case H5I_ATTR:
      H5Aclose(id_);
      break;
    case H5I_GENPROP_LST:
      H5Pclose(id_);
      break;
    default:
      H5Idec_ref(id_);
      break;
  }
  id_ = H5I_INVALID_HID;
}

hid_t check(hid_t id, const std::string& where, const char* what) {
  if (id < 0) raise_error(Error::Kind::system, where, std::string(what) + " failed (" + innermost_message() + ")");
  return id;
}

void check_status(herr_t status, const std::string& where, const char* what) {
  if (status < 0) raise_error(Error::Kind::system, where, std::string(what) + " failed (" + innermost_message() + ")");
}

void silence_errors() {
  // A file whose close failed (a full disk) leaves HDF5 1.10 a dangling identifier that its cleanup
  // at exit crashes on (H5F__close_cb); every file is closed explicitly, so that cleanup is not
  // needed. H5dont_atexit only acts before the library's first use, and this comes first.
  static const bool no_cleanup_at_exit = [] { return H5dont_atexit() >= 0; }();
  (void)no_cleanup_at_exit;
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

Handle create_file(const std::string& path, const std::function<void(hid_t fapl)>& configure_access) {
  silence_errors();
  Handle fcpl(check(H5Pcreate(H5P_FILE_CREATE), path, "property list"));
  check_status(H5Pset_link_creation_order(fcpl.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED), path,
               "creation order");
  // The 1.8 file format stores large attributes (the rank list of a 16384-rank dump) densely;
  // the original format caps an object's attributes at 64 KiB.
  Handle fapl(check(H5Pcreate(H5P_FILE_ACCESS), path, "property list"));
  check_status(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST), path, "format version");
  if (configure_access) configure_access(fapl.get());
  return Handle(check(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl.get()), path, "creating the file"));
}

Handle open_file_readonly(const std::string& path) {
  silence_errors();
#if H5_VERSION_GE(1, 12, 0)
  htri_t is_hdf5 = H5Fis_accessible(path.c_str(), H5P_DEFAULT);
#else
  htri_t is_hdf5 = H5Fis_hdf5(path.c_str());
#endif
  if (is_hdf5 <= 0) {
    H5Eclear2(H5E_DEFAULT);
    raise_error(Error::Kind::input, path, "not a readable HDF5 file");
  }
  return Handle(check(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), path, "opening the file"));
}

void flush(hid_t file, const std::string& path) { check_status(H5Fflush(file, H5F_SCOPE_GLOBAL), path, "flush"); }

Handle create_group(hid_t parent, const std::string& name, const std::string& where) {
  Handle gcpl(check(H5Pcreate(H5P_GROUP_CREATE), where, "property list"));
  check_status(H5Pset_link_creation_order(gcpl.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED), where,
               "creation order");
  return Handle(check(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, gcpl.get(), H5P_DEFAULT), join(where, name),
                      "creating group"));
}

Handle open_group(hid_t parent, const std::string& name, const std::string& where) {
  if (!exists(parent, name)) raise_error(Error::Kind::format, join(where, name), "no such group");
  return Handle(check(H5Gopen2(parent, name.c_str(), H5P_DEFAULT), join(where, name), "opening group"));
}

Handle open_dataset(hid_t parent, const std::string& name, const std::string& where) {
  if (!exists(parent, name)) raise_error(Error::Kind::format, join(where, name), "no such dataset");
  return Handle(check(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), join(where, name), "opening dataset"));
}

bool exists(hid_t parent, const std::string& name) {
  htri_t r = H5Lexists(parent, name.c_str(), H5P_DEFAULT);
  if (r < 0) H5Eclear2(H5E_DEFAULT);
  return r > 0;
}

bool is_group(hid_t parent, const std::string& name) {
  if (!exists(parent, name)) return false;
  hid_t obj = H5Oopen(parent, name.c_str(), H5P_DEFAULT);
  if (obj < 0) {
    H5Eclear2(H5E_DEFAULT);
    return false;
  }
  Handle owned(obj);
  return H5Iget_type(obj) == H5I_GROUP;
}

std::vector<std::string> member_names(hid_t group, const std::string& where) {
  std::vector<std::string> names;
  auto collect = [](hid_t, const char* name, const H5L_info_t*, void* data) -> herr_t {
    static_cast<std::vector<std::string>*>(data)->emplace_back(name);
    return 0;
  };
  hsize_t idx = 0;
  if (H5Literate(group, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, collect, &names) < 0) {
    H5Eclear2(H5E_DEFAULT);
    names.clear();
    idx = 0;
    check_status(H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, &idx, collect, &names), where, "listing the group");
  }
  return names;
}

std::vector<std::string> attribute_names(hid_t obj, const std::string& where) {
  std::vector<std::string> names;
  auto collect = [](hid_t, const char* name, const H5A_info_t*, void* data) -> herr_t {
    static_cast<std::vector<std::string>*>(data)->emplace_back(name);
    return 0;
  };
  hsize_t idx = 0;
  check_status(H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, collect, &names), where, "listing the attributes");
  return names;
}

void write_attribute(hid_t obj, const std::string& name, const std::string& value) {
  Handle type = string_type(name);
  Handle space(check(H5Screate(H5S_SCALAR), name, "dataspace"));
  Handle attr(check(H5Acreate2(obj, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), name,
                    "creating attribute"));
  const char* text = value.c_str();
  check_status(H5Awrite(attr.get(), type.get(), &text), name, "writing attribute");
}

void write_attribute(hid_t obj, const std::string& name, std::uint64_t value) {
  Handle space(check(H5Screate(H5S_SCALAR), name, "dataspace"));
  Handle attr(check(H5Acreate2(obj, name.c_str(), H5T_STD_U64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), name,
                    "creating attribute"));
  check_status(H5Awrite(attr.get(), H5T_NATIVE_UINT64, &value), name, "writing attribute");
}

void write_attribute(hid_t obj, const std::string& name, std::span<const std::uint64_t> values) {
  const hsize_t dims[] = {values.size()};
  Handle space = simple_space(dims, name);
  Handle attr(check(H5Acreate2(obj, name.c_str(), H5T_STD_U64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), name,
                    "creating attribute"));
  // An empty attribute has nothing to write, and HDF5 1.14 refuses a write without a buffer.
  if (!values.empty()) check_status(H5Awrite(attr.get(), H5T_NATIVE_UINT64, values.data()), name, "writing attribute");
}

void write_attribute(hid_t obj, const std::string& name, std::span<const std::string> values) {
  std::vector<const char*> pointers;
  pointers.reserve(values.size());
  for (const auto& v : values) pointers.push_back(v.c_str());
  Handle type = string_type(name);
  const hsize_t dims[] = {values.size()};
  Handle space = simple_space(dims, name);
  Handle attr(check(H5Acreate2(obj, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), name,
                    "creating attribute"));
  if (!values.empty()) check_status(H5Awrite(attr.get(), type.get(), pointers.data()), name, "writing attribute");
}

bool has_attribute(hid_t obj, const std::string& name) {
  htri_t r = H5Aexists(obj, name.c_str());
  if (r < 0) H5Eclear2(H5E_DEFAULT);
  return r > 0;
}

namespace {
Handle open_attribute(hid_t obj, const std::string& name, const std::string& where) {
  if (!has_attribute(obj, name)) raise_error(Error::Kind::format, where, "missing attribute '" + name + "'");
  return Handle(check(H5Aopen(obj, name.c_str(), H5P_DEFAULT), where, "opening attribute"));
}

std::vector<std::string> read_vlen_strings(hid_t obj, bool is_attribute, const std::string& where) {
  Handle file_type(check(is_attribute ? H5Aget_type(obj) : H5Dget_type(obj), where, "type"));
  if (H5Tget_class(file_type.get()) != H5T_STRING) raise_error(Error::Kind::format, where, "expected strings");
  Handle space(check(is_attribute ? H5Aget_space(obj) : H5Dget_space(obj), where, "dataspace"));
  hssize_t n = H5Sget_simple_extent_npoints(space.get());
  if (n < 0) raise_error(Error::Kind::format, where, "bad dataspace");
  std::vector<std::string> out;
  if (n == 0) return out;  // nothing to read, and HDF5 1.14 refuses a read without a buffer
  const auto count = static_cast<std::uint64_t>(n);
  if (H5Tis_variable_str(file_type.get()) > 0) {
    // libhdf5 allocates what each string's stored length says: checked against the file first.
    check_vlen_strings(obj, is_attribute, count, where);
    Handle mem_type = string_type(where);
    std::vector<char*> raw(static_cast<std::size_t>(n), nullptr);
    herr_t st = is_attribute ? H5Aread(obj, mem_type.get(), raw.data())
                             : H5Dread(obj, mem_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data());
    try {
      check_status(st, where, "reading strings");
    } catch (...) {
      // A read that fails part-way has already allocated the strings it converted: ours to free.
      H5Dvlen_reclaim(mem_type.get(), space.get(), H5P_DEFAULT, raw.data());
      H5Eclear2(H5E_DEFAULT);
      throw;
    }
    for (char* s : raw) out.emplace_back(s ? s : "");
    H5Dvlen_reclaim(mem_type.get(), space.get(), H5P_DEFAULT, raw.data());
  } else {
    std::size_t width = H5Tget_size(file_type.get());
    if (is_attribute) {
      check_attribute_bytes(obj, count * width, where);
    } else {
      check_dataset_bytes(obj, count * width, where);
    }
    std::vector<char> buf(width * static_cast<std::size_t>(n));
    herr_t st = is_attribute ? H5Aread(obj, file_type.get(), buf.data())
                             : H5Dread(obj, file_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data());
    check_status(st, where, "reading strings");
    for (hssize_t i = 0; i < n; ++i) {
      const char* s = buf.data() + static_cast<std::size_t>(i) * width;
      out.emplace_back(s, strnlen(s, width));
    }
  }
  return out;
}
}  // namespace

std::string read_string_attribute(hid_t obj, const std::string& name, const std::string& where) {
  Handle attr = open_attribute(obj, name, where);
  auto values = read_vlen_strings(attr.get(), true, where + " attribute '" + name + "'");
  if (values.size() != 1) raise_error(Error::Kind::format, where, "attribute '" + name + "' is not a single string");
  return values.front();
}

std::vector<std::string> read_strings_attribute(hid_t obj, const std::string& name, const std::string& where) {
  Handle attr = open_attribute(obj, name, where);
  return read_vlen_strings(attr.get(), true, where + " attribute '" + name + "'");
}

std::vector<std::uint64_t> read_uint_attribute(hid_t obj, const std::string& name, const std::string& where) {
  Handle attr = open_attribute(obj, name, where);
  Handle type(check(H5Aget_type(attr.get()), where, "type"));
  if (H5Tget_class(type.get()) != H5T_INTEGER) {
    raise_error(Error::Kind::format, where, "attribute '" + name + "' is not an integer");
  }
  Handle space(check(H5Aget_space(attr.get()), where, "dataspace"));
  hssize_t n = H5Sget_simple_extent_npoints(space.get());
  check_attribute_bytes(attr.get(), static_cast<std::uint64_t>(std::max<hssize_t>(n, 0)) * H5Tget_size(type.get()),
                        where);
  std::vector<std::uint64_t> out(static_cast<std::size_t>(std::max<hssize_t>(n, 0)));
  if (!out.empty()) check_status(H5Aread(attr.get(), H5T_NATIVE_UINT64, out.data()), where, "reading attribute");
  return out;
}

void write_dataset(hid_t parent, const std::string& name, std::span<const hsize_t> dims,
                   std::span<const std::uint64_t> data, const std::string& where) {
  std::string path = join(where, name);
  Handle space = simple_space(dims, path);
  Handle ds(check(H5Dcreate2(parent, name.c_str(), H5T_STD_U64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                  path, "creating dataset"));
  if (!data.empty()) {
    check_status(H5Dwrite(ds.get(), H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()), path, "writing");
  }
}

void write_dataset(hid_t parent, const std::string& name, std::span<const std::int64_t> data,
                   const std::string& where) {
  std::string path = join(where, name);
  const hsize_t dims[] = {data.size()};
  Handle space = simple_space(dims, path);
  Handle ds(check(H5Dcreate2(parent, name.c_str(), H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                  path, "creating dataset"));
  if (!data.empty()) {
    check_status(H5Dwrite(ds.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()), path, "writing");
  }
}

void write_strings(hid_t parent, const std::string& name, std::span<const std::string> values,
                   const std::string& where) {
  Handle ds = create_strings(parent, name, values.size(), where);
  if (!values.empty()) fill_strings(ds.get(), values, join(where, name));
}

Handle create_strings(hid_t parent, const std::string& name, hsize_t count, const std::string& where) {
  std::string path = join(where, name);
  Handle type = string_type(path);
  const hsize_t dims[] = {count};
  Handle space = simple_space(dims, path);
  return Handle(check(H5Dcreate2(parent, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                      path, "creating dataset"));
}

void fill_strings(hid_t dataset, std::span<const std::string> values, const std::string& where) {
  std::vector<const char*> pointers;
  pointers.reserve(values.size());
  for (const auto& v : values) pointers.push_back(v.c_str());
  Handle type = string_type(where);
  check_status(H5Dwrite(dataset, type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data()), where, "writing");
}

void write_doubles(hid_t parent, const std::string& name, std::span<const double> values, const std::string& where) {
  std::string path = join(where, name);
  const hsize_t dims[] = {values.size()};
  Handle space = simple_space(dims, path);
  Handle ds(check(H5Dcreate2(parent, name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                  path, "creating dataset"));
  if (!values.empty()) {
    check_status(H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), path, "writing");
  }
}

std::vector<double> read_doubles(hid_t dataset, const std::string& where) {
  Handle type(check(H5Dget_type(dataset), where, "type"));
  if (H5Tget_class(type.get()) != H5T_FLOAT) raise_error(Error::Kind::format, where, "expected floating point");
  Handle space(check(H5Dget_space(dataset), where, "dataspace"));
  hssize_t n = H5Sget_simple_extent_npoints(space.get());
  check_dataset_stored(dataset, where);
  std::vector<double> out(static_cast<std::size_t>(std::max<hssize_t>(n, 0)));
  if (!out.empty()) {
    check_status(H5Dread(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), where, "reading");
  }
  return out;
}

Handle open_file_readwrite(const std::string& path) {
  silence_errors();
  return Handle(check(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), path, "opening the file for writing"));
}

void remove_if_exists(hid_t parent, const std::string& name, const std::string& where) {
  if (exists(parent, name)) check_status(H5Ldelete(parent, name.c_str(), H5P_DEFAULT), join(where, name), "deleting");
}

std::vector<hsize_t> dataset_dims(hid_t dataset, const std::string& where) {
  Handle space(check(H5Dget_space(dataset), where, "dataspace"));
  int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0) raise_error(Error::Kind::format, where, "bad dataspace");
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  return dims;
}

namespace {
template <typename T>
std::vector<T> read_all(hid_t dataset, hid_t mem_type, const std::string& where) {
  Handle type(check(H5Dget_type(dataset), where, "type"));
  if (H5Tget_class(type.get()) != H5T_INTEGER) raise_error(Error::Kind::format, where, "expected integers");
  Handle space(check(H5Dget_space(dataset), where, "dataspace"));
  hssize_t n = H5Sget_simple_extent_npoints(space.get());
  check_dataset_stored(dataset, where);
  std::vector<T> out(static_cast<std::size_t>(std::max<hssize_t>(n, 0)));
  if (!out.empty()) {
    check_status(H5Dread(dataset, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), where, "reading");
  }
  return out;
}
}  // namespace

std::vector<std::uint64_t> read_uint64(hid_t dataset, const std::string& where) {
  return read_all<std::uint64_t>(dataset, H5T_NATIVE_UINT64, where);
}

std::vector<std::int64_t> read_int64(hid_t dataset, const std::string& where) {
  return read_all<std::int64_t>(dataset, H5T_NATIVE_INT64, where);
}

std::vector<std::uint64_t> read_rows(hid_t dataset, hsize_t first, hsize_t count, const std::string& where) {
  auto dims = dataset_dims(dataset, where);
  if (dims.size() != 2 || first + count > dims[0]) raise_error(Error::Kind::format, where, "row range out of bounds");
  Handle file_space(check(H5Dget_space(dataset), where, "dataspace"));
  const hsize_t start[] = {first, 0};
  const hsize_t extent[] = {count, dims[1]};
  check_status(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, extent, nullptr), where,
               "selection");
  Handle mem_space = simple_space(extent, where);
  std::vector<std::uint64_t> out(count * dims[1]);
  if (!out.empty()) {
    check_status(H5Dread(dataset, H5T_NATIVE_UINT64, mem_space.get(), file_space.get(), H5P_DEFAULT, out.data()), where,
                 "reading");
  }
  return out;
}

std::vector<std::string> read_strings(hid_t dataset, const std::string& where) {
  return read_vlen_strings(dataset, false, where);
}

Handle create_extendable(hid_t parent, const std::string& name, hsize_t columns, hsize_t chunk_rows, hid_t file_type,
                         const std::string& where) {
  std::string path = join(where, name);
  const int rank = columns == 1 ? 1 : 2;
  const hsize_t dims[] = {0, columns};
  const hsize_t max_dims[] = {H5S_UNLIMITED, columns};
  const hsize_t chunk[] = {chunk_rows, columns};
  Handle space(check(H5Screate_simple(rank, dims, max_dims), path, "dataspace"));
  Handle dcpl(check(H5Pcreate(H5P_DATASET_CREATE), path, "property list"));
  check_status(H5Pset_chunk(dcpl.get(), rank, chunk), path, "chunking");
  // Rows are appended in whole chunks, written once: without a chunk cache, HDF5 writes them
  // straight from the caller's buffer instead of copying them through a cache buffer.
  Handle dapl(check(H5Pcreate(H5P_DATASET_ACCESS), path, "property list"));
  check_status(H5Pset_chunk_cache(dapl.get(), 0, 0, H5D_CHUNK_CACHE_W0_DEFAULT), path, "chunk cache");
  return Handle(check(H5Dcreate2(parent, name.c_str(), file_type, space.get(), H5P_DEFAULT, dcpl.get(), dapl.get()),
                      path, "creating dataset"));
}

void set_rows(hid_t dataset, hsize_t rows, hsize_t columns, const std::string& where) {
  const hsize_t new_dims[] = {rows, columns};
  check_status(H5Dset_extent(dataset, new_dims), where, "extending dataset");
}

void write_slab(hid_t dataset, hsize_t first_row, hsize_t rows, hid_t memory_type, const void* data,
                const std::string& where, hid_t dxpl) {
  Handle file_space(check(H5Dget_space(dataset), where, "dataspace"));
  hsize_t dims[2] = {0, 1};
  const int rank = H5Sget_simple_extent_ndims(file_space.get());
  if (rank < 1 || rank > 2) raise_error(Error::Kind::system, where, "not a 1-D or 2-D dataset");
  H5Sget_simple_extent_dims(file_space.get(), dims, nullptr);
  const hsize_t start[] = {first_row, 0};
  const hsize_t extent[] = {rows, dims[1]};
  Handle mem_space;
  if (rows == 0) {  // this process takes part in a collective write with nothing of its own
    check_status(H5Sselect_none(file_space.get()), where, "selection");
    const hsize_t one[] = {1};
    mem_space = simple_space(one, where);
    check_status(H5Sselect_none(mem_space.get()), where, "selection");
  } else {
    check_status(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, extent, nullptr), where,
                 "selection");
    mem_space = Handle(check(H5Screate_simple(rank, extent, nullptr), where, "dataspace"));
  }
  check_status(H5Dwrite(dataset, memory_type, mem_space.get(), file_space.get(), dxpl, data), where, "writing");
}

void append_rows(hid_t dataset, hsize_t first_row, hsize_t rows, hsize_t columns, hid_t memory_type, const void* data,
                 const std::string& where) {
  set_rows(dataset, first_row + rows, columns, where);
  write_slab(dataset, first_row, rows, memory_type, data, where);
}

Handle create_dataset(hid_t parent, const std::string& name, std::span<const hsize_t> dims, hid_t file_type,
                      const std::string& where) {
  std::string path = join(where, name);
  Handle space = simple_space(dims, path);
  return Handle(check(H5Dcreate2(parent, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                      path, "creating dataset"));
}

Handle create_dense(hid_t parent, const std::string& name, hsize_t rows, hsize_t columns, const std::string& where) {
  std::string path = join(where, name);
  const hsize_t dims[] = {rows, columns};
  Handle space = simple_space(dims, path);
  Handle dcpl(check(H5Pcreate(H5P_DATASET_CREATE), path, "property list"));
  const std::uint64_t zero = 0;
  check_status(H5Pset_fill_value(dcpl.get(), H5T_NATIVE_UINT64, &zero), path, "fill value");
  // Storage is allocated on first write: a class without traffic costs no space and reads as zeros.
  check_status(H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_LATE), path, "allocation time");
  return Handle(
      check(H5Dcreate2(parent, name.c_str(), H5T_STD_U64LE, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT), path,
            "creating dataset"));
}

void write_rows(hid_t dataset, hsize_t first_row, hsize_t rows, hsize_t, std::span<const std::uint64_t> data,
                const std::string& where) {
  write_slab(dataset, first_row, rows, H5T_NATIVE_UINT64, data.data(), where);
}

}  // namespace mpimon::h5
