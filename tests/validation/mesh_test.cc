// Bodies on triangle meshes, in both solvers: a sphere rolling and a box sliding across a
// flat floor of many triangles feel no seam (vertical speed never above 1 mm/s), the box
// stops where Coulomb friction puts it (v^2 / (2 mu g)), and a box rests on a bumpy
// terrain; a soft cube resting across the floor's seams carries its weight.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "server/constraint/contact_rows.h"
#include "tests/support/grid_mesh.h"
#include "tests/validation/test_scenes.h"

namespace ligature {
namespace {

constexpr double kG = 9.81;

class MeshTest : public ::testing::TestWithParam<SolverKind> {
 protected:
  // A static floor of 24 x 24 cells of 0.5 m (1,152 triangles) on y = 0, at 60 Hz.
  SceneDesc FloorScene(double friction) const {
    SceneDesc scene;
    scene.settings.rate_hz = 60.0;
    scene.settings.solver.kind = GetParam();
    scene.settings.solver.max_iterations = 20;
    BodyDesc floor = testing::MakeBody("floor", Shape::Mesh(testing::GridMesh(24, 0.5)),
                                       Vec3::Zero(), BodyKind::kStatic);
    floor.rigid()->material.friction = friction;
    scene.bodies.push_back(floor);
    return scene;
  }
};

// A ball rolling at 3.2 m/s crosses some 20 seams and as many diagonals in 3 s.
TEST_P(MeshTest, RollingBallFeelsNoSeams) {
  SceneDesc scene = FloorScene(0.5);
  const double r = 0.2;
  const Vec3 v(3.0, 0.0, 1.1);
  BodyDesc ball = testing::MakeBody("ball", Shape::Sphere(r), Vec3(-5.0, r, -2.0));
  ball.rigid()->linear_velocity = v;
  ball.rigid()->angular_velocity = Vec3::UnitY().cross(v) / r;  // rolling, no slip
  ball.rigid()->material.friction = 0.5;
  scene.bodies.push_back(ball);
  auto world = testing::MakeWorld(scene);
  double fastest_vertical = 0.0;
  for (int i = 0; i < 180; ++i) {
    world->Step();
    fastest_vertical =
        std::max(fastest_vertical, std::abs(testing::VelocityOf(*world, "ball").y()));
  }
  EXPECT_LT(fastest_vertical, 1e-3);  // m/s
  // It rolled the whole way (3 s at 3.2 m/s), on the floor.
  const Vec3 at = testing::PositionOf(*world, "ball");
  EXPECT_GT(at.x(), 3.5);
  EXPECT_NEAR(at.y(), r, 2e-3);
}

// A box sliding at 4 m/s (friction 0.2) crosses seams without a bump and stops after
// v^2 / (2 mu g) = 4.08 m.
TEST_P(MeshTest, SlidingBoxFeelsNoSeamsAndStopsWhereFrictionSays) {
  const double mu = 0.2, v0 = 4.0;
  SceneDesc scene = FloorScene(mu);
  const Vec3 half(0.2, 0.1, 0.15);
  BodyDesc box = testing::MakeBody("box", Shape::Box(half), Vec3(-4.5, half.y(), 0.3));
  box.rigid()->linear_velocity = Vec3(v0, 0.0, 0.0);
  box.rigid()->material.friction = mu;
  scene.bodies.push_back(box);
  auto world = testing::MakeWorld(scene);
  double fastest_vertical = 0.0;
  for (int i = 0; i < 240; ++i) {
    world->Step();
    fastest_vertical = std::max(fastest_vertical, std::abs(testing::VelocityOf(*world, "box").y()));
  }
  EXPECT_LT(fastest_vertical, 1e-3);  // m/s
  EXPECT_LT(testing::VelocityOf(*world, "box").norm(), 1e-3);
  const double slid = testing::PositionOf(*world, "box").x() + 4.5;
  EXPECT_NEAR(slid, v0 * v0 / (2.0 * mu * kG), 0.03 * v0 * v0 / (2.0 * mu * kG));
  EXPECT_NEAR(testing::PositionOf(*world, "box").y(), half.y(), 2e-3);
}

// A box set down on a rolling terrain (slopes below the friction angle) stays put.
TEST_P(MeshTest, BoxRestsOnTerrain) {
  SceneDesc scene;
  scene.settings.rate_hz = 60.0;
  scene.settings.solver.kind = GetParam();
  scene.settings.solver.max_iterations = 20;
  const auto height = [](double x, double z) { return 0.1 * std::sin(x) * std::cos(0.7 * z); };
  BodyDesc terrain = testing::MakeBody("terrain", Shape::Mesh(testing::GridMesh(20, 0.4, height)),
                                       Vec3::Zero(), BodyKind::kStatic);
  scene.bodies.push_back(terrain);
  // On the crest at x = pi/2, z = 0, where the terrain is level.
  const Vec3 half(0.15, 0.1, 0.15);
  const double top = height(std::numbers::pi / 2, 0.0);
  scene.bodies.push_back(
      testing::MakeBody("box", Shape::Box(half), Vec3(std::numbers::pi / 2, 0.2, 0.0)));
  auto world = testing::MakeWorld(scene);
  for (int i = 0; i < 120; ++i) world->Step();
  const Vec3 settled = testing::PositionOf(*world, "box");
  EXPECT_GT(settled.y(), top + half.y() - 0.02);
  for (int i = 0; i < 180; ++i) world->Step();
  EXPECT_LT((testing::PositionOf(*world, "box") - settled).norm(), 2e-3);
  EXPECT_LT(testing::VelocityOf(*world, "box").norm(), 1e-2);
}

// An FEM cube set on a seam and a corner of the floor: the floor carries its weight (the
// contacts' vertical impulse per step is m g dt within 0.5 %), and it rests on the surface.
TEST(MeshSoftContact, SoftCubeRestsAcrossSeams) {
  SceneDesc scene;
  scene.settings.rate_hz = 100.0;
  scene.bodies.push_back(testing::MakeBody("floor", Shape::Mesh(testing::GridMesh(4, 0.5)),
                                           Vec3::Zero(), BodyKind::kStatic));
  scene.bodies.push_back(testing::SoftFemBox("cube", Vec3::Constant(0.05), Vec3(0.5, 0.051, 0.0),
                                             {2, 2, 2}, SoftModelKind::kCorotational, 2e5, 5.0));
  auto world = testing::MakeWorld(scene);
  const double weight = testing::SoftMass(*world, "cube") * kG * scene.settings.dt();
  double sum = 0.0;
  constexpr int kSettle = 200, kMeasure = 100;
  for (int i = 0; i < kSettle + kMeasure; ++i) {
    world->Step();
    if (i >= kSettle) sum += testing::VerticalImpulse(*world, "cube", "floor");
  }
  EXPECT_NEAR(sum / kMeasure, weight, 0.005 * weight);
  double lowest = 1e9;
  for (const Vec3& p : world->soft_bodies().FindBody("cube")->positions()) {
    lowest = std::min(lowest, p.y());
  }
  EXPECT_NEAR(lowest, 0.0, kPenetrationSlop);
}

INSTANTIATE_TEST_SUITE_P(BothSolvers, MeshTest,
                         ::testing::Values(SolverKind::kGaussSeidel, SolverKind::kTunableLcp),
                         [](const auto& info) { return testing::SolverName(info.param); });

}  // namespace
}  // namespace ligature
