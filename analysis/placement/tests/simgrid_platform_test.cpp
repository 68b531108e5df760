// The platform writer's refusals and what it carries. Whether
// SimGrid reads the written platforms as the cluster meant is checked by SimGrid itself
// (cli.simulate_platform: its hosts, cores and routes).
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "mpimon/base/error.hpp"
#include "mpimon/placement/simgrid_platform.hpp"
#include "test_util.hpp"

namespace mpimon {
namespace {

TreeTopology simgrid_links(TreeTopology topo, std::vector<LinkSpec> links) {
  topo.links = std::move(links);
  return topo;
}

std::string platform_of(const TreeTopology& topo, SimulatedNetwork network) {
  std::ostringstream out;
  write_simgrid_platform(topo, network, out);
  return out.str();
}

// 4x2x4 at 1 Gbit/s, 1 us between nodes: 4 hosts of 8 cores; 125000000 bytes/s; a one-level fat
// tree is one switch of 4 ports ("1;4;1;1"); the loopback is the slower of the node's two levels
// (10 Gbit/s: 1.25e9 bytes/s) and twice their latencies (2 x (0.5 + 0.1) us).
TEST(SimgridPlatform, ClusterOfTheTree) {
  const auto topo = simgrid_links(parse_topology("4x2x4"), {{1e9, 1e-6}, {1e10, 5e-7}, {2e10, 1e-7}});
  const std::string xml = platform_of(topo, SimulatedNetwork::fat_tree);
  EXPECT_NE(xml.find("radical=\"0-3\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("core=\"8\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("bw=\"125000000Bps\" lat=\"1e-06s\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("topo_parameters=\"1;4;1;1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("loopback_bw=\"1250000000Bps\" loopback_lat=\"1.2e-06s\""), std::string::npos) << xml;
  EXPECT_EQ(platform_of(topo, SimulatedNetwork::flat).find("FAT_TREE"), std::string::npos);
}

// Two levels above the nodes (8 racks of 16 nodes): XGFT(2; 16, 8; 1, 16): a node has one uplink,
// a rack switch as many uplinks (16) as nodes.
TEST(SimgridPlatform, TwoLevelFatTreeHasFullBisection) {
  auto topo = parse_topology("tleaf 4 8 1000 16 100 2 10 4 1");
  topo.node_levels = 2;
  topo.socket_levels = 1;
  topo = simgrid_links(topo, {{1e10, 0}, {1e10, 0}, {1e11, 0}, {1e11, 0}});
  const std::string xml = platform_of(topo, SimulatedNetwork::fat_tree);
  EXPECT_NE(xml.find("topo_parameters=\"2;16,8;1,16;1,1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("radical=\"0-127\""), std::string::npos) << xml;
  // Different rates above the nodes: SimGrid's fat trees have one.
  topo.links[0].bits_per_second = 4e10;
  EXPECT_NE(test::error_of([&] { platform_of(topo, SimulatedNetwork::fat_tree); }).find("one link rate"),
            std::string::npos);
  EXPECT_NO_THROW(platform_of(topo, SimulatedNetwork::flat));
}

TEST(SimgridPlatform, RefusesMissingLinksAndSlots) {
  const auto topo = parse_topology("2x1x4");
  EXPECT_NE(test::error_of([&] { platform_of(topo, SimulatedNetwork::flat); }).find("needs a link rate"),
            std::string::npos);
  auto no_rate = simgrid_links(topo, {{1e9, 0}, {0, 0}});
  EXPECT_NE(test::error_of([&] { platform_of(no_rate, SimulatedNetwork::flat); }).find("level 1 has no link rate"),
            std::string::npos);
  auto slotted = simgrid_links(with_slots(topo, 2), {{1e9, 0}, {1e9, 0}, {1e9, 0}});
  EXPECT_NE(test::error_of([&] { platform_of(slotted, SimulatedNetwork::flat); }).find("without slots"),
            std::string::npos);
}

TEST(SimgridPlatform, TreeReadBackFromTheProperties) {
  const auto topo = platform_topology({{"mpimon_tleaf", "tleaf 3 4 100 2 10 4 1"},
                                       {"mpimon_node_levels", "1"},
                                       {"mpimon_socket_levels", "1"},
                                       {"mpimon_topology", "4x2x4"}});
  ASSERT_TRUE(topo.has_value());
  EXPECT_EQ(topo->tleaf(), "tleaf 3 4 100 2 10 4 1");
  EXPECT_EQ(topo->nodes(), 4u);
  EXPECT_EQ(topo->source, "4x2x4");
  EXPECT_FALSE(platform_topology({{"other", "x"}}).has_value());
}

TEST(SimgridNetwork, Names) {
  EXPECT_EQ(parse_simulated_network("fat-tree", "--network"), SimulatedNetwork::fat_tree);
  EXPECT_EQ(parse_simulated_network("flat", "--network"), SimulatedNetwork::flat);
  EXPECT_NE(
      test::error_of([] { parse_simulated_network("torus", "--network"); }).find("--network takes fat-tree or flat"),
      std::string::npos);
}

}  // namespace
}  // namespace mpimon
