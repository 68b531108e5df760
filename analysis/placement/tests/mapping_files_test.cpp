// The files that carry a mapping (mapping_files.hpp): rankfiles read back as mappings, worked by
// hand, and what write_rankfile writes read back as the mapping it was written from.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "mpimon/base/error.hpp"
#include "mpimon/placement/mapping_files.hpp"
#include "test_util.hpp"

namespace mpimon {
namespace {

// 2 nodes x 2 sockets x 2 cores: leaf = node x 4 + socket x 2 + core, worked by hand.
TEST(Rankfile, MappingOfARankfile) {
  test::TempDir dir;
  const auto path = dir.write("a.rf",
                              "# a comment\n"
                              "rank 0=node1 slot=1:0\n"
                              "\n"
                              "rank 2=node0 slot=3\n"
                              "rank 1=node0 slot=0:1\n"
                              "rank 7=node0 slot=0:0\n");  // beyond --np: ignored, as mpirun does
  const auto entries = read_rankfile(path, 3);
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].host, "node1");
  EXPECT_EQ(entries[2].line, 4u);
  EXPECT_EQ(rankfile_mapping(entries, parse_topology("2x2x2"), default_hosts(2), path), (Mapping{6, 1, 3}));
}

TEST(Rankfile, ErrorsNameTheLine) {
  test::TempDir dir;
  const auto topo = parse_topology("2x2x2");
  auto error = [&](const std::string& text, std::uint32_t np = 2) {
    const auto path = dir.write("bad.rf", text);
    return test::error_of([&] { rankfile_mapping(read_rankfile(path, np), topo, default_hosts(2), path); });
  };
  EXPECT_NE(error("rank 0=node0 slot=0:0\nrank 1 node0\n").find("bad.rf:2: expected 'rank R=HOST"), std::string::npos);
  EXPECT_NE(
      error("rank 0=node0 slot=0:0\nrank 0=node1 slot=0:0\n").find("bad.rf:2: rank 0 given twice (first on line 1)"),
      std::string::npos);
  EXPECT_NE(error("rank 0=node0 slot=0:0\n").find("no 'rank 1=' line"), std::string::npos);
  EXPECT_NE(error("rank 0=node0 slot=0:0\nrank 1=node5 slot=0:0\n").find("bad.rf:2: host 'node5' is not one of"),
            std::string::npos);
  EXPECT_NE(error("rank 0=node0 slot=2:0\nrank 1=node1 slot=0:0\n").find("bad.rf:1: slot 2:0 is beyond"),
            std::string::npos);
  EXPECT_NE(error("rank 0=node0 slot=4\nrank 1=node1 slot=0:0\n").find("bad.rf:1: slot 4 is beyond"),
            std::string::npos);
}

// The writer's lines are what the reader reads: every leaf of 2 nodes x 2 sockets x 2 cores, in a
// scrambled order, comes back as written (and on named hosts).
TEST(Rankfile, WrittenThenReadGivesTheMappingBack) {
  test::TempDir dir;
  const TreeTopology topo = parse_topology("2x2x2");
  const Mapping mapping = {5, 0, 7, 2, 6, 1, 4, 3};
  const std::vector<std::string> hosts = {"alpha", "beta"};
  std::ostringstream out;
  write_rankfile(mapping, topo, hosts, out);
  const auto path = dir.write("w.rf", out.str());
  EXPECT_EQ(rankfile_mapping(read_rankfile(path, 8), topo, hosts, path), mapping);
}

}  // namespace
}  // namespace mpimon
