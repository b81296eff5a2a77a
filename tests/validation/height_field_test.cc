// Bodies on height fields, in both solvers: a box on a grid of heights that rises at a
// constant slope holds below the friction angle and slides above it at g (sin - mu cos); a
// ball dropped over a hole falls through it while one dropped beside it rests on the
// surface.

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <numbers>

#include "server/model/rigid/height_field_builder.h"
#include "tests/validation/test_scenes.h"

namespace ligature {
namespace {

std::shared_ptr<const TriangleMesh> Build(HeightField grid) {
  auto mesh = BuildHeightField(std::move(grid));
  EXPECT_TRUE(mesh.ok()) << mesh.status();
  return mesh.ok() ? *mesh : nullptr;
}

class HeightFieldTest : public ::testing::TestWithParam<SolverKind> {
 protected:
  SceneDesc Scene(double rate_hz, int iterations) const {
    SceneDesc scene;
    scene.settings.rate_hz = rate_hz;
    scene.settings.solver.kind = GetParam();
    scene.settings.solver.max_iterations = iterations;
    return scene;
  }

  // A field 10 m along X and 2 m along Z whose heights rise as x tan(angle), with a box
  // set on it at x = 3.5 m, turned to the slope; both with friction `mu`.
  std::unique_ptr<World> Incline(double angle, double mu) const {
    HeightField grid;
    grid.rows = 9;
    grid.columns = 41;
    grid.spacing_x = 0.25;
    grid.spacing_z = 0.25;
    for (int r = 0; r < grid.rows; ++r) {
      for (int c = 0; c < grid.columns; ++c) {
        grid.heights.push_back((c - 20) * grid.spacing_x * std::tan(angle));
      }
    }
    SceneDesc scene = Scene(200.0, 50);
    BodyDesc field = testing::MakeBody("field", Shape::Mesh(Build(std::move(grid))), Vec3::Zero(),
                                       BodyKind::kStatic);
    field.rigid()->material.friction = mu;
    scene.bodies.push_back(field);
    const Quat tilt(Eigen::AngleAxisd(angle, Vec3::UnitZ()));
    const Vec3 half(0.2, 0.1, 0.2);
    const double x = 3.5;
    BodyDesc box = testing::MakeBody(
        "box", Shape::Box(half), Vec3(x, x * std::tan(angle), 0.1) + tilt * Vec3(0, half.y(), 0));
    box.rigid()->pose.orientation = tilt;
    box.rigid()->material.friction = mu;
    scene.bodies.push_back(box);
    return testing::MakeWorld(scene);
  }
};

TEST_P(HeightFieldTest, BoxHoldsBelowTheFrictionAngle) {
  auto world = Incline(25.0 * std::numbers::pi / 180.0, 0.6);  // tan = 0.466
  const Vec3 start = testing::PositionOf(*world, "box");
  for (int i = 0; i < 600; ++i) world->Step();
  EXPECT_LT((testing::PositionOf(*world, "box") - start).norm(), 1e-3);
}

// Over 2 s the box crosses some twenty seams and diagonals of the grid.
TEST_P(HeightFieldTest, BoxSlidesWithCoulombAcceleration) {
  const double angle = 30.0 * std::numbers::pi / 180.0, mu = 0.3;  // tan = 0.577
  auto world = Incline(angle, mu);
  testing::ExpectCoulombSlide(*world, "box", angle, mu);
}

// A level 4 x 4-cell field of 1 m cells with cell (1, 1) (x and z in [-1, 0]) a hole: the
// ball over the hole's centre falls through it, the one over cell (2, 2) rests on top.
TEST_P(HeightFieldTest, BallFallsThroughAHoleAndRestsBesideIt) {
  HeightField grid;
  grid.rows = 5;
  grid.columns = 5;
  grid.spacing_x = 1.0;
  grid.spacing_z = 1.0;
  grid.heights.assign(25, 0.0);
  grid.holes = {1 * 4 + 1};
  SceneDesc scene = Scene(60.0, 20);
  scene.bodies.push_back(testing::MakeBody("field", Shape::Mesh(Build(std::move(grid))),
                                           Vec3::Zero(), BodyKind::kStatic));
  const double r = 0.2;
  scene.bodies.push_back(testing::MakeBody("through", Shape::Sphere(r), Vec3(-0.5, 0.5, -0.5)));
  scene.bodies.push_back(testing::MakeBody("rests", Shape::Sphere(r), Vec3(0.5, 0.5, 0.5)));
  auto world = testing::MakeWorld(scene);
  for (int i = 0; i < 90; ++i) world->Step();
  // Free fall for 1.5 s from 0.5 m: far below the field.
  EXPECT_LT(testing::PositionOf(*world, "through").y(), -5.0);
  EXPECT_NEAR(testing::PositionOf(*world, "rests").y(), r, 2e-3);
  EXPECT_LT(testing::VelocityOf(*world, "rests").norm(), 1e-2);
}

INSTANTIATE_TEST_SUITE_P(BothSolvers, HeightFieldTest,
                         ::testing::Values(SolverKind::kGaussSeidel, SolverKind::kTunableLcp),
                         [](const auto& info) { return testing::SolverName(info.param); });

}  // namespace
}  // namespace ligature
