// A simulated mapping's one column list (mpimon/results/simulated.hpp) and the four writers it
// drives, against texts written here by hand in each format's names as the files have them; the
// committed results of mpimon simulate read back.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "mpimon/matrices/h5.hpp"
#include "mpimon/results/simulated.hpp"
#include "test_util.hpp"

namespace mpimon {
namespace {

using test::TempDir;

// Mapping A simulated (its cost modelled, its traffic checked), mapping B failed.
std::vector<SimulatedMapping> described() {
  SimulatedMapping a, b;
  a.arm = "A", a.name = "packed", a.rankfile = "/r/packed.rf", a.modelled = 1000;
  a.traffic = "equal to x: 2 host pairs, 10 bytes between hosts";
  b.arm = "B", b.name = "cyc,lic", b.rankfile = "/r/cyclic.rf";
  return {a, b};
}

std::vector<AppLaunchRecord> launches() {
  AppLaunchRecord a, b;
  a.key = {"ring", 4, 1, "A"}, a.status = "ok", a.seconds = 2.5, a.wall_seconds = 0.5, a.time_source = "simulated";
  a.simulated_seconds = 2.5;
  b.key = {"ring", 4, 1, "B"}, b.position = 1, b.status = "exit code 1", b.wall_seconds = 0.25;
  b.time_source = "simulated";
  return {a, b};
}

std::map<std::string, std::string> configuration() {
  std::map<std::string, std::string> c = {{"np", "4"}};
  describe_simulated_mappings(c, described(), {"rank 0=n0 slot=0\n", "rank 0=n1 slot=0\n"});
  return c;
}

TEST(SimulatedMappings, TheConfigurationKeysReadBack) {
  const auto c = configuration();
  EXPECT_EQ(c.at("kind"), "simulated");
  EXPECT_EQ(c.at("arms"), "A,B");
  EXPECT_EQ(c.at("arm_A"), "rankfile /r/packed.rf:\nrank 0=n0 slot=0\n");
  EXPECT_EQ(c.at("arm_B_name"), "cyc,lic");
  EXPECT_EQ(c.at("modelled_A"), "1000");
  EXPECT_EQ(c.count("modelled_B"), 0u);
  EXPECT_EQ(c.at("traffic_A"), "equal to x: 2 host pairs, 10 bytes between hosts");
  EXPECT_EQ(c.count("traffic_B"), 0u);
  const auto rows = simulated_mappings(c, launches());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].rankfile, "/r/packed.rf");
  EXPECT_EQ(rows[0].time_source, "simulated");
  EXPECT_EQ(*rows[0].modelled, 1000);
  EXPECT_EQ(*rows[0].ratio, 1.0);
  EXPECT_EQ(rows[1].status, "exit code 1");
  EXPECT_FALSE(rows[1].ratio);
  EXPECT_FALSE(rows[1].modelled);
}

TEST(SimulatedMappings, CsvJsonAndTableFromOneColumnList) {
  const auto rows = simulated_mappings(configuration(), launches());
  std::ostringstream csv;
  write_simulated_csv(rows, csv);
  EXPECT_EQ(csv.str(),
            "arm,name,status,seconds,ratio,simulated_clock_s,wall_s,modelled_cost,traffic_check\n"
            "A,packed,ok,2.5,1,2.5,0.5,1000,equal to x: 2 host pairs  10 bytes between hosts\n"
            "B,cyc lic,exit code 1,,,,0.25,,\n");
  EXPECT_EQ(
      simulated_mappings_json(rows),
      "{\n  \"mappings\": [\n"
      "    {\"rankfile\": \"/r/packed.rf\", \"arm\": \"A\", \"name\": \"packed\", \"status\": \"ok\", "
      "\"simulated_seconds\": 2.5, \"ratio_to_first\": 1.0, \"modelled_cost\": 1000.0, \"time_source\": "
      "\"simulated\", \"simulated_clock_seconds\": 2.5, \"wall_seconds\": 0.5, \"traffic_check\": \"equal to x: 2 "
      "host pairs, 10 bytes between hosts\"},\n"
      "    {\"rankfile\": \"/r/cyclic.rf\", \"arm\": \"B\", \"name\": \"cyc,lic\", \"status\": \"exit code 1\", "
      "\"simulated_seconds\": null, \"ratio_to_first\": null, \"modelled_cost\": null, \"time_source\": "
      "\"simulated\", \"simulated_clock_seconds\": null, \"wall_seconds\": 0.25, \"traffic_check\": null}\n"
      "  ]\n}\n");
  // The table as mpimon simulate printed it with printf before its columns had a list.
  char line[3][200];
  const char* format = "%-4s %-24s %14s %9s %14s %10s  %s\n";
  std::snprintf(line[0], sizeof line[0], format, "arm", "mapping", "simulated s", "vs first", "modelled cost", "wall s",
                "status");
  std::snprintf(line[1], sizeof line[1], format, "A", "packed", "2.5", "1.000", "1000", "0.5", "ok");
  std::snprintf(line[2], sizeof line[2], format, "B", "cyc,lic", "-", "-", "-", "0.2", "exit code 1");
  std::ostringstream table;
  write_simulated_table(rows, "ring", 4, table);
  EXPECT_EQ(table.str(),
            std::string("\nring, np 4: SIMULATED (SimGrid SMPI)\n") + line[0] + line[1] + line[2] +
                "(simulated s: the program's time in the simulation; vs first: its ratio to the first "
                "mapping's;\n modelled cost: mpimon place's model of the same mapping; wall s: how long "
                "the simulation took here)\ntraffic A: equal to x: 2 host pairs, 10 bytes between hosts\n");
}

TEST(SimulatedMappings, TheResultsFileHoldsItsMappingsTable) {
  TempDir dir;
  const std::string path = dir.file("sim.h5");
  write_simulation_results(path, configuration(), launches());
  const AppResults results(path);
  EXPECT_EQ(results.launches().size(), 2u);
  EXPECT_EQ(results.configuration().at("arms"), "A,B");
  h5::Handle file = h5::open_file_readonly(path);
  h5::Handle table = h5::open_group(file.get(), "mappings", path);
  auto names = h5::member_names(table.get(), path);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"arm", "modelled_cost", "name", "ratio", "seconds", "simulated_clock_s",
                                             "status", "traffic_check", "wall_s"}));
  auto strings = [&](const char* name) {
    return h5::read_strings(h5::open_dataset(table.get(), name, path).get(), path);
  };
  auto numbers = [&](const char* name) {
    return h5::read_doubles(h5::open_dataset(table.get(), name, path).get(), path);
  };
  EXPECT_EQ(strings("name"), (std::vector<std::string>{"packed", "cyc,lic"}));
  EXPECT_EQ(strings("traffic_check"),
            (std::vector<std::string>{"equal to x: 2 host pairs, 10 bytes between hosts", ""}));
  const auto seconds = numbers("seconds"), modelled = numbers("modelled_cost"), wall = numbers("wall_s");
  EXPECT_EQ(seconds[0], 2.5);
  EXPECT_TRUE(std::isnan(seconds[1]));
  EXPECT_EQ(modelled[0], 1000);
  EXPECT_TRUE(std::isnan(modelled[1]));
  EXPECT_EQ(wall, (std::vector<double>{0.5, 0.25}));
}

// A results file of mpimon simulate committed under results/ (written before the columns had a
// list) reads as it did: values taken from the file with h5py.
TEST(SimulatedMappings, ReadsTheCommittedResults) {
  const std::string path =
      std::string(MPIMON_TEST_DATA) +
      "/../../../results/placement/simulated/compact/fig4a-np32-1000000-10gbit-arithmetic-compact.h5";
  const AppResults results(path);
  const auto rows = simulated_mappings(results.configuration(), results.launches());
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].name, "pml");
  EXPECT_EQ(rows[0].rankfile, "pml.rf");
  EXPECT_EQ(rows[2].name, "cyclic");
  for (const auto& r : rows) EXPECT_EQ(r.status, "ok");
  EXPECT_EQ(*rows[0].modelled, 1724000000);
  EXPECT_EQ(rows[0].seconds, 0.0333493);
  EXPECT_EQ(rows[1].seconds, 0.0907108);
  EXPECT_EQ(*rows[1].modelled, 9724000000);
  EXPECT_NE(rows[2].traffic.find("equal to the recording"), std::string::npos);
}

}  // namespace
}  // namespace mpimon
