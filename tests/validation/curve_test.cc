// The sliding (curve) constraint: a bead on a straight inclined wire accelerates at
// g sin(angle) without friction and g (sin - mu cos) with it, and leaves the wire at a
// releasing end.

#include <gtest/gtest.h>

#include <numbers>

#include "tests/validation/test_scenes.h"

namespace ligature {
namespace {

constexpr double kAngle = 30.0 * std::numbers::pi / 180.0;

// A bead at the top of a 4 m wire going down at kAngle along +x.
std::unique_ptr<World> BeadOnWire(SolverKind solver, double mu, CurveEnd end) {
  SceneDesc scene;
  scene.settings.rate_hz = 500.0;
  scene.settings.solver.kind = solver;
  scene.settings.solver.max_iterations = 30;
  const Vec3 top(0, 3, 0);
  const Vec3 dir(std::cos(kAngle), -std::sin(kAngle), 0);
  scene.bodies.push_back(testing::MakeBody("bead", Shape::Sphere(0.02), top));
  ConstraintDesc wire;
  wire.id = "wire";
  wire.params.kind = JointKind::kCurve;
  wire.params.curve = {top - 0.1 * dir, top + 2.0 * dir, top + 4.0 * dir};
  wire.params.friction = mu;
  wire.params.curve_end = end;
  wire.body_b = "bead";
  scene.constraints.push_back(wire);
  return testing::MakeWorld(scene);
}

double AlongWire(const Vec3& v) {
  return v.dot(Vec3(std::cos(kAngle), -std::sin(kAngle), 0));
}

TEST(Curve, BeadSlidesWithTheAnalyticAcceleration) {
  for (SolverKind solver : {SolverKind::kGaussSeidel, SolverKind::kTunableLcp}) {
    for (double mu : {0.0, 0.2}) {
      auto world = BeadOnWire(solver, mu, CurveEnd::kStop);
      for (int i = 0; i < 50; ++i) world->Step();
      const double v0 = AlongWire(testing::VelocityOf(*world, "bead"));
      const double t0 = world->sim_time();
      for (int i = 0; i < 200; ++i) world->Step();
      const double a = (AlongWire(testing::VelocityOf(*world, "bead")) - v0) /
                       (world->sim_time() - t0);
      const double expected = 9.81 * (std::sin(kAngle) - mu * std::cos(kAngle));
      EXPECT_NEAR(a, expected, 0.02 * expected)
          << (solver == SolverKind::kGaussSeidel ? "gauss-seidel" : "tunable") << " mu " << mu;
      // And it stays on the wire: no velocity across it.
      const Vec3 v = testing::VelocityOf(*world, "bead");
      EXPECT_LT((v - AlongWire(v) * Vec3(std::cos(kAngle), -std::sin(kAngle), 0)).norm(), 1e-3);
    }
  }
}

TEST(Curve, StopEndHoldsAndReleaseEndLetsGo) {
  for (SolverKind solver : {SolverKind::kGaussSeidel, SolverKind::kTunableLcp}) {
    auto stopped = BeadOnWire(solver, 0.0, CurveEnd::kStop);
    auto released = BeadOnWire(solver, 0.0, CurveEnd::kRelease);
    bool reported = false;
    for (int i = 0; i < 1500; ++i) {
      stopped->Step();
      released->Step();
      for (const std::string& id : released->MakeFrame().removed_constraints) {
        reported |= id == "wire";
      }
    }
    const Vec3 end = Vec3(0, 3, 0) + 4.0 * Vec3(std::cos(kAngle), -std::sin(kAngle), 0);
    // The stopped bead rests at the end of the wire; the released one fell past it.
    EXPECT_LT((testing::PositionOf(*stopped, "bead") - end).norm(), 5e-3);
    EXPECT_TRUE(reported);
    EXPECT_FALSE(released->HasConstraint("wire"));
    EXPECT_LT(testing::PositionOf(*released, "bead").y(), end.y() - 1.0);
  }
}

}  // namespace
}  // namespace ligature
