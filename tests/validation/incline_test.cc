// Coulomb friction on an incline: a box sticks when tan(angle) < mu, and slides with
// acceleration g (sin - mu cos) when tan(angle) > mu.

#include <gtest/gtest.h>

#include <numbers>

#include "tests/validation/test_scenes.h"

namespace ligature {
namespace {

constexpr double kG = 9.81;

// A static plane tilted by `angle` about z, and a box resting on it at the origin.
std::unique_ptr<World> InclineWorld(double angle, double mu, int substeps = 1) {
  SceneDesc scene;
  scene.settings.rate_hz = 200.0;
  scene.settings.solver.max_iterations = 50;
  scene.settings.solver.substeps = substeps;
  const Quat tilt(Eigen::AngleAxisd(angle, Vec3::UnitZ()));
  BodyDesc ground = testing::MakeBody("slope", Shape::Plane(), Vec3::Zero(), BodyKind::kStatic);
  ground.rigid()->pose.orientation = tilt;
  ground.rigid()->material.friction = mu;
  scene.bodies.push_back(ground);
  const Vec3 half(0.2, 0.1, 0.2);
  BodyDesc box = testing::MakeBody("box", Shape::Box(half), tilt * Vec3(0, half.y(), 0));
  box.rigid()->pose.orientation = tilt;
  box.rigid()->material.friction = mu;
  scene.bodies.push_back(box);
  return testing::MakeWorld(scene);
}

TEST(Incline, BoxSticksWhenTangentBelowFriction) {
  const double angle = 25.0 * std::numbers::pi / 180.0;  // tan = 0.466
  auto world = InclineWorld(angle, 0.6);
  const Vec3 start = testing::PositionOf(*world, "box");
  for (int i = 0; i < 600; ++i) world->Step();
  EXPECT_LT((testing::PositionOf(*world, "box") - start).norm(), 1e-3);
}

TEST(Incline, BoxSlidesWithCoulombAcceleration) {
  const double angle = 30.0 * std::numbers::pi / 180.0;  // tan = 0.577
  const double mu = 0.3;
  auto world = InclineWorld(angle, mu);
  testing::ExpectCoulombSlide(*world, "box", angle, mu);
}

TEST(Incline, FrictionlessBoxSlidesWithGSin) {
  const double angle = 20.0 * std::numbers::pi / 180.0;
  auto world = InclineWorld(angle, 0.0);
  const Vec3 down_slope = Quat(Eigen::AngleAxisd(angle, Vec3::UnitZ())) * Vec3(-1, 0, 0);
  const double expected = kG * std::sin(angle);
  EXPECT_NEAR(testing::AccelerationAlong(*world, "box", down_slope, 20, 200), expected,
              0.02 * expected);
}

// Both in 4 substeps: the box sticks below the friction angle and slides at
// g (sin - mu cos) above it.
TEST(Incline, SticksAndSlidesInSubsteps) {
  const double stick = 25.0 * std::numbers::pi / 180.0;
  auto world = InclineWorld(stick, 0.6, 4);
  const Vec3 start = testing::PositionOf(*world, "box");
  for (int i = 0; i < 600; ++i) world->Step();
  EXPECT_LT((testing::PositionOf(*world, "box") - start).norm(), 1e-3);
  const double slide = 30.0 * std::numbers::pi / 180.0;
  auto sliding = InclineWorld(slide, 0.3, 4);
  testing::ExpectCoulombSlide(*sliding, "box", slide, 0.3);
}

}  // namespace
}  // namespace ligature
