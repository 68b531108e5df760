#include <gtest/gtest.h>

#include "mpimon/models/workloads.hpp"

namespace mpimon {
namespace {

TEST(Workloads, ListIsASentence) { EXPECT_EQ(workload_list(), "stencil, cg, lu and bt"); }

TEST(Workloads, ClassesAsASentence) { EXPECT_EQ(workload_class_list(), "small, medium and large"); }

TEST(Workloads, AllAsOneOptionValue) { EXPECT_EQ(all_workloads_option(), "stencil,cg,lu,bt"); }

TEST(Workloads, KnowsItsNamesAndNoOthers) {
  EXPECT_TRUE(is_workload("stencil"));
  EXPECT_TRUE(is_workload("bt"));
  EXPECT_FALSE(is_workload("ft"));
  EXPECT_FALSE(is_workload(""));
  EXPECT_TRUE(is_workload_class("medium"));
  EXPECT_FALSE(is_workload_class("huge"));
}

}  // namespace
}  // namespace mpimon
