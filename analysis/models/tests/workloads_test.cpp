// The workloads table's words and properties, read from the table itself: adding a row changes no
// test here.

#include <gtest/gtest.h>

#include "mpimon/models/workloads.hpp"

namespace mpimon {
namespace {

TEST(Workloads, ListIsASentenceOfEveryName) {
  std::string expected;
  for (std::size_t i = 0; i < kWorkloadKinds.size(); ++i) {
    expected += (i == 0 ? "" : i + 1 == kWorkloadKinds.size() ? " and " : ", ") + std::string(kWorkloadKinds[i].name);
  }
  EXPECT_EQ(workload_list(), expected);
  EXPECT_EQ(workload_class_list(), "small, medium and large");
}

TEST(Workloads, AllAsOneOptionValue) {
  std::string expected;
  for (const auto& w : kWorkloadKinds) expected += (expected.empty() ? "" : ",") + std::string(w.name);
  EXPECT_EQ(all_workloads_option(), expected);
}

TEST(Workloads, KnowsItsNamesAndNoOthers) {
  for (const auto& w : kWorkloadKinds) {
    EXPECT_TRUE(is_workload(w.name));
    EXPECT_EQ(find_workload(w.name), &w);
  }
  EXPECT_FALSE(is_workload("ft"));
  EXPECT_FALSE(is_workload(""));
  EXPECT_EQ(find_workload("ft"), nullptr);
  EXPECT_TRUE(is_workload_class("medium"));
  EXPECT_FALSE(is_workload_class("huge"));
}

TEST(Workloads, PropertiesAsSentencesAndHelp) {
  EXPECT_EQ(workloads_with(&WorkloadKind::square_processes), "bt");  // NAS BT's q x q multi-partition
  EXPECT_EQ(workloads_with(&WorkloadKind::collectives), "cg");       // NAS CG's dot products
  const std::string help = workload_help();
  for (const auto& w : kWorkloadKinds) {
    const std::string entry = std::string(w.name) + " (" + std::string(w.summary);
    EXPECT_NE(help.find(entry + (w.square_processes ? "; np must be a square)" : ")")), std::string::npos) << help;
    EXPECT_FALSE(w.summary.empty());
    EXPECT_FALSE(w.signature.empty());
    EXPECT_GT(w.validation_nps[0], 0) << w.name << " has no validation case";
  }
}

}  // namespace
}  // namespace mpimon
