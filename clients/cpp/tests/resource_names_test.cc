#include "clients/cpp/resource_names.h"

#include "gtest/gtest.h"

namespace ligature::client {
namespace {

TEST(ResourceNamesTest, WorldAcceptsIdOrName) {
  EXPECT_EQ(WorldName("demo"), "worlds/demo");
  EXPECT_EQ(WorldName("worlds/demo"), "worlds/demo");
}

TEST(ResourceNamesTest, BodyNameUnderWorld) {
  EXPECT_EQ(BodyName("demo", "ball"), "worlds/demo/bodies/ball");
  EXPECT_EQ(BodyName("worlds/demo", "ball"), "worlds/demo/bodies/ball");
}

}  // namespace
}  // namespace ligature::client
