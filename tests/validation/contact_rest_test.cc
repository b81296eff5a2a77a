// Bodies at rest on the ground stay at rest.

#include <gtest/gtest.h>

#include <numbers>

#include "server/constraint/contact_rows.h"
#include "tests/validation/test_scenes.h"

namespace ligature {
namespace {

SceneDesc GroundScene(double rate_hz) {
  SceneDesc scene;
  scene.settings.rate_hz = rate_hz;
  scene.bodies.push_back(
      testing::MakeBody("ground", Shape::Plane(), Vec3::Zero(), BodyKind::kStatic));
  return scene;
}

TEST(ContactRest, BoxOnPlaneDriftsLessThanOneMillimetreInTenSeconds) {
  SceneDesc scene = GroundScene(60.0);
  const Vec3 start(0.3, 0.25, -0.2);
  scene.bodies.push_back(testing::MakeBody("box", Shape::Box(Vec3(0.4, 0.25, 0.3)), start));
  auto world = testing::MakeWorld(scene);
  for (int i = 0; i < 600; ++i) {
    world->Step();
    ASSERT_LT((testing::PositionOf(*world, "box") - start).norm(), 1e-3) << "tick " << i;
  }
  const Quat q = world->GetBody("box")->rigid()->pose.orientation;
  EXPECT_LT(q.angularDistance(Quat::Identity()), 1e-3);
}

// Gauss-Seidel needs more sweeps as a stack grows taller: five boxes converge with 50.
TEST(ContactRest, StackOfBoxesStaysStacked) {
  SceneDesc scene = GroundScene(60.0);
  scene.settings.solver.max_iterations = 50;
  for (int i = 0; i < 5; ++i) {
    scene.bodies.push_back(testing::MakeBody("box" + std::to_string(i),
                                             Shape::Box(Vec3(0.2, 0.2, 0.2)),
                                             Vec3(0.0, 0.2 + 0.4 * i, 0.0)));
  }
  auto world = testing::MakeWorld(scene);
  for (int i = 0; i < 600; ++i) world->Step();
  for (int i = 0; i < 5; ++i) {
    const Vec3 p = testing::PositionOf(*world, "box" + std::to_string(i));
    EXPECT_NEAR(p.y(), 0.2 + 0.4 * i, 5e-3) << "box " << i;
    EXPECT_NEAR(p.x(), 0.0, 5e-3);
  }
}

TEST(ContactRest, SphereDroppedOnBoxComesToRestOnTop) {
  SceneDesc scene = GroundScene(120.0);
  scene.bodies.push_back(testing::MakeBody("table", Shape::Box(Vec3(1, 0.5, 1)), Vec3(0, 0.5, 0),
                                           BodyKind::kStatic));
  scene.bodies.push_back(testing::MakeBody("ball", Shape::Sphere(0.1), Vec3(0.2, 2.0, 0.1)));
  auto world = testing::MakeWorld(scene);
  for (int i = 0; i < 600; ++i) world->Step();
  EXPECT_NEAR(testing::PositionOf(*world, "ball").y(), 1.1, 2e-3);
  EXPECT_LT(testing::VelocityOf(*world, "ball").norm(), 1e-2);
}

// A column of twelve spheres at rest under the tunable solver with the paper's ten
// iterations (three of them for positions): every tick the free motion sinks the column
// into the floor by g h^2 (1 mm at 100 Hz), and the position pass must lift all twelve
// spheres out again. The column keeps its height (the top sphere within 2 mm of where the
// column stacks with every contact at the penetration slop) and its contacts stay shallow.
TEST(ContactRest, TunableColumnOfSpheresKeepsItsHeight) {
  SceneDesc scene = GroundScene(100.0);
  scene.settings.solver.kind = SolverKind::kTunableLcp;
  scene.settings.solver.max_iterations = 10;
  scene.settings.solver.tolerance = 0.0;
  constexpr int kSpheres = 12;
  constexpr double kRadius = 0.1;
  for (int i = 0; i < kSpheres; ++i) {
    scene.bodies.push_back(testing::MakeBody("s" + std::to_string(i), Shape::Sphere(kRadius),
                                             Vec3(0.0, kRadius + 2.0 * kRadius * i, 0.0)));
  }
  auto world = testing::MakeWorld(scene);
  double deepest = 0.0;
  for (int t = 0; t < 300; ++t) {
    world->Step();
    if (t >= 100) deepest = std::max(deepest, world->last_stats().max_penetration);
  }
  EXPECT_LT(deepest, 2e-3);  // m
  const Vec3 top = testing::PositionOf(*world, "s" + std::to_string(kSpheres - 1));
  // Each of the twelve contacts keeps the penetration slop.
  const double stacked = kRadius + 2.0 * kRadius * (kSpheres - 1) - kSpheres * kPenetrationSlop;
  EXPECT_NEAR(top.y(), stacked, 2e-3);
}

// A cup of boxes (a thin base and eight walls, one compound) dropped flat under the tunable
// solver: its base and the walls' speculative contacts give 36 rows on one body of six
// degrees of freedom, so the position pass's W is singular. The cup lands and rests at the
// penetration slop, without a step along W's null space throwing it away.
TEST(ContactRest, TunableCompoundWithRedundantContactsLands) {
  SceneDesc scene = GroundScene(120.0);
  scene.settings.solver.kind = SolverKind::kTunableLcp;
  scene.settings.solver.max_iterations = 30;
  constexpr double kRadius = 0.05, kHeight = 0.1, kBase = 0.004;
  RigidBodyDesc cup;
  cup.children.push_back({Shape::Box(Vec3(kRadius, kBase, kRadius)), Transform{}});
  for (int k = 0; k < 8; ++k) {
    Transform at;
    at.orientation = Quat(Eigen::AngleAxisd(2.0 * std::numbers::pi * k / 8.0, Vec3::UnitY()));
    at.position = at.orientation * Vec3(kRadius, kHeight / 2.0, 0.0);
    cup.children.push_back({Shape::Box(Vec3(0.006, kHeight / 2.0, 0.022)), at});
  }
  cup.material.density = 800.0;
  cup.pose.position = Vec3(0.0, 0.06, 0.0);
  BodyDesc body;
  body.id = "cup";
  body.body = cup;
  scene.bodies.push_back(body);
  auto world = testing::MakeWorld(scene);
  for (int t = 0; t < 120; ++t) world->Step();
  EXPECT_NEAR(testing::PositionOf(*world, "cup").y(), kBase - kPenetrationSlop, 1e-4);
  EXPECT_LT(testing::VelocityOf(*world, "cup").norm(), 1e-3);
}

// A tunable world whose budget is far too small for any solve: the velocity pass still
// takes its one step. A ball dropped on the ground lands and rests on it, at its radius
// (less the penetration slop).
TEST(ContactRest, TunableBallLandsUnderASpentBudget) {
  SceneDesc scene = GroundScene(100.0);
  scene.settings.solver.kind = SolverKind::kTunableLcp;
  scene.settings.solver.time_budget_us = 0.001;
  constexpr double kRadius = 0.1;
  scene.bodies.push_back(
      testing::MakeBody("ball", Shape::Sphere(kRadius), Vec3(0.0, 0.5, 0.0)));
  auto world = testing::MakeWorld(scene);
  int exhausted = 0;  // over the last 100 ticks, with the ball on the ground
  for (int t = 0; t < 300; ++t) {
    world->Step();
    if (t >= 200) exhausted += world->last_stats().budget_exhausted ? 1 : 0;
  }
  EXPECT_EQ(exhausted, 100);
  EXPECT_NEAR(testing::PositionOf(*world, "ball").y(), kRadius, 2e-3);
  EXPECT_LT(testing::VelocityOf(*world, "ball").norm(), 1e-2);
}

}  // namespace
}  // namespace ligature
