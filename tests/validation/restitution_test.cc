// Poisson restitution (tunable solver's velocity pass): a ball dropped on a plane bounces
// back to epsilon^2 of its drop height.

#include <gtest/gtest.h>

#include "tests/validation/test_scenes.h"

namespace ligature {
namespace {

// Drops a ball from `height` (gap below it) and returns the apex of its first bounce.
double FirstBounceApex(double epsilon, double height) {
  SceneDesc scene;
  scene.settings.rate_hz = 1000.0;
  scene.settings.solver.kind = SolverKind::kTunableLcp;
  scene.settings.solver.max_iterations = 30;
  BodyDesc ground = testing::MakeBody("ground", Shape::Plane(), Vec3::Zero(), BodyKind::kStatic);
  ground.rigid()->material.restitution = epsilon;
  scene.bodies.push_back(ground);
  const double r = 0.05;
  BodyDesc ball = testing::MakeBody("ball", Shape::Sphere(r), Vec3(0, r + height, 0));
  ball.rigid()->material.restitution = epsilon;
  scene.bodies.push_back(ball);
  auto world = testing::MakeWorld(scene);
  bool bounced = false;
  double apex = 0.0;
  for (int i = 0; i < 5000; ++i) {
    world->Step();
    const double v = testing::VelocityOf(*world, "ball").y();
    const double y = testing::PositionOf(*world, "ball").y() - r;
    if (!bounced && v > 0.0) bounced = true;
    if (bounced) {
      apex = std::max(apex, y);
      if (v < 0.0) break;  // past the apex
    }
  }
  return apex;
}

TEST(Restitution, BounceHeightIsEpsilonSquaredOfDropHeight) {
  for (double epsilon : {0.5, 0.8}) {
    const double height = 1.0;
    const double apex = FirstBounceApex(epsilon, height);
    const double expected = epsilon * epsilon * height;
    EXPECT_NEAR(apex, expected, 0.02 * expected) << "epsilon " << epsilon;
  }
}

TEST(Restitution, ZeroRestitutionDoesNotBounce) {
  EXPECT_LT(FirstBounceApex(0.0, 1.0), 1e-3);
}

}  // namespace
}  // namespace ligature
