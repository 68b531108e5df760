// What `mpimon place`'s options turn into in the library, and its table: the machine (slots,
// excluded cores), the checks of a request's options against each other, and the table's columns
// and verdict, on inputs whose answers are worked out by hand here.
#include <gtest/gtest.h>

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "mpimon/placement/machine.hpp"
#include "mpimon/placement/place.hpp"
#include "test_util.hpp"

namespace mpimon {
namespace {

TEST(PlacementMachine, SlotsAndExcludedCoresShapeTheTree) {
  MachineOptions o;
  o.topology = "2x1x2";
  o.slots_per_leaf = 2;
  o.exclude_leaves = "3";
  const TreeTopology t = placement_machine(o).topo;
  EXPECT_EQ(t.leaves(), 8u);         // 4 cores x 2 slots
  EXPECT_EQ(t.usable_leaves(), 6u);  // core 3's two slots kept free
  EXPECT_FALSE(t.usable(6));
  EXPECT_FALSE(t.usable(7));
  EXPECT_TRUE(t.usable(5));
  o.exclude_leaves = "1-0";
  EXPECT_EQ(test::error_of([&] { placement_machine(o); }),
            "--exclude-leaves: '1-0' is not a leaf index or a range A-B");
}

// One node of one package of two cores, as lstopo --input "pack:1 core:2 pu:1" --of xml writes it.
constexpr const char* kTwoCoreNode = R"(<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE topology SYSTEM "hwloc2.dtd">
<topology version="2.0">
  <object type="Machine" os_index="0" cpuset="0x00000003" complete_cpuset="0x00000003" allowed_cpuset="0x00000003" nodeset="0x00000001" complete_nodeset="0x00000001" allowed_nodeset="0x00000001" gp_index="1">
    <object type="Package" os_index="0" cpuset="0x00000003" complete_cpuset="0x00000003" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="6">
      <object type="NUMANode" os_index="0" cpuset="0x00000003" complete_cpuset="0x00000003" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="7" local_memory="1073741824"/>
      <object type="Core" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="3">
        <object type="PU" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="2"/>
      </object>
      <object type="Core" os_index="1" cpuset="0x00000002" complete_cpuset="0x00000002" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="5">
        <object type="PU" os_index="1" cpuset="0x00000002" complete_cpuset="0x00000002" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="4"/>
      </object>
    </object>
  </object>
</topology>
)";

// An mpimon cluster gives the tree (its nodes of its node's shape) and the rate between its nodes;
// a --topology given too must agree with it; --link and --links exclude each other.
TEST(PlacementMachine, TheClusterGivesTheTreeAndTheRateBetweenNodes) {
  const test::TempDir dir;
  MachineOptions o;
  o.cluster = ClusterMachine{"c1", "hosts.txt", 2, dir.write("node.xml", kTwoCoreNode), "100mbit"};
  const PlacementMachine m = placement_machine(o);
  EXPECT_EQ(m.topo.tleaf(), "tleaf 2 2 100 2 1");
  EXPECT_EQ(m.note, "topology 2 nodes x 1 socket x 2 cores of cluster c1 (--hostfile hosts.txt)");
  ASSERT_EQ(m.topo.links.size(), 2u);  // the level above the nodes at the cluster's rate, the cores' free
  EXPECT_EQ(m.topo.links[0].bits_per_second, 1e8);
  EXPECT_EQ(m.topo.links[0].latency_seconds, 0.0);
  EXPECT_EQ(m.topo.links[1].bits_per_second, 0.0);
  EXPECT_NE(m.links_from.find("mpimon cluster 'c1'"), std::string::npos) << m.links_from;
  o.topology = "2x2x2";
  EXPECT_NE(test::error_of([&] { placement_machine(o); }).find("contradicts cluster c1 of --hostfile hosts.txt"),
            std::string::npos);
  o.cluster.reset();
  o.topology.clear();
  EXPECT_NE(test::error_of([&] { placement_machine(o); }).find("--topology is required"), std::string::npos);
  o.topology = "2x1x2";
  o.link = {"1gbit,10us"};
  o.links_file = "links.json";
  EXPECT_EQ(test::error_of([&] { placement_machine(o); }), "--link and --links exclude each other");
  o.links_file.clear();
  const PlacementMachine linked = placement_machine(o);
  EXPECT_EQ(linked.links_from, "--link");
  ASSERT_EQ(linked.topo.links.size(), 2u);  // one --link for the top level, the other free
  EXPECT_EQ(linked.topo.links[0].bits_per_second, 1e9);
  EXPECT_DOUBLE_EQ(linked.topo.links[0].latency_seconds, 10e-6);
  EXPECT_EQ(linked.topo.links[1].bits_per_second, 0.0);
}

// Each option is checked once, here, and the error names it.
TEST(PlacementRequest, OptionsAreCheckedAgainstEachOther) {
  EXPECT_EQ(parse_methods("all"), std::vector<std::string>{});
  EXPECT_EQ(parse_methods("packed,refine"), (std::vector<std::string>{"packed", "refine"}));
  EXPECT_NE(test::error_of([] { parse_methods("packed,bogus"); }).find("unknown method 'bogus' in --method"),
            std::string::npos);
  EXPECT_EQ(test::error_of([] { parse_methods("packed,,refine"); }), "empty item in --method 'packed,,refine'");
  PlacementRequest r;
  r.methods = {"packed", "given"};
  EXPECT_NE(test::error_of([&] { check_request(r, false, false); }).find("needs --start-mapping"), std::string::npos);
  EXPECT_EQ(test::error_of([&] { check_request(r, true, false); }), "");
  r.methods = {"packed", "cyclic"};
  EXPECT_EQ(test::error_of([&] { check_request(r, true, false); }),
            "--start-mapping is read only by the methods given, refine: --method lists none of them");
  r.methods.clear();  // every method: given and refine read it
  EXPECT_EQ(test::error_of([&] { check_request(r, true, false); }), "");
  r.objective = Objective::time;
  EXPECT_NE(test::error_of([&] { check_request(r, false, false); }).find("--objective time needs the links"),
            std::string::npos);
  EXPECT_EQ(test::error_of([&] { check_request(r, false, true); }), "");
  r.time_limit = -1;
  EXPECT_EQ(test::error_of([&] { check_request(r, false, true); }), "--time-limit must be positive (seconds)");
}

// Two nodes of two sockets of two cores; packed crosses 1200 bytes between nodes, the chosen mapping 600.
MethodResult row(const std::string& method, std::uint64_t cost, std::uint64_t between_nodes,
                 std::optional<double> gain) {
  MethodResult r;
  r.method = method;
  r.metrics.cost = cost;
  r.metrics.crossing = {between_nodes, 2 * between_nodes, 3 * between_nodes};
  r.metrics.busiest_node_off_node = between_nodes;
  r.lower_bound = 100;
  r.gain_vs_packed = gain;
  return r;
}

TEST(PlaceTable, ColumnsAlignAndTheVerdictComparesWithPacked) {
  PlacementContext o;
  o.input = "run.h5";
  o.dump = "run";
  o.ranks = 8;
  o.classes = o.evaluate_classes = "external";
  o.metric = "bytes";
  const TreeTopology t = parse_topology("2x2x2");
  // gain 100 x (packed / cost - 1): packed 400, chosen 200 -> +100 %, i.e. 0.50 x packed.
  const std::vector<MethodResult> rows = {row("packed", 400, 1200, 0.0), row("multisection", 200, 600, 100.0)};
  std::ostringstream out;
  write_placement_table(out, rows, t, o, "multisection");
  const std::string text = out.str();
  EXPECT_NE(text.find("Placement of 8 ranks (run.h5, dump run) on 'tleaf 3 2 100 2 10 2 1' (8 leaves, 2 nodes)"),
            std::string::npos)
      << text;
  // Every row as wide as the header, the method column left-aligned, the rest right-aligned.
  EXPECT_NE(text.find("method          cost  x bound  x packed  x random  L0 node  L1 socket  busiest node off\n"
                      "packed           400   4.00 x    1.00 x         -     1200       2400              1200\n"
                      "multisection *   200   2.00 x    0.50 x         -      600       1200               600\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Chosen: multisection costs 0.50 x packed (ranks in order); traffic between nodes -50 % "
                      "(1200 -> 600 bytes); traffic between sockets -50 % (2400 -> 1200 bytes) (modelled).\n"),
            std::string::npos)
      << text;
}

TEST(PlaceTable, PackedAlreadyCheapestIsSaid) {
  PlacementContext o;
  o.ranks = 4;
  o.dump = "run";
  o.metric = "bytes";
  const TreeTopology t = parse_topology("2x2x2");
  std::ostringstream out;
  write_placement_table(out, {row("packed", 400, 1200, 0.0)}, t, o, "packed");
  EXPECT_NE(out.str().find("Packed (ranks in order) is already the cheapest"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace mpimon
