// Pearls on a rod: StepPearlSpeed (slope acceleration, Coulomb stick/slip threshold, the
// load handed to the rod, implicit viscous friction) and MovePearls (advance by arc
// length, elastic collisions between neighbours, stopping at the rod's ends).

#include "server/model/rod/pearl.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <utility>
#include <vector>

#include "server/math/types.h"

namespace ligature {
namespace {

constexpr double kG = 9.81;

struct TestRod {
  RodModel model;
  RodState state;
};

// A straight rod of `length` from the origin along `dir`, at rest, its control points
// then scaled by `stretch` about the origin (|x'| = stretch).
TestRod Rod(const Vec3& dir, double length, double stretch = 1.0) {
  RodDesc d;
  d.id = "rod";
  d.points = {Vec3::Zero(), length * dir};
  d.control_points = 10;
  absl::StatusOr<RodModel> model = RodModel::Make(d);
  EXPECT_TRUE(model.ok());
  TestRod rod{*std::move(model), {}};
  rod.state = InitialRodState(rod.model, d.points);
  for (Vec3& x : rod.state.x) x *= stretch;
  return rod;
}

Pearl MakePearl(double u, double mass, double speed, double radius = 0.01) {
  Pearl p;
  p.desc.id = "pearl";
  p.desc.rod = "rod";
  p.desc.u = u;
  p.desc.mass = mass;
  p.desc.radius = radius;
  p.desc.speed = speed;
  p.u = u;
  p.speed = speed;
  return p;
}

Vec3 Slope(double angle) { return Vec3(std::cos(angle), std::sin(angle), 0.0); }
const Vec3 kGravity(0.0, -kG, 0.0);

// Without friction the speed along the slope changes by h g sin(angle) (downhill, that is
// towards smaller u), and the rod only carries the normal part of the weight.
TEST(PearlSpeedTest, FrictionlessSlopeAcceleration) {
  const double angle = 25.0 * std::numbers::pi / 180.0;
  const TestRod rod = Rod(Slope(angle), 2.0);
  for (const double v0 : {0.0, 0.7, -0.3}) {
    Pearl p = MakePearl(1.1, 0.02, v0);
    const double h = 0.01;
    const Vec3 force = p.desc.mass * kGravity;
    const Vec3 load = StepPearlSpeed(rod.model, rod.state, h, force, &p);
    EXPECT_NEAR(p.speed - v0, -h * kG * std::sin(angle), 1e-14) << v0;
    EXPECT_NEAR(load.dot(Slope(angle)), 0.0, 1e-15) << v0;
    const Vec3 normal = force - force.dot(Slope(angle)) * Slope(angle);
    EXPECT_LT((load - normal).norm(), 1e-15) << v0;
    EXPECT_EQ(p.u, 1.1);  // only MovePearls moves it
  }
}

// A stretched rod: the direction is x' / |x'|, the speed is still per metre of arc.
TEST(PearlSpeedTest, StretchedRodUsesUnitTangent) {
  const double angle = 40.0 * std::numbers::pi / 180.0;
  const TestRod rod = Rod(Slope(angle), 2.0, 1.3);
  Pearl p = MakePearl(0.5, 0.05, 0.0);
  StepPearlSpeed(rod.model, rod.state, 0.01, p.desc.mass * kGravity, &p);
  EXPECT_NEAR(p.speed, -0.01 * kG * std::sin(angle), 1e-14);
}

// Coulomb: the pearl sticks exactly when mu N h >= |m v0 + h F_t|.
TEST(PearlSpeedTest, CoulombStickSlipThreshold) {
  const double angle = 30.0 * std::numbers::pi / 180.0;
  const TestRod rod = Rod(Slope(angle), 2.0);
  const double m = 0.01, h = 0.01;
  const double ft = -m * kG * std::sin(angle);  // along +u
  const double n = m * kG * std::cos(angle);
  const Vec3 force = m * kGravity;
  // From rest: the threshold is mu = tan(angle).
  for (const double factor : {1.001, 0.999}) {
    const double mu = factor * std::tan(angle);
    Pearl p = MakePearl(1.0, m, 0.0);
    p.desc.friction = mu;
    const Vec3 load = StepPearlSpeed(rod.model, rod.state, h, force, &p);
    if (factor > 1.0) {
      EXPECT_EQ(p.speed, 0.0);
      // Sticking from rest, the whole weight goes to the rod.
      EXPECT_LT((load - force).norm(), 1e-16);
    } else {
      // Slides down at g (sin - mu cos): friction slows it by mu N h / m.
      const double expected = (h * ft + mu * n * h) / m;
      EXPECT_LT(p.speed, 0.0);
      EXPECT_NEAR(p.speed, expected, 1e-15);
      // The load is force - m a t: along the rod, the friction mu N dragging it downhill.
      const double a = p.speed / h;
      EXPECT_LT((load - (force - m * a * Slope(angle))).norm(), 1e-15);
      EXPECT_NEAR(load.dot(Slope(angle)), -mu * n, 1e-15);
    }
  }
  // Moving uphill at v0: it stops within the step when mu N h >= m v0 + h F_t.
  const double v0 = 0.5;
  const double threshold = (m * v0 + h * ft) / (n * h);
  for (const double factor : {1.001, 0.999}) {
    Pearl p = MakePearl(1.0, m, v0);
    p.desc.friction = factor * threshold;
    const Vec3 load = StepPearlSpeed(rod.model, rod.state, h, force, &p);
    if (factor > 1.0) {
      EXPECT_EQ(p.speed, 0.0);
      // Stopping it puts its momentum on the rod: load = force + m v0 / h t.
      EXPECT_LT((load - (force + m * v0 / h * Slope(angle))).norm(), 1e-13);
    } else {
      const double expected = v0 + (h * ft - factor * threshold * n * h) / m;
      EXPECT_GT(p.speed, 0.0);
      EXPECT_NEAR(p.speed, expected, 1e-14);
      EXPECT_LT((load - (force - m * (p.speed - v0) / h * Slope(angle))).norm(), 1e-12);
    }
  }
}

// Viscous friction is implicit: v = (m v0 + h F_t) / (m + h c), stable and without sign
// reversal even when h c / m is large (the explicit update would flip the speed).
TEST(PearlSpeedTest, ViscousFrictionIsImplicit) {
  const TestRod rod = Rod(Vec3::UnitX(), 2.0);  // horizontal: no force along it
  const double m = 0.01, h = 0.01, c = 10.0, v0 = 1.0;
  Pearl p = MakePearl(1.0, m, v0);
  p.desc.viscous = c;
  StepPearlSpeed(rod.model, rod.state, h, m * kGravity, &p);
  EXPECT_NEAR(p.speed, m * v0 / (m + h * c), 1e-15);
  EXPECT_GT(p.speed, 0.0);
  EXPECT_LT(p.speed, v0);

  // With a force along the rod the terminal speed is F_t / c: starting there, it stays.
  const double angle = 20.0 * std::numbers::pi / 180.0;
  const TestRod slope = Rod(Slope(angle), 2.0);
  const double terminal = -m * kG * std::sin(angle) / c;
  Pearl q = MakePearl(1.0, m, terminal);
  q.desc.viscous = c;
  StepPearlSpeed(slope.model, slope.state, h, m * kGravity, &q);
  EXPECT_NEAR(q.speed, terminal, 1e-15);
}

// A rod with no tangent (all control points together) leaves the pearl and the force.
TEST(PearlSpeedTest, DegenerateTangentPassesForceThrough) {
  TestRod rod = Rod(Vec3::UnitX(), 1.0);
  for (Vec3& x : rod.state.x) x = Vec3(0.2, 0.3, 0.4);
  Pearl p = MakePearl(0.5, 0.01, 0.25);
  const Vec3 force(1.0, -2.0, 3.0);
  EXPECT_EQ(StepPearlSpeed(rod.model, rod.state, 0.01, force, &p), force);
  EXPECT_EQ(p.speed, 0.25);
}

// u advances by the arc travelled over |x'|.
TEST(MovePearlsTest, AdvancesByArcLength) {
  const TestRod rod = Rod(Vec3::UnitX(), 2.0, 1.5);
  Pearl p = MakePearl(0.5, 0.01, 0.6);
  std::vector<Pearl*> pearls = {&p};
  MovePearls(rod.model, rod.state, 0.1, pearls);
  EXPECT_NEAR(p.u, 0.5 + 0.1 * 0.6 / 1.5, 1e-14);
  EXPECT_EQ(p.speed, 0.6);
}

// Equal masses meeting head on exchange their speeds and end up just touching.
TEST(MovePearlsTest, EqualMassesExchangeVelocities) {
  const TestRod rod = Rod(Vec3::UnitX(), 2.0);
  Pearl a = MakePearl(0.9, 0.02, 1.0);
  Pearl b = MakePearl(1.1, 0.02, -0.5);
  std::vector<Pearl*> pearls = {&b, &a};  // any order
  MovePearls(rod.model, rod.state, 0.13, pearls);
  EXPECT_EQ(pearls[0], &a);  // sorted along the rod
  EXPECT_NEAR(a.speed, -0.5, 1e-15);
  EXPECT_NEAR(b.speed, 1.0, 1e-15);
  EXPECT_NEAR(b.u - a.u, a.desc.radius + b.desc.radius, 1e-14);
  // Equal masses share the separation: they touch around the midpoint of where they got.
  const double mid = 0.5 * ((0.9 + 0.13 * 1.0) + (1.1 - 0.13 * 0.5));
  EXPECT_NEAR(0.5 * (a.u + b.u), mid, 1e-14);
}

// Unequal masses: momentum and kinetic energy are kept, no overlap remains, and the
// heavier pearl is displaced less.
TEST(MovePearlsTest, UnequalMassesKeepMomentum) {
  const TestRod rod = Rod(Vec3::UnitX(), 2.0);
  Pearl a = MakePearl(0.8, 0.05, 0.9, 0.02);
  Pearl b = MakePearl(0.86, 0.01, -0.4, 0.005);
  const double h = 0.04;
  const double momentum = 0.05 * 0.9 + 0.01 * -0.4;
  const double energy = 0.5 * 0.05 * 0.81 + 0.5 * 0.01 * 0.16;
  const double ua = 0.8 + h * 0.9, ub = 0.86 - h * 0.4;  // free positions, overlapping
  ASSERT_LT(ub - ua, a.desc.radius + b.desc.radius);
  std::vector<Pearl*> pearls = {&a, &b};
  MovePearls(rod.model, rod.state, h, pearls);
  EXPECT_NEAR(0.05 * a.speed + 0.01 * b.speed, momentum, 1e-15);
  EXPECT_NEAR(0.5 * 0.05 * a.speed * a.speed + 0.5 * 0.01 * b.speed * b.speed, energy, 1e-15);
  EXPECT_LT(a.speed, b.speed);  // separating
  EXPECT_NEAR(b.u - a.u, a.desc.radius + b.desc.radius, 1e-14);
  EXPECT_NEAR(std::abs(b.u - ub), 5.0 * std::abs(a.u - ua), 1e-14);  // mass ratio 5
}

// A row of touching pearls at rest hit by an equal one: the speed passes down the row to
// the last pearl (Newton's cradle), momentum and order kept.
TEST(MovePearlsTest, SpeedPassesDownATouchingRow) {
  const TestRod rod = Rod(Vec3::UnitX(), 2.0);
  Pearl hammer = MakePearl(0.98, 0.01, 1.0);
  Pearl p1 = MakePearl(1.02, 0.01, 0.0);
  Pearl p2 = MakePearl(1.04, 0.01, 0.0);
  std::vector<Pearl*> pearls = {&p2, &hammer, &p1};
  // The hammer advances 3 cm: 1 cm into the first pearl, short of its centre.
  MovePearls(rod.model, rod.state, 0.03, pearls);
  EXPECT_EQ(pearls[0], &hammer);
  EXPECT_EQ(pearls[1], &p1);
  EXPECT_EQ(pearls[2], &p2);
  EXPECT_NEAR(hammer.speed, 0.0, 1e-15);
  EXPECT_NEAR(p1.speed, 0.0, 1e-15);
  EXPECT_NEAR(p2.speed, 1.0, 1e-15);
}

// Pearls keep their order along the rod: two that would pass each other within one step
// collide instead.
// Pearls that would cross within one step collide instead (speeds exchanged, order kept).
TEST(MovePearlsTest, PearlsDoNotPassThroughEachOther) {
  const TestRod rod = Rod(Vec3::UnitX(), 2.0);
  Pearl a = MakePearl(0.9, 0.02, 1.0);
  Pearl b = MakePearl(1.1, 0.02, -1.0);
  std::vector<Pearl*> pearls = {&a, &b};
  MovePearls(rod.model, rod.state, 0.15, pearls);
  EXPECT_LT(a.u, b.u);
  EXPECT_GE(b.u - a.u, a.desc.radius + b.desc.radius - 1e-14);
  EXPECT_NEAR(a.speed, -1.0, 1e-15);
  EXPECT_NEAR(b.speed, 1.0, 1e-15);
}

// Overlapping pearls that already separate are pushed apart without a speed exchange.
TEST(MovePearlsTest, SeparatingOverlapKeepsSpeeds) {
  const TestRod rod = Rod(Vec3::UnitX(), 2.0);
  Pearl a = MakePearl(1.0, 0.01, -0.1);
  Pearl b = MakePearl(1.005, 0.01, 0.1);
  std::vector<Pearl*> pearls = {&a, &b};
  MovePearls(rod.model, rod.state, 0.001, pearls);
  EXPECT_EQ(a.speed, -0.1);
  EXPECT_EQ(b.speed, 0.1);
  EXPECT_NEAR(b.u - a.u, 0.02, 1e-14);
}

// A pearl that would run past an end stops there (its extent kept on the rod).
TEST(MovePearlsTest, StopsAtTheEnds) {
  const TestRod rod = Rod(Vec3::UnitX(), 2.0);
  Pearl high = MakePearl(1.95, 0.01, 2.0, 0.01);
  Pearl low = MakePearl(0.05, 0.01, -2.0, 0.01);
  std::vector<Pearl*> pearls = {&high, &low};
  MovePearls(rod.model, rod.state, 0.1, pearls);
  EXPECT_DOUBLE_EQ(high.u, 2.0 - 0.01);
  EXPECT_EQ(high.speed, 0.0);
  EXPECT_DOUBLE_EQ(low.u, 0.01);
  EXPECT_EQ(low.speed, 0.0);
  // Without extent it stops at the end itself.
  Pearl point = MakePearl(0.5, 0.01, -20.0, 0.0);
  std::vector<Pearl*> alone = {&point};
  MovePearls(rod.model, rod.state, 0.1, alone);
  EXPECT_EQ(point.u, 0.0);
  EXPECT_EQ(point.speed, 0.0);
}

// A fast pearl does not pass through a slower one in its way: it hits it and stops
// against it at the end, where both stop.
TEST(MovePearlsTest, FastPearlStopsAgainstTheOneAtTheEnd) {
  const TestRod rod = Rod(Vec3::UnitX(), 2.0);
  Pearl low = MakePearl(0.05, 0.01, -2.0, 0.01);
  Pearl point = MakePearl(0.5, 0.01, -20.0, 0.0);
  std::vector<Pearl*> pearls = {&low, &point};
  MovePearls(rod.model, rod.state, 0.1, pearls);
  EXPECT_DOUBLE_EQ(low.u, 0.01);
  EXPECT_DOUBLE_EQ(point.u, 0.02);
  EXPECT_EQ(point.speed, 0.0);
}

// Two pearls running into the same end stop there one after the other, not on top of
// each other.
TEST(MovePearlsTest, PearlsStoppedAtAnEndDoNotOverlap) {
  const TestRod rod = Rod(Vec3::UnitX(), 2.0);
  Pearl a = MakePearl(1.9, 0.01, 1.0, 0.01);
  Pearl b = MakePearl(1.95, 0.01, 1.0, 0.01);
  std::vector<Pearl*> pearls = {&a, &b};
  MovePearls(rod.model, rod.state, 0.1, pearls);
  EXPECT_DOUBLE_EQ(b.u, 2.0 - 0.01);
  EXPECT_GE(b.u - a.u, a.desc.radius + b.desc.radius - 1e-14);
}

}  // namespace
}  // namespace ligature
