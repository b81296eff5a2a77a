// The same scene and the same edits give bit-identical states.

#include <gtest/gtest.h>

#include <cstring>

#include "server/scene/scene_library.h"
#include "server/scene/scene_proto.h"
#include "tests/validation/test_scenes.h"

namespace ligature {
namespace {

// Runs the default scene with a few edits interleaved and returns every body's raw state.
std::vector<double> RunDefaultScene() {
  auto proto = LoadBuiltinScene("default");
  EXPECT_TRUE(proto.ok());
  auto scene = SceneFromProto(*proto);
  EXPECT_TRUE(scene.ok());
  auto world = testing::MakeWorld(*scene);
  for (int i = 0; i < 300; ++i) {
    if (i == 50) {
      BodyDesc extra = testing::MakeBody("", Shape::Capsule(0.1, 0.3), Vec3(0.1, 3.0, 0.2));
      EXPECT_TRUE(world->AddBody(extra).ok());
    }
    if (i == 120) {
      EXPECT_TRUE(world->RemoveBody("ball-0").ok());
    }
    world->Step();
  }
  std::vector<double> state;
  for (const BodyState& b : world->MakeFrame().bodies) {
    state.insert(state.end(), b.pose.position.data(), b.pose.position.data() + 3);
    state.insert(state.end(), b.pose.orientation.coeffs().data(),
                 b.pose.orientation.coeffs().data() + 4);
    state.insert(state.end(), b.linear_velocity.data(), b.linear_velocity.data() + 3);
    state.insert(state.end(), b.angular_velocity.data(), b.angular_velocity.data() + 3);
  }
  return state;
}

TEST(Determinism, SameSceneAndEditsGiveBitIdenticalStates) {
  const std::vector<double> first = RunDefaultScene();
  const std::vector<double> second = RunDefaultScene();
  ASSERT_EQ(first.size(), second.size());
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(std::memcmp(first.data(), second.data(), first.size() * sizeof(double)), 0);
}

}  // namespace
}  // namespace ligature
