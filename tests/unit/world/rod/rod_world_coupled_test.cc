// RodWorld's step in two parts around the world's solve: with no forces it is the plain
// step bit for bit; forces on rod points move them by the constrained compliance it
// reports, with the rods' constraints held; contacts with obstacles are found within the
// obstacles' reach.

#include "server/world/rod/rod_world.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "server/collision/aabb.h"
#include "server/math/types.h"

namespace ligature {
namespace {

const Vec3 kGravity(0.0, -9.81, 0.0);
constexpr double kH = 0.005;

// A rope held at its left end and at a point on its right part, with a pearl on it.
RodWorld HeldRope() {
  RodWorld world;
  RodDesc d;
  d.id = "rope";
  d.points = {Vec3::Zero(), Vec3(1, 0, 0)};
  d.control_points = 16;
  d.material.radius = 0.005;
  d.material.young = 1.0e7;
  d.material.damping = 0.5;
  EXPECT_TRUE(world.AddRod(d).ok());
  RodConstraintDesc hold;
  hold.id = "hold";
  hold.a = {"rope", 0.0};
  hold.target = Vec3::Zero();
  EXPECT_TRUE(world.AddConstraint(hold).ok());
  RodConstraintDesc plane = hold;
  plane.id = "plane";
  plane.kind = RodConstraintKind::kPlane;
  plane.a = {"rope", 0.8};
  plane.target = Vec3(0.8, 0, 0);
  plane.direction = Vec3::UnitY();
  EXPECT_TRUE(world.AddConstraint(plane).ok());
  PearlDesc pearl;
  pearl.id = "pearl";
  pearl.rod = "rope";
  pearl.u = 0.5;
  pearl.mass = 0.01;
  EXPECT_TRUE(world.AddPearl(pearl).ok());
  return world;
}

TEST(RodWorldCoupledTest, WithoutForcesItIsThePlainStep) {
  RodWorld plain = HeldRope();
  RodWorld split = HeldRope();
  for (int i = 0; i < 20; ++i) {
    plain.Step(kH, kGravity, nullptr);
    ASSERT_TRUE(split.BeginCoupledStep(kH, kGravity, nullptr, {}));
    split.FinishCoupledStep(kH, {}, {}, {}, nullptr);
  }
  EXPECT_EQ(plain.FindRod("rope")->state.x, split.FindRod("rope")->state.x);
  EXPECT_EQ(plain.FindRod("rope")->state.v, split.FindRod("rope")->state.v);
  EXPECT_EQ(plain.pearls()[0].u, split.pearls()[0].u);
}

// Forces on two points: the points move (relative to the unforced step) by C f, the
// constraints still hold, and C is symmetric with positive diagonal blocks; the held
// point's row of C is zero.
TEST(RodWorldCoupledTest, ForcesMoveThePointsByTheirCompliance) {
  RodWorld base = HeldRope();
  for (int i = 0; i < 10; ++i) base.Step(kH, kGravity, nullptr);
  RodWorld free = base;
  RodWorld pushed = base;
  const std::vector<RodWorld::PointRef> points = {{0, 0.3}, {0, 0.95}, {0, 0.0}};
  const std::vector<Vec3> forces = {Vec3(0.0, 0.2, 0.1), Vec3(-0.1, 0.05, 0.0),
                                    Vec3(0.0, 1.0, 0.0)};
  ASSERT_TRUE(free.BeginCoupledStep(kH, kGravity, nullptr, {}));
  free.FinishCoupledStep(kH, {}, {}, {}, nullptr);
  ASSERT_TRUE(pushed.BeginCoupledStep(kH, kGravity, nullptr, {}));
  const std::optional<Eigen::MatrixXd> c = pushed.PointCompliance(points);
  ASSERT_TRUE(c.has_value());
  ASSERT_EQ(c->rows(), 9);
  EXPECT_TRUE((*c - c->transpose()).isZero(0.0));
  EXPECT_GT((c->block<3, 3>(0, 0).diagonal().minCoeff()), 0.0);
  // (the solver's 1e-14 m/N regularization of the hold's rows aside)
  EXPECT_LT(c->row(7).cwiseAbs().maxCoeff(), 1e-9 * c->cwiseAbs().maxCoeff());
  Eigen::VectorXd f(9);
  for (int p = 0; p < 3; ++p) f.segment<3>(3 * p) = forces[p];
  const Eigen::VectorXd expected = *c * f;
  pushed.FinishCoupledStep(kH, points, forces, {}, nullptr);
  const RodWorld::Rod* a = free.FindRod("rope");
  const RodWorld::Rod* b = pushed.FindRod("rope");
  for (int p = 0; p < 3; ++p) {
    const SplineSample s = a->model.spline().Sample(points[p].u);
    const Vec3 moved = b->state.Position(s) - a->state.Position(s);
    EXPECT_LT((moved - expected.segment<3>(3 * p)).norm(), 1e-9 * expected.norm()) << p;
  }
  EXPECT_GT(expected.norm(), 1e-6);
  EXPECT_LE(pushed.last_stats().max_violation, 5e-10);
  EXPECT_LT(b->state.Position(b->model.spline().Sample(0.0)).norm(), 1e-9);
  EXPECT_NEAR(b->state.Position(b->model.spline().Sample(0.8)).y(), 0.0, 1e-9);
}

// An obstacle just beyond the contact margin is met only when it reaches that far.
TEST(RodWorldCoupledTest, ObstaclesAreMetWithinTheirReach) {
  RodWorld world = HeldRope();
  Obstacle o;
  o.body = 3;
  o.shape = Shape::Sphere(0.05);
  o.pose = Transform{Vec3(0.5, -0.075, 0.0), Quat::Identity()};  // 2 cm below the rope
  std::vector<RodContact> found;
  o.bounds = ComputeAabb(o.shape, o.pose, 0.0);
  world.FindObstacleContacts(kH, {&o, 1}, &found);
  EXPECT_TRUE(found.empty());
  o.reach = 0.03;
  o.bounds = ComputeAabb(o.shape, o.pose, o.reach);
  world.FindObstacleContacts(kH, {&o, 1}, &found);
  ASSERT_FALSE(found.empty());
  for (const RodContact& c : found) {
    EXPECT_EQ(c.body, 3u);
    EXPECT_GE(c.sample, 0);
    // From the rod point towards the sphere's centre.
    EXPECT_GT(c.normal.dot((o.pose.position - c.anchor).normalized()), 1.0 - 1e-9);
  }
}

}  // namespace
}  // namespace ligature
