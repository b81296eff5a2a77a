// Joints against analytic answers: a hinge pendulum's period, a hinge limit, and a long
// ball-jointed chain that keeps its joints together.

#include <gtest/gtest.h>

#include <numbers>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/model/rigid/mass_properties.h"
#include "tests/validation/test_scenes.h"

namespace ligature {
namespace {

// A slender box hanging from a hinge about world Z at `pivot`, tilted by theta0.
SceneDesc HingePendulum(SolverKind solver, double theta0, bool limited, double limit) {
  SceneDesc scene;
  scene.settings.rate_hz = 1000.0;
  scene.settings.solver.kind = solver;
  scene.settings.solver.max_iterations = 40;
  const Vec3 pivot(0, 2, 0);
  const double half = 0.5;
  const Quat tilt(Eigen::AngleAxisd(theta0, Vec3::UnitZ()));
  BodyDesc rod = testing::MakeBody("rod", Shape::Box(Vec3(0.02, half, 0.02)),
                                   pivot + tilt * Vec3(0, -half, 0));
  rod.rigid()->pose.orientation = tilt;
  scene.bodies.push_back(rod);
  ConstraintDesc hinge;
  hinge.id = "hinge";
  hinge.params.kind = JointKind::kHinge;
  hinge.params.limited = limited;
  hinge.params.lower = -limit;
  hinge.params.upper = limit;
  // Axis = the frames' X axis; turn X onto world Z.
  const Quat x_to_z(Eigen::AngleAxisd(-std::numbers::pi / 2, Vec3::UnitY()));
  hinge.body_a = "rod";
  hinge.frame_a = {Vec3(0, half, 0), tilt.conjugate() * x_to_z};
  hinge.frame_b = {pivot, x_to_z};
  scene.constraints.push_back(hinge);
  return scene;
}

double Angle(const World& w) {
  const Vec3 down = w.GetBody("rod")->rigid()->pose.orientation * Vec3(0, -1, 0);
  return std::atan2(down.x(), -down.y());
}

TEST(Joints, HingePendulumPeriodWithinHalfPercent) {
  for (SolverKind solver : {SolverKind::kGaussSeidel, SolverKind::kTunableLcp}) {
    auto world = testing::MakeWorld(HingePendulum(solver, 0.05, false, 0.0));
    const Shape rod = Shape::Box(Vec3(0.02, 0.5, 0.02));
    const MassProperties mp = ComputeMassProperties(rod, Material{});
    const double i_pivot = mp.inertia.z() + mp.mass * 0.25;
    const double expected =
        2.0 * std::numbers::pi * std::sqrt(i_pivot / (mp.mass * 9.81 * 0.5));
    std::vector<double> crossings;
    double prev = Angle(*world), prev_t = 0.0;
    for (int i = 0; i < 10000; ++i) {
      world->Step();
      const double a = Angle(*world), t = world->sim_time();
      if (prev < 0.0 && a >= 0.0) crossings.push_back(prev_t + (t - prev_t) * -prev / (a - prev));
      prev = a;
      prev_t = t;
    }
    ASSERT_GE(crossings.size(), 3u);
    const double period =
        (crossings.back() - crossings.front()) / static_cast<double>(crossings.size() - 1);
    EXPECT_NEAR(period, expected, 0.005 * expected)
        << (solver == SolverKind::kGaussSeidel ? "gauss-seidel" : "tunable");
  }
}

TEST(Joints, HingeLimitHolds) {
  for (SolverKind solver : {SolverKind::kGaussSeidel, SolverKind::kTunableLcp}) {
    // Released at 60 degrees with limits of +-20 degrees: it must stop at the limit.
    const double limit = 20.0 * std::numbers::pi / 180.0;
    SceneDesc scene = HingePendulum(solver, 0.0, true, limit);
    auto world = testing::MakeWorld(scene);
    // Give it a swing that would go far past the limit.
    BodyUpdate kick;
    kick.angular_velocity = Vec3(0, 0, 6.0);
    kick.linear_velocity = Vec3(3.0, 0, 0);  // omega x r at the rod centre
    ASSERT_TRUE(world->UpdateBody("rod", kick).ok());
    double max_angle = 0.0;
    for (int i = 0; i < 3000; ++i) {
      world->Step();
      max_angle = std::max(max_angle, std::abs(Angle(*world)));
    }
    EXPECT_LT(max_angle, limit + 0.02)
        << (solver == SolverKind::kGaussSeidel ? "gauss-seidel" : "tunable");
    EXPECT_GT(max_angle, limit - 0.02);  // it did reach the limit
  }
}

// A chain of 20 capsule links hanging from a fixed point, its end link pushed sideways so
// that the whole chain swings, keeps its joints within a millimetre for ten seconds at
// 60 Hz. Gauss-Seidel solves the joints together and exactly (direct blocks), so its
// default 20 sweeps do; the tunable solver iterates over them and needs on the order of a
// hundred iterations per tick to carry a long chain's weight from link to link.
TEST(Joints, ChainOfTwentyBallJointsKeepsItsJointsForTenSeconds) {
  for (SolverKind solver : {SolverKind::kGaussSeidel, SolverKind::kTunableLcp}) {
    SceneDesc scene;
    scene.settings.rate_hz = 60.0;
    scene.settings.solver.kind = solver;
    if (solver == SolverKind::kTunableLcp) scene.settings.solver.max_iterations = 100;
    const testing::HangingChain chain;
    chain.AddTo(&scene);
    scene.bodies.back().rigid()->linear_velocity = Vec3(0.5, 0.0, 0.3);
    auto world = testing::MakeWorld(scene);
    double worst = 0.0;
    double swing = 0.0;
    for (int step = 0; step < 600; ++step) {
      world->Step();
      for (double gap : chain.Gaps(*world)) worst = std::max(worst, gap);
      swing = std::max(swing, std::abs(testing::PositionOf(*world, "link19").x()));
    }
    const char* name = solver == SolverKind::kGaussSeidel ? "gauss-seidel" : "tunable";
    EXPECT_LT(worst, 1e-3) << name;
    EXPECT_GT(swing, 0.01) << name;  // it did swing
  }
}

}  // namespace
}  // namespace ligature
