#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "mpimon/matrices/matrix_file.hpp"
#include "mpimon/matrices/merge.hpp"
#include "test_util.hpp"

namespace mpimon {
namespace {

namespace fs = std::filesystem;
using test::data_path;
using test::error_of;
using test::histogram_text;
using test::TempDir;

std::vector<std::string> real_dump(const std::string& name) {
  return {data_path("real/" + name + ".0.prof"), data_path("real/" + name + ".1.prof"),
          data_path("real/" + name + ".2.prof")};
}

std::string world_block(std::uint32_t rank, const std::string& procs) {
  std::string r = std::to_string(rank);
  return "D\tMPI_COMM_WORLD\tprocs: " + procs + "\nO2A\t" + r + "\t0 bytes\t0 msgs sent\nA2O\t" + r +
         "\t0 bytes\t0 msgs sent\nA2A\t" + r + "\t0 bytes\t0 msgs sent\n";
}

std::string prof(const std::string& p2p, const std::string& coll = "") {
  return "# POINT TO POINT\n" + p2p + "# OSC\n# COLLECTIVES\n" + coll;
}

std::size_t files_in(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

// Checks of a file merged from data/real/mode2_sample.*.prof against what the .prof files say
// (defined below): every class matrix, every histogram, the sub-communicators.
void expect_matrices_equal_the_lines(const MatrixFile& file);
void expect_histograms_equal_the_files(const MatrixFile& file);
void expect_sub_communicators(const MatrixFile& file);

// The merged matrices must hold, row by row, exactly what each rank's file says.
TEST(Merge, MatricesEqualTheLinesOfEveryRankFile) {
  TempDir dir;
  std::string out = dir.file("m.h5");
  auto summaries = merge_prof_files(real_dump("mode2_sample"), out, {});
  ASSERT_EQ(summaries.size(), 1u);
  EXPECT_EQ(summaries[0].name, "mode2_sample");
  EXPECT_EQ(summaries[0].nprocs, 3u);
  EXPECT_TRUE(summaries[0].internal_distinguished);

  MatrixFile file(out);
  EXPECT_EQ(file.dumps(), std::vector<std::string>{"mode2_sample"});
  DumpInfo info = file.info("mode2_sample");
  EXPECT_EQ(info.nprocs, 3u);
  EXPECT_EQ(info.ranks_present, (std::vector<std::uint64_t>{0, 1, 2}));
  EXPECT_EQ(info.source_files, real_dump("mode2_sample"));
  EXPECT_EQ(info.layout, "dense");

  expect_matrices_equal_the_lines(file);
}

TEST(Merge, KeepsHistogramsAndCommunicatorRecords) {
  TempDir dir;
  std::string out = dir.file("m.h5");
  merge_prof_files(real_dump("mode2_sample"), out, {});
  MatrixFile file(out);
  EXPECT_EQ(file.format_version(), kMatricesFormatVersion);
  expect_histograms_equal_the_files(file);
  expect_sub_communicators(file);
}

// Files written by earlier versions stay readable: data/v1/mode2_sample.h5 was written by
// mpimon-merge at format version 1 (dense histograms with the scale-offset filter) from
// data/real/mode2_sample.*.prof.
TEST(Merge, ReadsFormatVersion1Files) {
  MatrixFile file(data_path("v1/mode2_sample.h5"));
  EXPECT_EQ(file.format_version(), 1u);
  EXPECT_EQ(file.histogram_count("mode2_sample"), 6u);
  expect_matrices_equal_the_lines(file);
  expect_histograms_equal_the_files(file);
  expect_sub_communicators(file);
}

}  // namespace
}  // namespace mpimon

namespace mpimon {
namespace {

void expect_matrices_equal_the_lines(const MatrixFile& file) {
  std::size_t lines = 0;
  for (std::uint32_t rank = 0; rank < 3; ++rank) {
    RankProfile p = read_prof_file(real_dump("mode2_sample")[rank], rank);
    for (TrafficClass c : kAllTrafficClasses) {
      SparseMatrix count = file.matrix("mode2_sample", c, Metric::count);
      SparseMatrix bytes = file.matrix("mode2_sample", c, Metric::bytes);
      for (std::uint32_t peer = 0; peer < 3; ++peer) {
        std::uint64_t expect_count = 0, expect_bytes = 0;
        for (const auto& r : p.pairs) {
          if (r.traffic_class == c && r.peer == peer) {
            expect_count = r.count;
            expect_bytes = r.bytes;
            ++lines;
          }
        }
        EXPECT_EQ(count.at(rank, peer), expect_count) << class_name(c) << " " << rank << "->" << peer;
        EXPECT_EQ(bytes.at(rank, peer), expect_bytes) << class_name(c) << " " << rank << "->" << peer;
      }
    }
  }
  EXPECT_GT(lines, 10u);
  // Spot values read off the files by eye.
  EXPECT_EQ(file.matrix("mode2_sample", TrafficClass::external, Metric::bytes).at(0, 1), 1000u);
  EXPECT_EQ(file.matrix("mode2_sample", TrafficClass::internal, Metric::count).at(0, 2), 23u);
}

void expect_histograms_equal_the_files(const MatrixFile& file) {
  HistogramTable h = file.histograms("mode2_sample");
  std::size_t expected = 0;
  for (std::uint32_t rank = 0; rank < 3; ++rank) {
    RankProfile p = read_prof_file(real_dump("mode2_sample")[rank], rank);
    for (const auto& ph : p.histograms) {
      bool found = false;
      for (std::size_t k = 0; k < h.size(); ++k) {
        if (h.pairs[2 * k] != rank || h.pairs[2 * k + 1] != ph.peer) continue;
        found = true;
        for (std::size_t b = 0; b < kHistogramBuckets; ++b)
          EXPECT_EQ(h.counts[k * kHistogramBuckets + b], ph.buckets[b]);
      }
      EXPECT_TRUE(found) << rank << "->" << ph.peer;
      ++expected;
    }
  }
  EXPECT_EQ(h.size(), expected);
}

void expect_sub_communicators(const MatrixFile& file) {
  CommunicatorTable t = file.communicators("mode2_sample");
  auto sub = std::find(t.names.begin(), t.names.end(), "my sub comm");
  ASSERT_NE(sub, t.names.end());
  // Ranks 0 and 2 share one "my sub comm", rank 1 is alone in another of the same name.
  EXPECT_EQ(std::count(t.names.begin(), t.names.end(), "my sub comm"), 2);
  auto index = static_cast<std::uint64_t>(sub - t.names.begin());
  EXPECT_EQ(t.members[index], (std::vector<std::uint64_t>{0, 2}));
  std::size_t rows_for_sub = 0;
  for (const auto& row : t.rows) {
    if (row.comm != index) continue;
    ++rows_for_sub;
    EXPECT_EQ(row.all_to_all.calls, 1u);
    EXPECT_EQ(row.all_to_all.bytes, 40u);
  }
  EXPECT_EQ(rows_for_sub, 2u);
}

// A collector with nothing missing writes an empty list (Open MPI 5.0.7 delivers every class):
// it must write and read back as empty, next to a full one.
TEST(Merge, EmptyRootStringListsRoundTrip) {
  TempDir dir;
  std::string out = dir.file("m.h5");
  MergeOptions options;
  options.root_string_lists = {{"collected_classes", {"p2p_external", "osc"}}, {"missing_classes", {}}};
  merge_prof_files(real_dump("mode2_sample"), out, options);
  MatrixFile file(out);
  EXPECT_EQ(file.root_strings("collected_classes"), (std::vector<std::string>{"p2p_external", "osc"}));
  EXPECT_TRUE(file.root_strings("missing_classes").empty());
}

TEST(Merge, Mode1DumpIsNotDistinguished) {
  TempDir dir;
  auto s = merge_prof_files(real_dump("mode1_sample"), dir.file("m.h5"), {});
  EXPECT_FALSE(s[0].internal_distinguished);
  EXPECT_EQ(s[0].totals[static_cast<int>(TrafficClass::internal)].messages, 0u);
}

TEST(Merge, SeveralDumpsBecomeSeveralGroups) {
  TempDir dir;
  auto inputs = real_dump("mode2_sample");
  for (auto& f : real_dump("mode1_sample")) inputs.push_back(f);
  auto s = merge_prof_files(inputs, dir.file("m.h5"), {});
  ASSERT_EQ(s.size(), 2u);
  MatrixFile file(dir.file("m.h5"));
  EXPECT_EQ(file.dumps(), (std::vector<std::string>{"mode1_sample", "mode2_sample"}));
  EXPECT_EQ(error_of([&] { (void)file.default_dump(); }),
            dir.file("m.h5") + ": holds several dumps (mode1_sample, mode2_sample): choose one with --dump");
}

TEST(Merge, CsrLayoutReadsBackLikeDense) {
  TempDir dir;
  merge_prof_files(real_dump("mode2_sample"), dir.file("dense.h5"), {});
  MergeOptions csr;
  csr.layout = MatrixLayout::csr;
  merge_prof_files(real_dump("mode2_sample"), dir.file("csr.h5"), csr);
  MatrixFile a(dir.file("dense.h5")), b(dir.file("csr.h5"));
  EXPECT_EQ(b.info("mode2_sample").layout, "csr");
  for (TrafficClass c : kAllTrafficClasses) {
    for (Metric m : {Metric::count, Metric::bytes}) {
      EXPECT_EQ(a.matrix("mode2_sample", c, m).to_dense(), b.matrix("mode2_sample", c, m).to_dense());
    }
  }
}

TEST(Merge, AutomaticLayoutSwitchesToCsrAboveThreshold) {
  TempDir dir;
  MergeOptions o;
  o.csr_above = 2;
  auto s = merge_prof_files(real_dump("mode2_sample"), dir.file("m.h5"), o);
  EXPECT_EQ(s[0].layout, "csr");
}

TEST(Merge, ProcessCountFromHighestRankWithoutWorldLine) {
  TempDir dir;
  auto f0 = dir.write("x.0.prof", prof("E\t0\t5\t4 bytes\t1 msgs sent\n"));
  auto f2 = dir.write("x.2.prof", prof("E\t2\t1\t4 bytes\t1 msgs sent\n"));
  auto s = merge_prof_files({f2, f0}, dir.file("m.h5"), {});
  EXPECT_EQ(s[0].nprocs, 6u);
  MatrixFile file(dir.file("m.h5"));
  EXPECT_EQ(file.info("x").ranks_present, (std::vector<std::uint64_t>{0, 2}));
  EXPECT_EQ(file.matrix("x", TrafficClass::external, Metric::bytes).at(0, 5), 4u);
}

// A failed merge leaves nothing behind: no output, no temporary, an existing output untouched.
void expect_failure_leaves_nothing(const TempDir& dir, const std::vector<std::string>& inputs,
                                   const std::string& expected_message) {
  std::size_t before = files_in(dir.path());
  EXPECT_EQ(error_of([&] { merge_prof_files(inputs, dir.file("out.h5"), {}); }), expected_message);
  EXPECT_FALSE(fs::exists(dir.file("out.h5")));
  EXPECT_EQ(files_in(dir.path()), before);
}

// Without an MPI_COMM_WORLD line a peer's rank alone sets the size up to 2^20 processes; beyond,
// the size must be stated: one line naming rank 2^31 - 2 made merge allocate 24 GB (killed).
TEST(MergeErrors, HugeInferredSizeNeedsStatedSize) {
  TempDir dir;
  auto f0 = dir.write("x.0.prof", prof("E\t0\t2147483646\t8 bytes\t1 msgs sent\n"));
  expect_failure_leaves_nothing(dir, {f0},
                                f0 + ":2: peer 2147483646 implies 2147483647 processes, but no file has an "
                                     "MPI_COMM_WORLD line to confirm it (more than 1048576 are taken from a "
                                     "file's word only with --nprocs N)");
  auto f1 = dir.write("y.0.prof", prof("E\t0\t1048575\t8 bytes\t1 msgs sent\n"));  // 2^20 processes: taken
  EXPECT_EQ(merge_prof_files({f1}, dir.file("y.h5"), {})[0].nprocs, 1048576u);
}

TEST(Merge, StatedSizeWithoutWorldLine) {
  TempDir dir;
  auto f0 = dir.write("x.0.prof", prof("E\t0\t2\t4 bytes\t1 msgs sent\n"));
  MergeOptions o;
  o.nprocs = 8;
  EXPECT_EQ(merge_prof_files({f0}, dir.file("m.h5"), o)[0].nprocs, 8u);
  o.nprocs = 2;
  EXPECT_EQ(error_of([&] { merge_prof_files({f0}, dir.file("n.h5"), o); }),
            f0 + ":2: peer 2 is outside MPI_COMM_WORLD (2 processes, from --nprocs)");
  auto w = dir.write("w.0.prof", prof("", world_block(0, "0,1")));
  o.nprocs = 3;
  EXPECT_EQ(error_of([&] { merge_prof_files({w}, dir.file("w.h5"), o); }),
            w + ": MPI_COMM_WORLD has 2 processes here but --nprocs says 3");
}

TEST(MergeErrors, PeerOutsideWorldAcrossFiles) {
  TempDir dir;
  auto f0 = dir.write("x.0.prof", prof("E\t0\t3\t4 bytes\t1 msgs sent\n"));
  auto f1 = dir.write("x.1.prof", prof("", world_block(1, "0,1")));
  expect_failure_leaves_nothing(dir, {f0, f1},
                                f0 + ":2: peer 3 is outside MPI_COMM_WORLD (2 processes, from " + f1 + ")");
}

TEST(MergeErrors, RankOutsideWorld) {
  TempDir dir;
  auto f0 = dir.write("x.0.prof", prof("", world_block(0, "0,1")));
  auto f5 = dir.write("x.5.prof", prof(""));
  expect_failure_leaves_nothing(dir, {f0, f5},
                                f5 + ": rank 5 is outside MPI_COMM_WORLD (2 processes, from " + f0 + ")");
}

TEST(MergeErrors, WorldSizesDisagree) {
  TempDir dir;
  auto f0 = dir.write("x.0.prof", prof("", world_block(0, "0,1")));
  auto f1 = dir.write("x.1.prof", prof("", world_block(1, "0,1,2")));
  expect_failure_leaves_nothing(dir, {f0, f1}, f1 + ": MPI_COMM_WORLD has 3 processes here but 2 in " + f0);
}

TEST(MergeErrors, TwoFilesForOneRank) {
  TempDir dir;
  fs::create_directory(dir.path() / "a");
  fs::create_directory(dir.path() / "b");
  auto a = dir.write("a/x.0.prof", prof(""));
  auto b = dir.write("b/x.0.prof", prof(""));
  expect_failure_leaves_nothing(dir, {a, b}, b + ": second file for rank 0 of dump 'x' (the first is " + a + ")");
}

TEST(MergeErrors, MissingFile) {
  TempDir dir;
  auto a = dir.write("x.0.prof", prof(""));
  expect_failure_leaves_nothing(dir, {a, dir.file("x.1.prof")}, dir.file("x.1.prof") + ": no such file");
}

TEST(MergeErrors, BadLineInALaterFileRemovesTheTemporary) {
  TempDir dir;
  auto a = dir.write("x.0.prof", prof("E\t0\t1\t4 bytes\t1 msgs sent\n"));
  auto b = dir.write("x.1.prof", prof("E\t1\t0\t4 bytes\tmany msgs sent\n"));
  expect_failure_leaves_nothing(dir, {a, b}, b + ":2: message count 'many' is not a non-negative integer");
}

TEST(MergeErrors, ExistingOutputIsKeptOnFailure) {
  TempDir dir;
  auto existing = dir.write("out.h5", "precious");
  auto bad = dir.write("x.0.prof", "");
  EXPECT_EQ(error_of([&] { merge_prof_files({bad}, existing, {}); }), bad + ": empty file");
  EXPECT_EQ(test::read_text(existing), "precious");
}

TEST(MatrixFileErrors, RejectsOtherFiles) {
  TempDir dir;
  auto text = dir.write("t.h5", "not hdf5");
  EXPECT_EQ(error_of([&] { MatrixFile f(text); }), text + ": not a readable HDF5 file");
  EXPECT_EQ(error_of([&] { MatrixFile f(dir.file("none.h5")); }), dir.file("none.h5") + ": not a readable HDF5 file");
  merge_prof_files(real_dump("mode2_sample"), dir.file("m.h5"), {});
  MatrixFile f(dir.file("m.h5"));
  EXPECT_EQ(error_of([&] { (void)f.info("nope"); }), dir.file("m.h5") + ": no dump named 'nope'");
}

}  // namespace
}  // namespace mpimon

namespace mpimon {
namespace {

// 9000 ranks: the rank list (72 KB) is past the 64 KiB the original HDF5 format allows per object.
TEST(Merge, ManyRanksKeepAttributesOfAnySize) {
  test::TempDir dir;
  std::vector<std::string> files;
  const std::uint32_t n = 9000;
  for (std::uint32_t r = 0; r < n; ++r) {
    files.push_back(dir.write("s." + std::to_string(r) + ".prof",
                              "# POINT TO POINT\nE\t" + std::to_string(r) + "\t" + std::to_string((r + 1) % n) +
                                  "\t8 bytes\t1 msgs sent\n# OSC\n# COLLECTIVES\n"));
  }
  auto s = merge_prof_files(files, dir.file("m.h5"), {});
  EXPECT_EQ(s[0].layout, "csr");
  MatrixFile file(dir.file("m.h5"));
  DumpInfo info = file.info("s");
  EXPECT_EQ(info.ranks_present.size(), n);
  EXPECT_EQ(info.source_files.size(), n);
  EXPECT_EQ(file.matrix("s", TrafficClass::external, Metric::bytes).at(n - 1, 0), 8u);
}

}  // namespace
}  // namespace mpimon

namespace mpimon {
namespace {

// Histograms are stored sparse (format version 2): every value must come back, including the
// extremes of uint64, and the zero buckets between them.
TEST(Merge, HistogramsRoundTripExactly) {
  test::TempDir dir;
  std::string extreme = "18446744073709551615,0,1,4294967296,9223372036854775808";
  for (int i = 5; i < 66; ++i) extreme += ",7";
  auto f0 =
      dir.write("x.0.prof", "# POINT TO POINT\nE\t0\t1\t1 bytes\t1 msgs sent\t" + extreme + "\n# OSC\n# COLLECTIVES\n");
  merge_prof_files({f0}, dir.file("m.h5"), {});
  HistogramTable t = MatrixFile(dir.file("m.h5")).histograms("x");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t.counts[0], 18446744073709551615ull);
  EXPECT_EQ(t.counts[1], 0u);
  EXPECT_EQ(t.counts[3], 4294967296ull);
  EXPECT_EQ(t.counts[4], 9223372036854775808ull);
  EXPECT_EQ(t.counts[65], 7u);
}

}  // namespace
}  // namespace mpimon

namespace mpimon {
namespace {

// A dump of 37 ranks, each with its own traffic, merged with 1 to 4 reader threads: the parallel
// reading must give exactly the lines of each file, in rank order, whatever the thread count.
// The expected values are computed here from the same formulas that wrote the files.
TEST(Merge, ParallelReadersKeepEveryFileInItsRow) {
  test::TempDir dir;
  const std::uint32_t n = 37;
  auto bytes_of = [](std::uint32_t r, std::uint32_t p) { return std::uint64_t{1000} * r + p + 1; };
  std::string procs;
  for (std::uint32_t r = 0; r < n; ++r) procs += (r ? "," : "") + std::to_string(r);
  std::vector<std::string> files;
  for (std::uint32_t r = 0; r < n; ++r) {
    std::string p2p;
    for (std::uint32_t p = 0; p < n; p += 1 + r % 3) {  // rank-dependent sparsity
      p2p += "E\t" + std::to_string(r) + "\t" + std::to_string(p) + "\t" + std::to_string(bytes_of(r, p)) + " bytes\t" +
             std::to_string(r + 1) + " msgs sent\t" +
             histogram_text({{static_cast<int>(p % 66), static_cast<int>(r + 1)}}) + "\n";
    }
    files.push_back(dir.write("par." + std::to_string(r) + ".prof", prof(p2p, world_block(r, procs))));
  }
  for (unsigned threads : {1u, 2u, 3u, 4u}) {
    MergeOptions options;
    options.threads = threads;
    std::string out = dir.file("m" + std::to_string(threads) + ".h5");
    merge_prof_files(files, out, options);
    MatrixFile file(out);
    SparseMatrix bytes = file.matrix("par", TrafficClass::external, Metric::bytes);
    SparseMatrix count = file.matrix("par", TrafficClass::external, Metric::count);
    HistogramTable h = file.histograms("par");
    std::size_t k = 0;
    for (std::uint32_t r = 0; r < n; ++r) {
      for (std::uint32_t p = 0; p < n; ++p) {
        const bool has_line = p % (1 + r % 3) == 0;
        EXPECT_EQ(bytes.at(r, p), has_line ? bytes_of(r, p) : 0) << threads << " threads, " << r << "->" << p;
        EXPECT_EQ(count.at(r, p), has_line ? r + 1 : 0) << threads << " threads, " << r << "->" << p;
        if (!has_line) continue;
        ASSERT_LT(k, h.size());
        EXPECT_EQ(h.pairs[2 * k], r);
        EXPECT_EQ(h.pairs[2 * k + 1], p);
        for (std::size_t b = 0; b < kHistogramBuckets; ++b) {
          EXPECT_EQ(h.counts[k * kHistogramBuckets + b], b == p % 66 ? r + 1 : 0);
        }
        ++k;
      }
    }
    EXPECT_EQ(k, h.size());
    CommunicatorTable t = file.communicators("par");
    ASSERT_EQ(t.names.size(), 1u);  // the same MPI_COMM_WORLD in every file
    EXPECT_EQ(t.members[0].size(), n);
    EXPECT_EQ(t.rows.size(), n);
  }
}

// With several reader threads, the error reported is still that of the first bad file in rank
// order, and nothing is left behind.
TEST(MergeErrors, ParallelReadersReportTheFirstBadFile) {
  TempDir dir;
  std::vector<std::string> files;
  for (std::uint32_t r = 0; r < 12; ++r) {
    std::string line = "E\t" + std::to_string(r) + "\t0\t4 bytes\t" + (r == 5 || r == 8 ? "x" : "1") + " msgs sent\n";
    files.push_back(dir.write("x." + std::to_string(r) + ".prof", prof(line)));
  }
  for (unsigned threads : {2u, 3u}) {
    MergeOptions options;
    options.threads = threads;
    EXPECT_EQ(error_of([&] { merge_prof_files(files, dir.file("m.h5"), options); }),
              files[5] + ":2: message count 'x' is not a non-negative integer");
    EXPECT_EQ(files_in(dir.path()), files.size());
  }
}

}  // namespace
}  // namespace mpimon
