// A ball-joint pendulum swings with the physical pendulum's small-angle period
// T = 2 pi sqrt(I_pivot / (m g L)), whether its mass properties come from its shape or are
// given with its material.

#include <gtest/gtest.h>

#include <functional>
#include <numbers>
#include <vector>

#include "tests/validation/test_scenes.h"

namespace ligature {
namespace {

// Times upward zero crossings of x() (an x coordinate of the bob), interpolated within a
// tick.
double MeasurePeriod(World& world, int ticks, const std::function<double()>& x) {
  std::vector<double> crossings;
  double prev_x = x();
  double prev_t = world.sim_time();
  for (int i = 0; i < ticks; ++i) {
    world.Step();
    const double now_x = x();
    const double t = world.sim_time();
    if (prev_x < 0.0 && now_x >= 0.0) {
      crossings.push_back(prev_t + (t - prev_t) * -prev_x / (now_x - prev_x));
    }
    prev_x = now_x;
    prev_t = t;
  }
  if (crossings.size() < 2) return 0.0;
  return (crossings.back() - crossings.front()) / static_cast<double>(crossings.size() - 1);
}

// A ball-joint pendulum (a 5 cm sphere on a 1 m arm, released at 0.05 rad) stepped at
// `rate_hz` in `substeps`: its period over `ticks` and the physical pendulum's, and how far
// its joint opened at the end.
struct PendulumRun {
  double period = 0.0;
  double expected = 0.0;
  double joint_gap = 0.0;
};
PendulumRun SwingBallPendulum(double rate_hz, int substeps, int ticks) {
  const double length = 1.0, radius = 0.05, theta0 = 0.05;
  const Vec3 pivot(0.0, 2.0, 0.0);
  SceneDesc scene;
  scene.settings.rate_hz = rate_hz;
  scene.settings.solver.max_iterations = 50;
  scene.settings.solver.substeps = substeps;
  scene.bodies.push_back(testing::MakeBody(
      "bob", Shape::Sphere(radius),
      pivot + length * Vec3(std::sin(theta0), -std::cos(theta0), 0.0)));
  ConstraintDesc joint;
  joint.id = "joint";
  joint.params.kind = JointKind::kBall;
  joint.body_a = "bob";
  joint.frame_a.position = length * Vec3(-std::sin(theta0), std::cos(theta0), 0.0);
  joint.frame_b.position = pivot;
  scene.constraints.push_back(joint);
  auto world = testing::MakeWorld(scene);

  // A solid sphere of the default density, 1000 kg/m^3: m = rho 4/3 pi r^3, its inertia
  // about its centre 2/5 m r^2, and about the pivot m L^2 more.
  PendulumRun run;
  const double mass = 1000.0 * 4.0 / 3.0 * std::numbers::pi * radius * radius * radius;
  const double i_pivot = 2.0 / 5.0 * mass * radius * radius + mass * length * length;
  run.expected = 2.0 * std::numbers::pi * std::sqrt(i_pivot / (mass * 9.81 * length));
  run.period = MeasurePeriod(*world, ticks, [&] { return testing::PositionOf(*world, "bob").x(); });
  const Vec3 anchor = world->GetBody("bob")->rigid()->pose.Apply(joint.frame_a.position);
  run.joint_gap = (anchor - pivot).norm();
  return run;
}

// At 1 kHz the period is within 0.5 % and the joint holds: the bob stays at the pendulum
// length from the pivot.
TEST(Pendulum, SmallAnglePeriodWithinHalfPercent) {
  const PendulumRun run = SwingBallPendulum(1000.0, 1, 12000);
  EXPECT_NEAR(run.period, run.expected, 0.005 * run.expected) << "expected " << run.expected;
  EXPECT_LT(run.joint_gap, 1e-4);
}

// The same at 60 Hz in 4 substeps.
TEST(Pendulum, SmallAnglePeriodAt60HzInSubsteps) {
  const PendulumRun run = SwingBallPendulum(60.0, 4, 1200);
  EXPECT_NEAR(run.period, run.expected, 0.005 * run.expected) << "expected " << run.expected;
  EXPECT_LT(run.joint_gap, 1e-4);
}

// A body hung at its own origin whose shape (a small sphere there) would not swing at all:
// its given centre of mass, 0.5 m below the origin, and given inertia make it a physical
// pendulum, I_pivot = I_zz + m d^2.
TEST(Pendulum, GivenInertiaSetsThePeriod) {
  const double mass = 2.0, izz = 0.1, d = 0.5, theta0 = 0.05;
  const Vec3 pivot(0.0, 2.0, 0.0);
  SceneDesc scene;
  scene.settings.rate_hz = 1000.0;
  scene.settings.solver.max_iterations = 50;
  BodyDesc bob = testing::MakeBody("bob", Shape::Sphere(0.05), pivot);
  RigidBodyDesc& rigid = *bob.rigid();
  rigid.pose.orientation = Quat(Eigen::AngleAxisd(theta0, Vec3::UnitZ()));
  rigid.material.mass = mass;
  rigid.material.inertia = GivenInertia{Vec3(0.0, -d, 0.0), Vec3(0.1, 0.02, izz).asDiagonal()};
  scene.bodies.push_back(bob);
  ConstraintDesc joint;
  joint.id = "joint";
  joint.params.kind = JointKind::kBall;
  joint.body_a = "bob";
  joint.frame_b.position = pivot;
  scene.constraints.push_back(joint);
  auto world = testing::MakeWorld(scene);

  // The centre of mass's x.
  const double period = MeasurePeriod(*world, 12000, [&] {
    return world->GetBody("bob")->rigid()->pose.Apply(Vec3(0.0, -d, 0.0)).x();
  });
  const double expected =
      2.0 * std::numbers::pi * std::sqrt((izz + mass * d * d) / (mass * 9.81 * d));
  EXPECT_NEAR(period, expected, 0.005 * expected) << "expected " << expected;
}

}  // namespace
}  // namespace ligature
