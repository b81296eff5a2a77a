// Rods against rods: a rope dropped across a taut rope comes to rest on it without passing
// through and without gaining energy; two free rods laid overlapping in zero gravity push
// apart with equal and opposite momentum; a rope without rod contact still falls through.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "server/model/rod/rod_dynamics.h"
#include "tests/validation/rod_scenes.h"

namespace ligature {
namespace {

using testing::kGravity;

RodMaterial Cord() {
  RodMaterial m;
  m.radius = 0.001;
  m.density = 1000.0;
  m.young = 1.0e9;
  m.shear = 4.0e8;
  m.damping = 5.0;
  return m;
}

RodDesc Cord(const std::string& id, const Vec3& a, const Vec3& b, int points, bool contact) {
  RodDesc d = testing::StraightRod(id, a, b, points, Cord());
  d.rod_contact = contact;
  return d;
}

// Smallest distance between the centrelines of two rods, sampled finely.
double CentrelineDistance(const RodWorld& world, const std::string& a, const std::string& b) {
  const RodWorld::Rod* ra = world.FindRod(a);
  const RodWorld::Rod* rb = world.FindRod(b);
  std::vector<Vec3> pb;
  for (int j = 0; j <= 400; ++j) {
    pb.push_back(rb->state.Position(rb->model.spline().Sample(rb->model.length() * j / 400)));
  }
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i <= 400; ++i) {
    const Vec3 p = ra->state.Position(ra->model.spline().Sample(ra->model.length() * i / 400));
    for (const Vec3& q : pb) best = std::min(best, (p - q).norm());
  }
  return best;
}

double Energy(const RodWorld& world, const Vec3& gravity) {
  double e = 0.0;
  for (const RodWorld::Rod& r : world.rods()) {
    e += RodPotentialEnergy(r.model, r.state, gravity) + RodKineticEnergy(r.model, r.state);
  }
  return e;
}

Vec3 Momentum(const RodWorld::Rod& r) {
  const double rho_a = r.model.material().density * r.model.area();
  Vec3 p = Vec3::Zero();
  for (const RodQuadrature& q : r.model.quadrature()) {
    for (int a = 0; a < 4; ++a) p += q.weight * rho_a * q.basis.b[a] * r.state.v[q.basis.first + a];
  }
  return p;
}

// A 1 m rope pinned at both ends 0.2% stretched along x, and a 0.6 m rope across it 3 cm
// above, released; each on the layers its filter gives it.
RodWorld CrossedRopes(bool contact, const CollisionFilter& taut_filter = {},
                      const CollisionFilter& drop_filter = {}) {
  RodWorld world;
  // Laid at its held length over a 1 m rest shape, so that the holds do no work.
  RodDesc taut = Cord("taut", Vec3(-0.501, 0, 0), Vec3(0.501, 0, 0), 40, contact);
  taut.rest_points = {Vec3(-0.5, 0, 0), Vec3(0.5, 0, 0)};
  taut.collision = taut_filter;
  EXPECT_TRUE(world.AddRod(taut).ok());
  EXPECT_TRUE(world.AddConstraint(testing::Hold("left", "taut", 0.0, Vec3(-0.501, 0, 0))).ok());
  EXPECT_TRUE(world.AddConstraint(testing::Hold("right", "taut", 1.0, Vec3(0.501, 0, 0))).ok());
  RodDesc drop = Cord("drop", Vec3(0.01, 0.03, -0.3), Vec3(0.01, 0.03, 0.3), 30, contact);
  drop.collision = drop_filter;
  EXPECT_TRUE(world.AddRod(drop).ok());
  return world;
}

TEST(RodRodContact, DroppedRopeRestsOnTautRope) {
  RodWorld world = CrossedRopes(true);
  const double touching = 2.0 * Cord().radius;
  double closest = std::numeric_limits<double>::infinity();
  double energy = Energy(world, kGravity);
  double energy_rise = 0.0;
  int steps_with_contacts = 0;
  for (int i = 0; i < 1000; ++i) {
    world.Step(0.002, kGravity, nullptr);
    closest = std::min(closest, CentrelineDistance(world, "taut", "drop"));
    const double now = Energy(world, kGravity);
    energy_rise = std::max(energy_rise, now - energy);
    energy = now;
    if (world.last_stats().rod_contacts > 0) ++steps_with_contacts;
    ASSERT_FALSE(world.last_stats().solve_failed) << i;
  }
  EXPECT_GT(steps_with_contacts, 300);
  // Never through: at worst the contacts' compliance (1e-5 m/N) under the impact.
  EXPECT_GE(closest, touching - 1e-4) << closest;
  // At rest on the taut rope, across it: its middle just above it, its ends hanging.
  const Vec3 middle = testing::RodPoint(world, "drop", 0.3);
  EXPECT_GT(middle.y(), testing::RodPoint(world, "taut", 0.51).y());
  EXPECT_LT(middle.y(), 0.01);
  EXPECT_LT(testing::RodPoint(world, "drop", 0.0).y(), middle.y() - 0.02);
  double fastest = 0.0;
  for (const Vec3& v : world.FindRod("drop")->state.v) fastest = std::max(fastest, v.norm());
  EXPECT_LT(fastest, 0.05);
  // The contacts and backward Euler take energy out; at most the linearization's error
  // puts a little in, far below the drop's 6e-4 J.
  EXPECT_LT(energy_rise, 1e-5) << energy_rise;
}

TEST(RodRodContact, WithoutRodContactTheRopeFallsThrough) {
  RodWorld world = CrossedRopes(false);
  for (int i = 0; i < 300; ++i) world.Step(0.002, kGravity, nullptr);
  EXPECT_LT(testing::RodPoint(world, "drop", 0.3).y(), -0.1);
  EXPECT_EQ(world.last_stats().rod_contacts, 0);
}

// Both ropes collide with rods, the dropped one on layer 1 (bit 2): it falls through when
// either mask leaves out the other's layer, and lands when both take it.
TEST(RodRodContact, RopesWhoseLayersDoNotMeetPassThrough) {
  struct Case {
    CollisionFilter taut, drop;
    bool meet;
  };
  for (const Case& c : {Case{{1, ~0u}, {2, ~1u}, false}, Case{{1, ~2u}, {2, ~0u}, false},
                        Case{{1, ~0u}, {2, ~0u}, true}}) {
    SCOPED_TRACE(c.meet);
    RodWorld world = CrossedRopes(true, c.taut, c.drop);
    bool touched = false;
    for (int i = 0; i < 300; ++i) {
      world.Step(0.002, kGravity, nullptr);
      touched |= world.last_stats().rod_contacts > 0;
    }
    EXPECT_EQ(touched, c.meet);
    EXPECT_EQ(testing::RodPoint(world, "drop", 0.3).y() < -0.1, !c.meet);
  }
}

TEST(RodRodContact, OverlappingFreeRodsPushApartWithEqualAndOppositeMomentum) {
  RodWorld world;
  ASSERT_TRUE(world.AddRod(Cord("a", Vec3(-0.2, 0, 0), Vec3(0.2, 0, 0), 20, true)).ok());
  ASSERT_TRUE(
      world.AddRod(Cord("b", Vec3(0.05, 0.0015, -0.2), Vec3(0.05, 0.0015, 0.2), 20, true)).ok());
  for (int i = 0; i < 100; ++i) world.Step(0.001, Vec3::Zero(), nullptr);
  const Vec3 pa = Momentum(*world.FindRod("a"));
  const Vec3 pb = Momentum(*world.FindRod("b"));
  EXPECT_GT(pb.y(), 1e-6);  // pushed apart along the normal
  EXPECT_LT((pa + pb).norm(), 1e-9 * pb.norm()) << pa.transpose() << " | " << pb.transpose();
  EXPECT_GE(CentrelineDistance(world, "a", "b"), 2.0 * Cord().radius - 1e-6);
}

// One rod: a lower leg held at both ends, then a loop back over it whose free last leg
// crosses 3 cm above the lower one and falls onto it; its two parts never pass through.
TEST(RodRodContact, SelfContactStopsALegFallingThroughItsOwnRod) {
  RodWorld world;
  RodDesc rod = Cord("loop", Vec3::Zero(), Vec3(1, 0, 0), 80, true);
  rod.points = {Vec3(-0.3, 0, 0), Vec3(0.3, 0, 0), Vec3(0.3, 0.03, 0), Vec3(0.3, 0.03, 0.15),
                Vec3(0.0, 0.03, 0.15), Vec3(0.0, 0.03, -0.15)};
  ASSERT_TRUE(world.AddRod(rod).ok());
  const double length = world.FindRod("loop")->model.length();
  ASSERT_TRUE(world.AddConstraint(testing::Hold("a", "loop", 0.0, Vec3(-0.3, 0, 0))).ok());
  ASSERT_TRUE(world.AddConstraint(testing::Hold("b", "loop", 0.6, Vec3(0.3, 0, 0))).ok());
  double closest = std::numeric_limits<double>::infinity();
  int steps_with_contacts = 0;
  const RodWorld::Rod* r = world.FindRod("loop");
  for (int i = 0; i < 500; ++i) {
    world.Step(0.002, kGravity, nullptr);
    if (world.last_stats().rod_contacts > 0) ++steps_with_contacts;
    // The lower leg's middle against the last leg.
    std::vector<Vec3> last;
    for (int b = 0; b <= 60; ++b) {
      last.push_back(r->state.Position(r->model.spline().Sample(length - 0.3 * b / 60)));
    }
    for (int a = 0; a <= 100; ++a) {
      const Vec3 p = r->state.Position(r->model.spline().Sample(0.05 + 0.5 * a / 100));
      for (const Vec3& q : last) closest = std::min(closest, (p - q).norm());
    }
  }
  EXPECT_GT(steps_with_contacts, 20);
  EXPECT_GE(closest, 2.0 * Cord().radius - 1e-4) << closest;
}

}  // namespace
}  // namespace ligature
