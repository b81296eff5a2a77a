// Rods against analytic answers: the hanging catenary, the cantilever (Euler-Bernoulli),
// a pearl sliding on a taut inclined rod, and exact constraints while they slide.

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "tests/validation/rod_scenes.h"

namespace ligature {
namespace {

using testing::kGravity;

// A thin, nearly inextensible rope: EA / (weight per length * length) ~ 5e5.
RodMaterial Rope() {
  RodMaterial m;
  m.radius = 0.0005;
  m.density = 1000.0;
  m.young = 1.0e9;
  m.shear = 4.0e8;
  m.damping = 4.0;
  return m;
}

TEST(RodCatenary, HangingRopeMatchesInextensibleCatenary) {
  RodWorld world;
  const double span = 1.8;
  // Laid as a V of the right length between the two anchors, then released.
  RodDesc rope;
  rope.id = "rope";
  rope.points = {Vec3(0, 0, 0), Vec3(0.9, -std::sqrt(1.0 - 0.81), 0), Vec3(span, 0, 0)};
  rope.control_points = 60;
  rope.material = Rope();
  ASSERT_TRUE(world.AddRod(rope).ok());
  const double length = world.FindRod("rope")->model.length();
  ASSERT_NEAR(length, 2.0, 1e-12);
  ASSERT_TRUE(world.AddConstraint(testing::Hold("left", "rope", 0.0, Vec3(0, 0, 0))).ok());
  ASSERT_TRUE(world.AddConstraint(testing::Hold("right", "rope", length, Vec3(span, 0, 0))).ok());
  for (int i = 0; i < 3000; ++i) world.Step(0.005, kGravity, nullptr);

  const double sag = -testing::RodPoint(world, "rope", 0.5 * length).y();
  const double expected = testing::CatenarySag(2.0, span);
  EXPECT_NEAR(expected, 0.381, 0.001);
  EXPECT_NEAR(sag, expected, 0.01 * span) << "sag " << sag << " catenary " << expected;
  const double stretch = testing::RodLength(world, "rope") / length - 1.0;
  EXPECT_LT(std::abs(stretch), 1e-3) << stretch;
  EXPECT_LT(world.last_stats().max_violation, 1e-9);
}

TEST(RodCantilever, TipDeflectionMatchesEulerBernoulli) {
  // Clamped at u = 0 (position and tangent held), a small load P at the free tip carried
  // by a pearl that sticks there: delta = P L^3 / (3 E I) + w L^4 / (8 E I).
  RodWorld world;
  RodMaterial steel;
  steel.radius = 0.002;
  steel.density = 100.0;  // light, so the tip load dominates
  steel.young = 2.0e11;
  steel.shear = 8.0e10;
  steel.damping = 20.0;
  const double length = 0.5;
  ASSERT_TRUE(world.AddRod(testing::StraightRod("beam", Vec3::Zero(), Vec3(length, 0, 0), 24,
                                                steel)).ok());
  ASSERT_TRUE(world.AddConstraint(testing::Hold("clamp", "beam", 0.0, Vec3::Zero())).ok());
  RodConstraintDesc tangent;
  tangent.id = "clamp-tangent";
  tangent.kind = RodConstraintKind::kOrientation;
  tangent.a = {"beam", 0.0};
  tangent.direction = Vec3::UnitX();
  ASSERT_TRUE(world.AddConstraint(tangent).ok());
  PearlDesc load;
  load.id = "load";
  load.rod = "beam";
  load.u = length;
  load.mass = 0.05;
  load.radius = 0.0;
  load.friction = 100.0;
  ASSERT_TRUE(world.AddPearl(load).ok());
  for (int i = 0; i < 4000; ++i) world.Step(0.002, kGravity, nullptr);

  const RodWorld::Rod* beam = world.FindRod("beam");
  const double ei = steel.young * beam->model.bend_inertia();
  const double p = load.mass * 9.81;
  const double w = steel.density * beam->model.area() * 9.81;
  const double expected = p * std::pow(length, 3) / (3 * ei) + w * std::pow(length, 4) / (8 * ei);
  const double tip = -testing::RodPoint(world, "beam", length).y();
  EXPECT_NEAR(tip, expected, 0.02 * expected) << "tip " << tip << " analytic " << expected;
  EXPECT_NEAR(world.pearls()[0].u, length, 1e-12);
}

// A taut straight rod inclined by `angle` (2 m, pinned at both ends 0.5% further apart so
// that the tension, about 3 kN, keeps its sag under the pearl negligible), with a pearl.
RodWorld InclinedRodWithPearl(double angle, double friction) {
  RodWorld world;
  RodMaterial wire;
  wire.radius = 0.001;
  wire.young = 2.0e11;
  wire.damping = 1.0;
  const Vec3 dir(std::cos(angle), std::sin(angle), 0.0);
  EXPECT_TRUE(world.AddRod(testing::StraightRod("wire", Vec3::Zero(), 2.0 * dir, 40, wire)).ok());
  EXPECT_TRUE(world.AddConstraint(testing::Hold("low", "wire", 0.0, Vec3::Zero())).ok());
  EXPECT_TRUE(world.AddConstraint(testing::Hold("high", "wire", 2.0, 2.01 * dir)).ok());
  PearlDesc pearl;
  pearl.id = "pearl";
  pearl.rod = "wire";
  pearl.u = 1.5;
  pearl.mass = 0.001;
  pearl.friction = friction;
  EXPECT_TRUE(world.AddPearl(pearl).ok());
  return world;
}

TEST(RodPearl, SlidesDownAtGSinAngleWithoutFriction) {
  const double angle = 30.0 * std::numbers::pi / 180.0;
  RodWorld world = InclinedRodWithPearl(angle, 0.0);
  const double h = 0.001;
  for (int i = 0; i < 300; ++i) world.Step(h, kGravity, nullptr);
  const double t = 0.3;
  const double a = 9.81 * std::sin(angle);
  // Backward Euler on the speed: v_n = -a n h exactly, u_n = u_0 - a h^2 n (n + 1) / 2.
  EXPECT_NEAR(world.pearls()[0].speed, -a * t, 1e-3 * a * t);
  // The distance travelled along the (slightly stretched) wire.
  const double travelled = (testing::RodPoint(world, "wire", 1.5) -
                            testing::RodPoint(world, "wire", world.pearls()[0].u)).norm();
  EXPECT_NEAR(travelled, 0.5 * a * t * (t + h), 2e-3 * 0.5 * a * t * t);
}

TEST(RodPearl, StaysWhenFrictionExceedsTheSlope) {
  const double angle = 30.0 * std::numbers::pi / 180.0;
  RodWorld held = InclinedRodWithPearl(angle, 1.05 * std::tan(angle));
  RodWorld slips = InclinedRodWithPearl(angle, 0.95 * std::tan(angle));
  for (int i = 0; i < 300; ++i) {
    held.Step(0.001, kGravity, nullptr);
    slips.Step(0.001, kGravity, nullptr);
  }
  EXPECT_EQ(held.pearls()[0].u, 1.5);
  // Below the threshold it slides at g (sin - mu cos).
  const double a = 9.81 * (std::sin(angle) - 0.95 * std::tan(angle) * std::cos(angle));
  EXPECT_NEAR(slips.pearls()[0].speed, -a * 0.3, 0.01 * a * 0.3);
}

}  // namespace
}  // namespace ligature
