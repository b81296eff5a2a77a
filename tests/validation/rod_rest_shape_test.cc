// Rods with a curved rest shape: a helix (with rest twist) holds its shape without loads,
// turned as a whole it stays as it is (the rest curvature turns with it); an arc pulled
// aside in its plane and let go comes back; a quarter-circle cantilever under a small tip
// load deflects as the curved-beam answer (unit-load method, Castigliano) says.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>
#include <vector>

#include "tests/validation/rod_scenes.h"

namespace ligature {
namespace {

using testing::kGravity;

RodMaterial Wire() {
  RodMaterial m;
  m.radius = 0.002;
  m.density = 1000.0;
  m.young = 1.0e9;
  m.shear = 4.0e8;
  m.damping = 5.0;
  return m;
}

// A helix of radius a and pitch p per turn about z, `turns` turns, as a fine polyline.
std::vector<Vec3> Helix(double a, double pitch, double turns, const Mat3& turn = Mat3::Identity(),
                        const Vec3& shift = Vec3::Zero()) {
  std::vector<Vec3> points;
  const int n = static_cast<int>(400 * turns);
  for (int i = 0; i <= n; ++i) {
    const double phi = 2.0 * std::numbers::pi * turns * i / n;
    points.push_back(shift + turn * Vec3(a * std::cos(phi), a * std::sin(phi),
                                         pitch * phi / (2.0 * std::numbers::pi)));
  }
  return points;
}

RodDesc HelixRod(const std::vector<Vec3>& points, const std::vector<Vec3>& rest) {
  RodDesc d;
  d.id = "helix";
  d.points = points;
  d.rest_points = rest;
  d.rest_twist = 2.0;
  d.control_points = 60;
  d.material = Wire();
  return d;
}

double LargestMove(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
  double worst = 0.0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, (a[i] - b[i]).norm());
  return worst;
}

TEST(RodRestShape, HelixAtRestStaysPutWithoutGravity) {
  RodWorld world;
  const std::vector<Vec3> helix = Helix(0.05, 0.04, 2.0);
  ASSERT_TRUE(world.AddRod(HelixRod(helix, helix)).ok());
  const std::vector<Vec3> start = world.FindRod("helix")->state.x;
  const std::vector<double> twist = world.FindRod("helix")->state.theta;
  for (int i = 0; i < 1000; ++i) world.Step(0.002, Vec3::Zero(), nullptr);
  const RodWorld::Rod* rod = world.FindRod("helix");
  EXPECT_LT(LargestMove(rod->state.x, start), 1e-9);
  // The twist keeps its shape; a uniform spin of a free rod is a rigid motion that only
  // round-off drives (a few 1e-8 rad here), so it is measured against the first point.
  for (size_t i = 0; i < twist.size(); ++i) {
    EXPECT_NEAR(rod->state.theta[i] - rod->state.theta[0], twist[i] - twist[0], 1e-9);
  }
  EXPECT_LT(std::abs(rod->state.theta[0] - twist[0]), 1e-6);
}

// Laid turned by 60 degrees about an oblique axis from its rest shape: the energy is
// unchanged by a rigid turn, so it does not move (against the rest shape's own frame it
// would spring back, taking momentum from nowhere).
TEST(RodRestShape, TurnedHelixStaysTurned) {
  RodWorld world;
  const Mat3 turn = Eigen::AngleAxisd(std::numbers::pi / 3.0, Vec3(1, 1, 0).normalized())
                        .toRotationMatrix();
  const std::vector<Vec3> rest = Helix(0.05, 0.04, 2.0);
  ASSERT_TRUE(world.AddRod(HelixRod(Helix(0.05, 0.04, 2.0, turn, Vec3(0.3, 0, 0)), rest)).ok());
  const std::vector<Vec3> start = world.FindRod("helix")->state.x;
  for (int i = 0; i < 500; ++i) world.Step(0.002, Vec3::Zero(), nullptr);
  EXPECT_LT(LargestMove(world.FindRod("helix")->state.x, start), 1e-6);
}

// A quarter circle clamped at its foot, its tip pulled 2 mm in its plane for 0.2 s and let
// go: it comes back to its rest shape.
TEST(RodRestShape, PulledArcReturnsToItsShape) {
  RodWorld world;
  std::vector<Vec3> arc;
  for (int i = 0; i <= 400; ++i) {
    const double phi = 0.5 * std::numbers::pi * i / 400;
    arc.push_back(Vec3(0.3 * std::cos(phi), 0.3 * std::sin(phi), 0.0));
  }
  RodDesc d;
  d.id = "arc";
  d.points = arc;
  d.rest_points = arc;
  d.control_points = 40;
  d.material = Wire();
  ASSERT_TRUE(world.AddRod(d).ok());
  const RodWorld::Rod* rod = world.FindRod("arc");
  const double length = rod->model.length();
  ASSERT_TRUE(world.AddConstraint(testing::Hold("foot", "arc", 0.0, arc.front())).ok());
  RodConstraintDesc tangent;
  tangent.id = "foot-tangent";
  tangent.kind = RodConstraintKind::kOrientation;
  tangent.a = {"arc", 0.0};
  tangent.direction = testing::RodSlope(world, "arc", 0.0).normalized();
  ASSERT_TRUE(world.AddConstraint(tangent).ok());
  const std::vector<Vec3> start = rod->state.x;
  const Vec3 tip = testing::RodPoint(world, "arc", length);
  ASSERT_TRUE(
      world.AddConstraint(testing::Hold("pull", "arc", length, tip + Vec3(0.002, 0, 0))).ok());
  for (int i = 0; i < 100; ++i) world.Step(0.002, Vec3::Zero(), nullptr);
  EXPECT_GT(LargestMove(world.FindRod("arc")->state.x, start), 0.001);
  ASSERT_TRUE(world.RemoveConstraint("pull").ok());
  for (int i = 0; i < 3000; ++i) world.Step(0.002, Vec3::Zero(), nullptr);
  EXPECT_LT(LargestMove(world.FindRod("arc")->state.x, start), 1e-5);
}

// A quarter circle of radius R in the vertical plane, clamped at its foot (R, 0) with its
// tangent up, its tip at (0, R); a small weight at the tip (a pearl stuck there) and the
// rod's own light weight. The tip's drop by the unit-load method, delta =
// int M m ds / EI with m = R cos(phi) (a unit downward tip load's moment at angle phi) and
// M = P R cos(phi) + w R^2 ((pi/2 - phi) cos(phi) - (1 - sin(phi))) (the tip load's and
// the weight of the arc beyond phi's).
TEST(RodRestShape, QuarterCircleCantileverMatchesCastigliano) {
  RodWorld world;
  const double radius = 0.3;
  std::vector<Vec3> arc;
  for (int i = 0; i <= 400; ++i) {
    const double phi = 0.5 * std::numbers::pi * i / 400;
    arc.push_back(Vec3(radius * std::cos(phi), radius * std::sin(phi), 0.0));
  }
  RodMaterial steel;
  steel.radius = 0.002;
  steel.density = 100.0;
  steel.young = 2.0e11;
  steel.shear = 8.0e10;
  steel.damping = 20.0;
  RodDesc beam;
  beam.id = "beam";
  beam.points = arc;
  beam.rest_points = arc;
  beam.control_points = 40;
  beam.material = steel;
  ASSERT_TRUE(world.AddRod(beam).ok());
  const RodWorld::Rod* rod = world.FindRod("beam");
  const double length = rod->model.length();
  ASSERT_NEAR(length, 0.5 * std::numbers::pi * radius, 1e-5);
  const Vec3 tip0 = testing::RodPoint(world, "beam", length);
  ASSERT_TRUE(world.AddConstraint(testing::Hold("clamp", "beam", 0.0, arc.front())).ok());
  RodConstraintDesc tangent;
  tangent.id = "clamp-tangent";
  tangent.kind = RodConstraintKind::kOrientation;
  tangent.a = {"beam", 0.0};
  // The spline's own tangent there (the polyline's first chord, within 0.01 rad of y).
  tangent.direction = testing::RodSlope(world, "beam", 0.0).normalized();
  ASSERT_TRUE(world.AddConstraint(tangent).ok());
  PearlDesc load;
  load.id = "load";
  load.rod = "beam";
  load.u = length;
  load.mass = 0.02;
  load.radius = 0.0;
  load.friction = 100.0;
  ASSERT_TRUE(world.AddPearl(load).ok());
  for (int i = 0; i < 4000; ++i) world.Step(0.002, kGravity, nullptr);

  const double ei = steel.young * rod->model.bend_inertia();
  const double p = load.mass * 9.81;
  const double w = steel.density * rod->model.area() * 9.81;
  double expected = 0.0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const double phi = 0.5 * std::numbers::pi * (i + 0.5) / n;
    const double m_unit = radius * std::cos(phi);
    const double m = p * radius * std::cos(phi) +
                     w * radius * radius *
                         ((0.5 * std::numbers::pi - phi) * std::cos(phi) - (1.0 - std::sin(phi)));
    expected += m * m_unit * radius * (0.5 * std::numbers::pi / n) / ei;
  }
  const double drop = tip0.y() - testing::RodPoint(world, "beam", length).y();
  EXPECT_NEAR(drop, expected, 0.03 * expected) << "drop " << drop << " analytic " << expected;
  EXPECT_LT(world.last_stats().max_violation, 1e-9);
}

}  // namespace
}  // namespace ligature
