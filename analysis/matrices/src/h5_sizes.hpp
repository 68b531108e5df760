#pragma once
// Every size an HDF5 file declares (a dataspace, a variable-length string's length, a global heap
// object), bounded by what the file holds before anything is allocated for it. libhdf5 trusts them:
// one corrupted length in a 16 kB file makes it allocate and clear 4 GiB twice (H5T__conv_vlen,
// 8.4 GB in a plain h5dump), and a global heap object longer than its string's length overflows its
// buffer (docs/fuzzing.md). Private to h5.cpp, which calls these before every read.

#include <hdf5.h>

#include <cstdint>
#include <string>

namespace mpimon::h5 {

/// Throws a format error unless `bytes`, what the attribute's data takes as it is stored (elements
/// times their stored size), fits in the file: an attribute's data is in its object header.
void check_attribute_bytes(hid_t attribute, std::uint64_t bytes, const std::string& where);

/// Throws a format error unless `bytes`, what the whole dataset takes as it is stored, is held by the
/// storage the file gives it: an unfiltered dataset's storage holds all of it; a filtered one's
/// written chunks, each at most kMaxChunkBytes once decoded, hold it.
void check_dataset_bytes(hid_t dataset, std::uint64_t bytes, const std::string& where);

/// check_dataset_bytes for the whole dataset of a fixed-size type (its elements times their size).
void check_dataset_stored(hid_t dataset, const std::string& where);

/// Whether the dataset has any storage in the file (one never written reads as its fill value).
bool has_storage(hid_t dataset);

/// Throws a format error unless every variable-length string of `object` (an attribute or a
/// dataset of `count` strings) refers to an object of the file's global heap that exists and holds
/// exactly the length the string declares, and all of them together fit in the file: what libhdf5
/// allocates when it reads them is then bounded by the file. The strings' references are read as
/// they are stored (no conversion), the global heap collections from the file's bytes.
void check_vlen_strings(hid_t object, bool is_attribute, std::uint64_t count, const std::string& where);

/// The largest chunk of a filtered dataset mpimon reads (decoded): 64 MiB, 64 times the chunks
/// mpimon writes and libhdf5's default chunk cache.
inline constexpr std::uint64_t kMaxChunkBytes = std::uint64_t{64} << 20;

}  // namespace mpimon::h5
