// The sizes an HDF5 file declares are bounded by what the file holds before anything is allocated
// (analysis/matrices/src/h5_sizes.hpp): corrupted files from the fuzz regression corpus, and files
// written here with libhdf5 itself (what it writes must still read back).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mpimon/matrices/h5.hpp"
#include "mpimon/matrices/matrix_file.hpp"
#include "test_util.hpp"

namespace mpimon {
namespace {

using test::error_of;
using test::TempDir;

std::string regression(const std::string& name) { return test::data_path("../../fuzz/regressions/matrices/" + name); }

// 4 bytes of the committed mode2_sample_v2.h5 seed changed: the stored length of the dump's first
// source file (44 bytes in its global heap object) made 4294967280. libhdf5 allocates and clears
// that much twice to read it (h5dump: 8.4 GB, 18 s).
TEST(StoredSizes, StringLongerThanItsHeapObjectIsRefused) {
  const MatrixFile file(regression("vlen-string-length-4gib.h5"));
  EXPECT_NE(error_of([&] { (void)file.info("mode2_sample"); })
                .find(":/mode2_sample attribute 'source_files': string 0 declares 4294967280 bytes, its global heap "
                      "object holds 44 (a corrupted file)"),
            std::string::npos);
}

// The same length, and the string's heap address moved to 2056 (inside the collection at 2048): no
// heap there. libhdf5 allocates 4 GiB before it finds out (h5dump: 4.2 GB).
TEST(StoredSizes, StringInNoGlobalHeapIsRefused) {
  const MatrixFile file(regression("vlen-string-length-4gib-no-heap.h5"));
  EXPECT_NE(error_of([&] {
              (void)file.info("mode2_sample");
            }).find("attribute 'source_files': the global heap at 2056 is not one (a corrupted file)"),
            std::string::npos);
}

// A global heap collection whose free space has size 0: libhdf5's parser loops forever on it
// (H5C_protect under H5HG_read, the loop mpimon's reader once hung in).
TEST(StoredSizes, GlobalHeapThatLibhdf5LoopsOnIsRefused) {
  EXPECT_NE(error_of([] {
              const MatrixFile file(regression("libhdf5-global-heap-loop.h5"));
            }).find("attribute 'format': the global heap at 2048: its free space does not end the collection"),
            std::string::npos);
}

// A chunked dataset declared 2^24 elements long and never written: reading it whole would allocate
// 128 MiB of fill values for a file of a few kB.
TEST(StoredSizes, DatasetLargerThanItsStorageIsRefused) {
  const TempDir dir;
  const std::string path = dir.file("declared.h5");
  {
    h5::Handle file = h5::create_file(path);
    h5::Handle dataset = h5::create_extendable(file.get(), "empty", 1, 1024, H5T_STD_U64LE, "/");
    h5::set_rows(dataset.get(), hsize_t{1} << 24, 1, "/empty");
  }
  h5::Handle file = h5::open_file_readonly(path);
  EXPECT_EQ(error_of([&] { (void)h5::read_uint64(h5::open_dataset(file.get(), "empty", "/").get(), "/empty"); }),
            "/empty: the dataset declares 134217728 bytes of data, the file stores 0 (a corrupted file)");
}

// A compressed dataset declared 2^24 elements long with one chunk of 1024 written: only written
// chunks hold data (the rest would read as 128 MiB of fill values).
TEST(StoredSizes, FilteredDatasetLargerThanItsChunksIsRefused) {
  const TempDir dir;
  const std::string path = dir.file("filtered.h5");
  {
    h5::Handle file = h5::create_file(path);
    const hsize_t dims[] = {hsize_t{1} << 24}, max_dims[] = {H5S_UNLIMITED}, chunk[] = {1024};
    h5::Handle space(H5Screate_simple(1, dims, max_dims));
    h5::Handle dcpl(H5Pcreate(H5P_DATASET_CREATE));
    ASSERT_GE(H5Pset_chunk(dcpl.get(), 1, chunk), 0);
    ASSERT_GE(H5Pset_deflate(dcpl.get(), 6), 0);
    h5::Handle dataset(
        H5Dcreate2(file.get(), "compressed", H5T_STD_U64LE, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT));
    const std::vector<std::uint64_t> first(1024, 7);
    h5::write_slab(dataset.get(), 0, first.size(), H5T_NATIVE_UINT64, first.data(), "/compressed");
  }
  h5::Handle file = h5::open_file_readonly(path);
  EXPECT_EQ(error_of([&] { (void)h5::read_uint64(h5::open_dataset(file.get(), "compressed", "/").get(), "/c"); }),
            "/c: the dataset declares 134217728 bytes of data, its 1 chunks hold 8192 (a corrupted file)");
}

// What libhdf5 writes reads back: strings empty, short and longer than a global heap collection
// (4 kB, so one of their own), in a dataset and an attribute, in files with 8-byte and 4-byte
// addresses and lengths (the widths the checks decode).
TEST(StoredSizes, StringsLibhdf5WroteReadBack) {
  const std::vector<std::string> values{"", "MPI_COMM_WORLD", std::string(10000, 'x'), "", std::string(5000, 'y')};
  const TempDir dir;
  for (std::size_t width : {8, 4}) {
    const std::string path = dir.file("strings" + std::to_string(width) + ".h5");
    {
      h5::silence_errors();
      h5::Handle fcpl(H5Pcreate(H5P_FILE_CREATE));
      ASSERT_GE(H5Pset_sizes(fcpl.get(), width, width), 0);
      h5::Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl.get(), H5P_DEFAULT));
      ASSERT_GE(file.get(), 0);
      h5::write_strings(file.get(), "names", values, "/");
      h5::write_attribute(file.get(), "names", std::span<const std::string>(values));
    }
    h5::Handle file = h5::open_file_readonly(path);
    EXPECT_EQ(h5::read_strings(h5::open_dataset(file.get(), "names", "/").get(), "/names"), values) << width;
    EXPECT_EQ(h5::read_strings_attribute(file.get(), "names", "/"), values) << width;
  }
}

}  // namespace
}  // namespace mpimon
