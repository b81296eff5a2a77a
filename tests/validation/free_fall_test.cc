// A body in free fall follows y = y0 - g t^2 / 2 and v = -g t.

#include <gtest/gtest.h>

#include "tests/validation/test_scenes.h"

namespace ligature {
namespace {

TEST(FreeFall, MatchesAnalyticTrajectory) {
  SceneDesc scene;
  scene.settings.rate_hz = 1000.0;
  scene.bodies.push_back(testing::MakeBody("ball", Shape::Sphere(0.1), Vec3(0, 100, 0)));
  auto world = testing::MakeWorld(scene);
  const double g = 9.81;
  for (int i = 0; i < 2000; ++i) world->Step();
  const double t = world->sim_time();
  EXPECT_DOUBLE_EQ(t, 2.0);
  EXPECT_NEAR(testing::VelocityOf(*world, "ball").y(), -g * t, 1e-9);
  // Semi-implicit Euler is first order: the position error is g h t / 2 (about 1 cm here).
  const double expected = 100.0 - 0.5 * g * t * t;
  EXPECT_NEAR(testing::PositionOf(*world, "ball").y(), expected, 0.5 * g * 1e-3 * t + 1e-9);
  EXPECT_NEAR(testing::PositionOf(*world, "ball").x(), 0.0, 1e-12);
}

TEST(FreeFall, ProjectileRangeMatches) {
  SceneDesc scene;
  scene.settings.rate_hz = 1000.0;
  BodyDesc b = testing::MakeBody("shot", Shape::Sphere(0.05), Vec3(0, 0, 0));
  b.rigid()->linear_velocity = Vec3(3.0, 4.0, 0.0);
  scene.bodies.push_back(b);
  auto world = testing::MakeWorld(scene);
  for (int i = 0; i < 1000; ++i) world->Step();
  // Horizontal motion is uniform; vertical as above.
  EXPECT_NEAR(testing::PositionOf(*world, "shot").x(), 3.0, 1e-9);
  EXPECT_NEAR(testing::PositionOf(*world, "shot").y(), 4.0 - 0.5 * 9.81, 0.5 * 9.81 * 1e-3);
}

}  // namespace
}  // namespace ligature
