#include "h5_sizes.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <map>
#include <vector>

#include "mpimon/base/error.hpp"
#include "mpimon/matrices/h5.hpp"

namespace mpimon::h5 {

namespace {

[[noreturn]] void corrupted(const std::string& where, const std::string& why) {
  raise_error(Error::Kind::format, where, why + " (a corrupted file)");
}

// a * b, or the largest value when it overflows (it is then over every bound).
std::uint64_t times(std::uint64_t a, std::uint64_t b) {
  return b != 0 && a > std::numeric_limits<std::uint64_t>::max() / b ? std::numeric_limits<std::uint64_t>::max()
                                                                     : a * b;
}

// The file an object is in, as libhdf5 reads it: its descriptor (the default sec2 driver, the one
// mpimon opens files with), its size on disk, where its addresses start (after a user block), and
// how wide its addresses and lengths are.
struct StoredFile {
  int fd = -1;
  std::uint64_t size = 0;
  std::uint64_t base = 0;
  std::size_t address_bytes = 0;
  std::size_t length_bytes = 0;
};

StoredFile stored_file(hid_t object, const std::string& where) {
  Handle file(check(H5Iget_file_id(object), where, "the object's file"));
  // A file open for writing may hold changes libhdf5 has not written yet: the bytes read below
  // must be the ones libhdf5 reads.
  unsigned intent = 0;
  check_status(H5Fget_intent(file.get(), &intent), where, "the file's access mode");
  if ((intent & H5F_ACC_RDWR) != 0) check_status(H5Fflush(file.get(), H5F_SCOPE_LOCAL), where, "flush");
  Handle fapl(check(H5Fget_access_plist(file.get()), where, "the file's access list"));
  if (H5Pget_driver(fapl.get()) != H5FD_SEC2) {
    raise_error(Error::Kind::system, where,
                "opened with another file driver than sec2: its stored sizes cannot be checked");
  }
  void* handle = nullptr;
  check_status(H5Fget_vfd_handle(file.get(), fapl.get(), &handle), where, "the file's descriptor");
  StoredFile f;
  f.fd = *static_cast<int*>(handle);
  struct stat st {};
  if (fstat(f.fd, &st) != 0) raise_error(Error::Kind::system, where, std::string("fstat: ") + std::strerror(errno));
  f.size = static_cast<std::uint64_t>(st.st_size);
  Handle fcpl(check(H5Fget_create_plist(file.get()), where, "the file's creation list"));
  hsize_t user_block = 0;
  check_status(H5Pget_userblock(fcpl.get(), &user_block), where, "the file's user block");
  f.base = user_block;
  check_status(H5Pget_sizes(fcpl.get(), &f.address_bytes, &f.length_bytes), where, "the file's address width");
  if (f.address_bytes == 0 || f.address_bytes > 8 || f.length_bytes == 0 || f.length_bytes > 8) {
    corrupted(where, "addresses of " + std::to_string(f.address_bytes) + " bytes");
  }
  return f;
}

std::uint64_t little_endian(const unsigned char* p, std::size_t bytes) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < bytes; ++i) v |= std::uint64_t{p[i]} << (8 * i);
  return v;
}

// `bytes` bytes of the file at HDF5 address `address`, which the caller checked are in the file.
std::vector<unsigned char> read_at(const StoredFile& f, std::uint64_t address, std::uint64_t bytes,
                                   const std::string& where) {
  std::vector<unsigned char> out(bytes);
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = pread(f.fd, out.data() + done, out.size() - done, static_cast<off_t>(f.base + address + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) raise_error(Error::Kind::system, where, std::string("reading the file: ") + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
  return out;
}

// HDF5's 8-byte alignment of the global heap's headers and objects.
constexpr std::uint64_t align8(std::uint64_t n) { return (n + 7) / 8 * 8; }

// The objects (index -> size) of the global heap collection at `address`, as the HDF5 format
// specifies it (version 1, "GCOL"): a header, then objects tiling the collection, each a header
// (index, reference count, reserved, size) and its data padded to 8 bytes, the free space (index 0)
// last. Anything else is refused: libhdf5's own parser trusts the sizes, and loops forever on a
// free space of size 0 (ci/tests/data/libhdf5-global-heap-loop.h5).
std::map<std::uint64_t, std::uint64_t> heap_objects(const StoredFile& f, std::uint64_t address,
                                                    const std::string& where) {
  const std::string heap = "the global heap at " + std::to_string(address);
  const std::uint64_t header = align8(8 + f.length_bytes);  // H5HG_SIZEOF_HDR, H5HG_SIZEOF_OBJHDR
  const std::uint64_t room = f.size >= f.base ? f.size - f.base : 0;
  if (address >= room || room - address < header) corrupted(where, heap + " is outside the file");
  const auto head = read_at(f, address, header, where);
  if (std::memcmp(head.data(), "GCOL", 4) != 0 || head[4] != 1) corrupted(where, heap + " is not one");
  const std::uint64_t size = little_endian(head.data() + 8, f.length_bytes);
  if (size < header || size > room - address) {
    corrupted(where, heap + " declares " + std::to_string(size) + " bytes, the file holds " + std::to_string(room));
  }
  const auto bytes = read_at(f, address, size, where);
  std::map<std::uint64_t, std::uint64_t> objects;
  for (std::uint64_t p = header; p < size;) {
    const std::uint64_t left = size - p;
    if (left < header) break;  // too small for an object: libhdf5 counts it as free space
    const std::uint64_t index = little_endian(bytes.data() + p, 2);
    const std::uint64_t object = little_endian(bytes.data() + p + 8, f.length_bytes);
    if (index == 0) {  // the free space, its size counting its header: the rest of the collection
      if (object != left) corrupted(where, heap + ": its free space does not end the collection");
      break;
    }
    if (object > left - header || align8(object) > left - header) {
      corrupted(where, heap + ": object " + std::to_string(index) + " runs past the collection");
    }
    if (!objects.emplace(index, object).second) corrupted(where, heap + ": object " + std::to_string(index) + " twice");
    p += header + align8(object);
  }
  return objects;
}

// The stored form of a variable-length string: its length, then the global heap object holding
// it (the collection's address and the object's index). Reading into this opaque type with the
// conversion below copies the stored bytes as they are, without libhdf5's string conversion.
constexpr const char* kStoredStringTag = "mpimon: a variable-length string as stored";

herr_t keep_stored_bytes(hid_t source, hid_t destination, H5T_cdata_t* cdata, std::size_t, std::size_t, std::size_t,
                         void*, void*, hid_t) {
  if (cdata->command != H5T_CONV_INIT) return 0;  // H5T_CONV_CONV: the bytes stay as they are
  cdata->need_bkg = H5T_BKG_NO;
  if (H5Tget_class(destination) != H5T_OPAQUE || H5Tis_variable_str(source) <= 0) return -1;
  char* tag = H5Tget_tag(destination);
  const bool ours = tag != nullptr && std::strcmp(tag, kStoredStringTag) == 0;
  H5free_memory(tag);
  // The source is the string as stored: the same size as the destination, or another conversion.
  return ours && H5Tget_size(source) == H5Tget_size(destination) ? 0 : -1;
}

void register_stored_bytes_conversion(const std::string& where) {
  static const bool registered = [] {
    Handle string_type(H5Tcopy(H5T_C_S1));
    Handle opaque(H5Tcreate(H5T_OPAQUE, 1));
    return string_type.get() >= 0 && opaque.get() >= 0 && H5Tset_size(string_type.get(), H5T_VARIABLE) >= 0 &&
           H5Tregister(H5T_PERS_SOFT, "mpimon_stored_string", string_type.get(), opaque.get(), keep_stored_bytes) >= 0;
  }();
  if (!registered) raise_error(Error::Kind::system, where, "registering the stored strings' conversion failed");
}

}  // namespace

void check_attribute_bytes(hid_t attribute, std::uint64_t bytes, const std::string& where) {
  const StoredFile f = stored_file(attribute, where);
  if (bytes > f.size) {
    corrupted(where, "the attribute declares " + std::to_string(bytes) + " bytes of data, the file holds " +
                         std::to_string(f.size));
  }
}

bool has_storage(hid_t dataset) { return H5Dget_storage_size(dataset) > 0; }

void check_dataset_bytes(hid_t dataset, std::uint64_t bytes, const std::string& where) {
  if (bytes == 0) return;
  Handle dcpl(check(H5Dget_create_plist(dataset), where, "the dataset's creation list"));
  const int filters = H5Pget_nfilters(dcpl.get());
  if (filters < 0) check_status(filters, where, "the dataset's filters");
  if (filters == 0) {
    const std::uint64_t stored = H5Dget_storage_size(dataset);
    if (bytes > stored) {
      corrupted(where, "the dataset declares " + std::to_string(bytes) + " bytes of data, the file stores " +
                           std::to_string(stored));
    }
    return;
  }
  // Filtered, hence chunked: the data is in the chunks written, each at most one chunk decoded.
  hsize_t chunk[H5S_MAX_RANK] = {};
  const int rank = H5Pget_chunk(dcpl.get(), H5S_MAX_RANK, chunk);
  if (rank <= 0) check_status(-1, where, "the dataset's chunks");
  Handle type(check(H5Dget_type(dataset), where, "type"));
  std::uint64_t chunk_bytes = H5Tget_size(type.get());
  for (int i = 0; i < rank; ++i) chunk_bytes = times(chunk_bytes, chunk[i]);
  if (chunk_bytes > kMaxChunkBytes) {
    corrupted(where, "chunks of " + std::to_string(chunk_bytes) + " bytes, over the " +
                         std::to_string(kMaxChunkBytes >> 20) + " MiB mpimon reads");
  }
  hsize_t written = 0;
  Handle space(check(H5Dget_space(dataset), where, "dataspace"));  // all of it selected
  check_status(H5Dget_num_chunks(dataset, space.get(), &written), where, "the dataset's chunks");
  if (bytes > times(written, chunk_bytes)) {
    corrupted(where, "the dataset declares " + std::to_string(bytes) + " bytes of data, its " +
                         std::to_string(written) + " chunks hold " + std::to_string(times(written, chunk_bytes)));
  }
}

void check_dataset_stored(hid_t dataset, const std::string& where) {
  Handle type(check(H5Dget_type(dataset), where, "type"));
  Handle space(check(H5Dget_space(dataset), where, "dataspace"));
  const hssize_t n = H5Sget_simple_extent_npoints(space.get());
  if (n < 0) raise_error(Error::Kind::format, where, "bad dataspace");
  check_dataset_bytes(dataset, times(static_cast<std::uint64_t>(n), H5Tget_size(type.get())), where);
}

void check_vlen_strings(hid_t object, bool is_attribute, std::uint64_t count, const std::string& where) {
  if (count == 0) return;
  const StoredFile f = stored_file(object, where);
  const std::size_t width = 4 + f.address_bytes + 4;  // length, collection address, object index
  const std::uint64_t bytes = times(count, width);
  if (is_attribute) {
    check_attribute_bytes(object, bytes, where);
  } else {
    check_dataset_bytes(object, bytes, where);
  }
  register_stored_bytes_conversion(where);
  Handle stored(check(H5Tcreate(H5T_OPAQUE, width), where, "opaque type"));
  check_status(H5Tset_tag(stored.get(), kStoredStringTag), where, "opaque type");
  std::vector<unsigned char> raw(bytes);
  check_status(is_attribute ? H5Aread(object, stored.get(), raw.data())
                            : H5Dread(object, stored.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()),
               where, "reading the strings as stored");
  std::map<std::uint64_t, std::map<std::uint64_t, std::uint64_t>> heaps;  // address -> index -> size
  std::uint64_t total = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    const unsigned char* p = raw.data() + i * width;
    const std::uint64_t length = little_endian(p, 4), address = little_endian(p + 4, f.address_bytes);
    const std::uint64_t index = little_endian(p + 4 + f.address_bytes, 4);
    if (address == 0) continue;  // a null string: libhdf5 reads nothing
    auto heap = heaps.find(address);
    if (heap == heaps.end()) heap = heaps.emplace(address, heap_objects(f, address, where)).first;
    const std::string string = "string " + std::to_string(i);
    const auto stored_object = heap->second.find(index);
    if (stored_object == heap->second.end()) {
      corrupted(where, string + " is object " + std::to_string(index) + " of the global heap at " +
                           std::to_string(address) + ", which has none");
    }
    if (stored_object->second != length) {
      corrupted(where, string + " declares " + std::to_string(length) + " bytes, its global heap object holds " +
                           std::to_string(stored_object->second));
    }
    total += length;
    if (total > f.size) {
      corrupted(where, "the strings declare more bytes than the file's " + std::to_string(f.size));
    }
  }
}

}  // namespace mpimon::h5
