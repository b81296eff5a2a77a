// RodWorld: validation of rods, constraints and pearls (status code, the field named, and
// nothing added on failure), RemoveRod with the constraints and pearls on the rod and the
// re-mapping of the others' rod indices, held rods, and steps with nothing to move.

#include "server/world/rod/rod_world.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "server/math/types.h"

namespace ligature {
namespace {

using ::testing::UnorderedElementsAre;

const Vec3 kGravity(0.0, -9.81, 0.0);
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

RodDesc Straight(const std::string& id, const Vec3& a, const Vec3& b, bool kinematic = false) {
  RodDesc d;
  d.id = id;
  d.points = {a, b};
  d.control_points = 10;
  d.material.radius = 0.002;
  d.material.young = 5.0e8;
  d.material.damping = 0.5;
  d.kinematic = kinematic;
  return d;
}

RodConstraintDesc Constraint(const std::string& id, RodConstraintKind kind,
                             const std::string& rod, double u) {
  RodConstraintDesc c;
  c.id = id;
  c.kind = kind;
  c.a = {rod, u};
  return c;
}
RodConstraintDesc Relative(const std::string& id, RodConstraintKind kind,
                           const std::string& rod_a, double ua, const std::string& rod_b,
                           double ub) {
  RodConstraintDesc c = Constraint(id, kind, rod_a, ua);
  c.b = {rod_b, ub};
  return c;
}

PearlDesc Bead(const std::string& id, const std::string& rod, double u) {
  PearlDesc p;
  p.id = id;
  p.rod = rod;
  p.u = u;
  return p;
}

Vec3 RodPoint(const RodWorld& world, const std::string& rod, double u) {
  const RodWorld::Rod* r = world.FindRod(rod);
  return r->state.Position(r->model.spline().Sample(u));
}

// The status has `code` and its message starts with the field it names ("field: why"),
// possibly inside an enclosing path ("outer.field: why").
void ExpectStatus(const absl::Status& s, absl::StatusCode code, const std::string& field,
                  const std::string& label) {
  EXPECT_EQ(s.code(), code) << label << ": " << s;
  if (!field.empty()) {
    const std::string message(s.message());
    const std::string path = message.substr(0, message.find(':'));
    EXPECT_TRUE(path == field || absl::EndsWith(path, absl::StrCat(".", field)))
        << label << ": " << message;
  }
}

// Rods "a" (1 m), "b" (0.8 m), held rods "h1" and "h2", a constraint "c0" and a pearl "p0".
class RodWorldValidationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(world_.AddRod(Straight("a", Vec3::Zero(), Vec3(1, 0, 0))).ok());
    ASSERT_TRUE(world_.AddRod(Straight("b", Vec3(0, 0.2, 0), Vec3(0.8, 0.2, 0))).ok());
    ASSERT_TRUE(world_.AddRod(Straight("h1", Vec3(0, 0.5, 0), Vec3(1, 0.5, 0), true)).ok());
    ASSERT_TRUE(world_.AddRod(Straight("h2", Vec3(0, 0.7, 0), Vec3(1, 0.7, 0), true)).ok());
    ASSERT_TRUE(world_.AddConstraint(Constraint("c0", RodConstraintKind::kPosition, "a", 0.0))
                    .ok());
    ASSERT_TRUE(world_.AddPearl(Bead("p0", "b", 0.4)).ok());
  }

  // Adds `desc`, expects the failure, and checks that nothing was added.
  void ExpectRejected(const RodConstraintDesc& desc, absl::StatusCode code,
                      const std::string& field, const std::string& label) {
    const size_t constraints = world_.constraints().size();
    const size_t pearls = world_.pearls().size();
    ExpectStatus(world_.AddConstraint(desc), code, field, label);
    EXPECT_EQ(world_.constraints().size(), constraints) << label;
    EXPECT_EQ(world_.pearls().size(), pearls) << label;
  }
  void ExpectRejected(const PearlDesc& desc, absl::StatusCode code, const std::string& field,
                      const std::string& label) {
    const size_t constraints = world_.constraints().size();
    const size_t pearls = world_.pearls().size();
    ExpectStatus(world_.AddPearl(desc), code, field, label);
    EXPECT_EQ(world_.constraints().size(), constraints) << label;
    EXPECT_EQ(world_.pearls().size(), pearls) << label;
  }

  RodWorld world_;
};

TEST_F(RodWorldValidationTest, RejectsBadRodPoints) {
  using K = RodConstraintKind;
  const auto invalid = absl::StatusCode::kInvalidArgument;
  ExpectRejected(Constraint("x", K::kPosition, "a", 1.5), invalid, "a.u", "u past the end");
  ExpectRejected(Constraint("x", K::kPosition, "a", -0.01), invalid, "a.u", "negative u");
  ExpectRejected(Constraint("x", K::kPosition, "a", kNaN), invalid, "a.u", "NaN u");
  ExpectRejected(Constraint("x", K::kPosition, "nope", 0.5), absl::StatusCode::kNotFound,
                 "a.rod", "unknown rod");
  ExpectRejected(Relative("x", K::kDistance, "a", 0.5, "nope", 0.5),
                 absl::StatusCode::kNotFound, "b.rod", "unknown rod b");
  // u = 0.9 is on rod a but past rod b's end.
  ExpectRejected(Relative("x", K::kDistance, "a", 0.9, "b", 0.9), invalid, "b.u", "b.u");
  ExpectRejected(Relative("x", K::kFusion, "a", 0.3, "a", 0.3), invalid, "b",
                 "fusion with itself");
  ExpectRejected(Relative("x", K::kDistance, "b", 0.0, "b", 0.0), invalid, "b",
                 "distance to itself");
  // The ends are on the rod.
  EXPECT_TRUE(world_.AddConstraint(Constraint("end", K::kPlane, "a", 1.0)).ok());
  EXPECT_TRUE(world_.AddConstraint(Relative("two", K::kDistance, "a", 0.3, "a", 0.5)).ok());
}

TEST_F(RodWorldValidationTest, RejectsBadValues) {
  using K = RodConstraintKind;
  const auto invalid = absl::StatusCode::kInvalidArgument;
  for (const K kind : {K::kPlane, K::kAxis, K::kOrientation}) {
    RodConstraintDesc d = Constraint("x", kind, "a", 0.5);
    d.direction = Vec3::Zero();
    const std::string name = absl::StrCat("kind ", static_cast<int>(kind));
    ExpectRejected(d, invalid, "direction", absl::StrCat("zero direction, ", name));
    d.direction = Vec3(kNaN, 0, 1);
    ExpectRejected(d, invalid, "direction", absl::StrCat("NaN direction, ", name));
  }
  RodConstraintDesc keyhole = Constraint("x", K::kKeyhole, "a", 0.5);
  keyhole.oriented = true;
  keyhole.direction = Vec3::Zero();
  ExpectRejected(keyhole, invalid, "direction", "oriented keyhole");
  RodConstraintDesc plane = Relative("x", K::kRelativePlane, "a", 0.5, "b", 0.5);
  plane.direction = Vec3::Zero();
  ExpectRejected(plane, invalid, "direction", "relative plane");
  // With the normal taken from the tangent the direction is not used.
  plane.normal_from_tangent = true;
  EXPECT_TRUE(world_.AddConstraint(plane).ok());

  RodConstraintDesc sphere = Constraint("y", K::kSphere, "a", 0.5);
  sphere.distance = -0.1;
  ExpectRejected(sphere, invalid, "distance", "negative sphere radius");
  RodConstraintDesc distance = Relative("y", K::kDistance, "a", 0.5, "b", 0.5);
  distance.distance = -0.1;
  ExpectRejected(distance, invalid, "distance", "negative distance");
  distance.distance = kNaN;
  ExpectRejected(distance, invalid, "distance", "NaN distance");

  for (const K kind : {K::kPosition, K::kSphere, K::kPlane}) {
    RodConstraintDesc d = Constraint("y", kind, "a", 0.5);
    d.unilateral = true;
    ExpectRejected(d, invalid, "unilateral",
                   absl::StrCat("unilateral, kind ", static_cast<int>(kind)));
  }
  RodConstraintDesc fusion = Relative("y", K::kFusion, "a", 0.5, "b", 0.5);
  fusion.unilateral = true;
  ExpectRejected(fusion, invalid, "unilateral", "unilateral fusion");

  RodConstraintDesc oriented_plane = Constraint("y", K::kPlane, "a", 0.5);
  oriented_plane.oriented = true;
  ExpectRejected(oriented_plane, invalid, "oriented", "oriented plane");
  RodConstraintDesc oriented_relative = Relative("y", K::kRelativeKeyhole, "a", 0.5, "b", 0.5);
  oriented_relative.oriented = true;
  ExpectRejected(oriented_relative, invalid, "oriented", "oriented relative keyhole");

  RodConstraintDesc target = Constraint("y", K::kPosition, "a", 0.5);
  target.target = Vec3(0, kNaN, 0);
  ExpectRejected(target, invalid, "target", "NaN target");
  RodConstraintDesc friction = Constraint("y", K::kKeyhole, "a", 0.5);
  friction.friction = -1.0;
  ExpectRejected(friction, invalid, "friction", "negative friction");
  RodConstraintDesc twist = Constraint("y", K::kOrientation, "a", 0.5);
  twist.twist = kNaN;
  ExpectRejected(twist, invalid, "twist", "NaN twist");
}

TEST_F(RodWorldValidationTest, RejectsDuplicateIds) {
  using K = RodConstraintKind;
  const auto exists = absl::StatusCode::kAlreadyExists;
  ExpectRejected(Constraint("c0", K::kPlane, "b", 0.5), exists, "", "constraint id");
  ExpectRejected(Constraint("p0", K::kPlane, "b", 0.5), exists, "", "pearl id");
  ExpectRejected(Bead("p0", "a", 0.5), exists, "", "pearl id for a pearl");
  ExpectRejected(Bead("c0", "a", 0.5), exists, "", "constraint id for a pearl");
  EXPECT_EQ(world_.AddRod(Straight("a", Vec3::Zero(), Vec3(0, 1, 0))).code(), exists);
  EXPECT_EQ(world_.rods().size(), 4u);
  // The rod kept its shape.
  EXPECT_LT((RodPoint(world_, "a", 1.0) - Vec3(1, 0, 0)).norm(), 1e-12);
}

TEST_F(RodWorldValidationTest, RejectsBadPearls) {
  const auto invalid = absl::StatusCode::kInvalidArgument;
  PearlDesc p = Bead("x", "a", 0.5);
  p.mass = 0.0;
  ExpectRejected(p, invalid, "mass", "zero mass");
  p.mass = -1.0;
  ExpectRejected(p, invalid, "mass", "negative mass");
  p.mass = kNaN;
  ExpectRejected(p, invalid, "mass", "NaN mass");
  p = Bead("x", "a", 1.2);
  ExpectRejected(p, invalid, "u", "u past the end");
  p = Bead("x", "nope", 0.5);
  ExpectRejected(p, absl::StatusCode::kNotFound, "rod", "unknown rod");
  p = Bead("x", "a", 0.5);
  p.radius = -0.001;
  ExpectRejected(p, invalid, "radius", "negative radius");
  p = Bead("x", "a", 0.5);
  p.friction = -0.1;
  ExpectRejected(p, invalid, "friction", "negative friction");
  p = Bead("x", "a", 0.5);
  p.viscous = -0.1;
  ExpectRejected(p, invalid, "viscous", "negative viscous");
  p = Bead("x", "a", 0.5);
  p.speed = kNaN;
  ExpectRejected(p, invalid, "speed", "NaN speed");
  // A good one is added, with its state from the description.
  p = Bead("x", "a", 0.5);
  p.speed = 0.3;
  ASSERT_TRUE(world_.AddPearl(p).ok());
  EXPECT_EQ(world_.pearls().back().u, 0.5);
  EXPECT_EQ(world_.pearls().back().speed, 0.3);
}

TEST_F(RodWorldValidationTest, RejectsBadRods) {
  RodDesc nan = Straight("n", Vec3::Zero(), Vec3(1, 0, 0));
  nan.points.push_back(Vec3(kNaN, 0, 0));
  ExpectStatus(world_.AddRod(nan), absl::StatusCode::kInvalidArgument, "points[2]", "NaN");
  RodDesc thin = Straight("n", Vec3::Zero(), Vec3(1, 0, 0));
  thin.material.radius = 0.0;
  ExpectStatus(world_.AddRod(thin), absl::StatusCode::kInvalidArgument, "material.radius",
               "radius");
  RodDesc damped = Straight("n", Vec3::Zero(), Vec3(1, 0, 0));
  damped.material.damping = -1.0;
  ExpectStatus(world_.AddRod(damped), absl::StatusCode::kInvalidArgument, "material.damping",
               "damping");
  RodDesc point = Straight("n", Vec3::Zero(), Vec3::Zero());
  ExpectStatus(world_.AddRod(point), absl::StatusCode::kInvalidArgument, "points",
               "zero length");
  EXPECT_EQ(world_.rods().size(), 4u);
  EXPECT_FALSE(world_.HasRod("n"));
}

// A constraint that could only act on held rods is rejected; one with a dynamic rod is
// accepted, and the held rod does not move when the world steps.
TEST_F(RodWorldValidationTest, ConstraintsOnHeldRods) {
  using K = RodConstraintKind;
  const auto invalid = absl::StatusCode::kInvalidArgument;
  ExpectRejected(Constraint("x", K::kPosition, "h1", 0.5), invalid, "a.rod", "held");
  ExpectRejected(Relative("x", K::kDistance, "h1", 0.5, "h2", 0.5), invalid, "b.rod",
                 "both held");
  RodConstraintDesc link = Relative("link", K::kDistance, "h1", 0.0, "a", 1.0);
  link.distance = (Vec3(0, 0.5, 0) - Vec3(1, 0, 0)).norm();
  ASSERT_TRUE(world_.AddConstraint(link).ok());
  RodConstraintDesc hang = Relative("hang", K::kFusion, "b", 0.0, "h2", 0.0);
  ASSERT_TRUE(world_.AddConstraint(hang).ok());

  const std::vector<Vec3> held = world_.FindRod("h1")->state.x;
  for (int i = 0; i < 5; ++i) world_.Step(0.01, kGravity, nullptr);
  EXPECT_FALSE(world_.last_stats().solve_failed);
  EXPECT_EQ(world_.FindRod("h1")->state.x, held);
  // Rod a hangs from c0 and h1: its held end stays at the link's distance from h1's start.
  const double d = (RodPoint(world_, "a", 1.0) - RodPoint(world_, "h1", 0.0)).norm();
  EXPECT_NEAR(d, link.distance, 1e-9);
  // Rod b is fused to h2's start.
  EXPECT_LT((RodPoint(world_, "b", 0.0) - RodPoint(world_, "h2", 0.0)).norm(), 1e-9);
}

// Removing a rod removes what acts on it, and the remaining constraints follow their rods'
// new indices.
TEST(RodWorldTest, RemoveRodRemapsConstraints) {
  using K = RodConstraintKind;
  RodWorld world;
  for (int r = 0; r < 3; ++r) {
    ASSERT_TRUE(world.AddRod(Straight(absl::StrCat("r", r), Vec3(0, 0.3 * r, 0),
                                      Vec3(1, 0.3 * r, 0))).ok());
  }
  RodConstraintDesc p0 = Constraint("p0", K::kPosition, "r0", 0.0);
  p0.target = Vec3::Zero();
  ASSERT_TRUE(world.AddConstraint(p0).ok());
  RodConstraintDesc d01 = Relative("d01", K::kDistance, "r0", 1.0, "r1", 1.0);
  d01.distance = 0.3;
  ASSERT_TRUE(world.AddConstraint(d01).ok());
  RodConstraintDesc d21 = Relative("d21", K::kDistance, "r2", 0.0, "r1", 0.0);
  d21.distance = 0.3;
  ASSERT_TRUE(world.AddConstraint(d21).ok());
  // r2 held at u = 0.5 slightly above where it is, and at its end.
  RodConstraintDesc p2 = Constraint("p2", K::kPosition, "r2", 0.5);
  p2.target = Vec3(0.5, 0.61, 0.0);
  ASSERT_TRUE(world.AddConstraint(p2).ok());
  RodConstraintDesc p2end = Constraint("p2end", K::kPosition, "r2", 1.0);
  p2end.target = Vec3(1.0, 0.6, 0.0);
  ASSERT_TRUE(world.AddConstraint(p2end).ok());
  ASSERT_TRUE(world.AddPearl(Bead("bead1", "r1", 0.5)).ok());
  ASSERT_TRUE(world.AddPearl(Bead("bead2", "r2", 0.7)).ok());
  world.Step(0.01, kGravity, nullptr);

  EXPECT_TRUE(world.RemoveRod("nope").empty());
  EXPECT_THAT(world.RemoveRod("r1"), UnorderedElementsAre("d01", "d21", "bead1"));
  EXPECT_FALSE(world.HasRod("r1"));
  EXPECT_EQ(world.rods().size(), 2u);
  ASSERT_EQ(world.constraints().size(), 3u);
  for (const RodConstraint& c : world.constraints()) {
    ASSERT_GE(c.rod_a, 0);
    ASSERT_LT(c.rod_a, 2);
    EXPECT_EQ(world.rods()[c.rod_a].desc.id, c.desc.a.rod) << c.desc.id;
  }
  ASSERT_EQ(world.pearls().size(), 1u);
  EXPECT_EQ(world.pearls()[0].desc.id, "bead2");
  EXPECT_FALSE(world.HasConstraint("d01"));
  EXPECT_FALSE(world.HasPearl("bead1"));

  // The remaining holds act on the right rods.
  for (int i = 0; i < 20; ++i) world.Step(0.01, kGravity, nullptr);
  EXPECT_FALSE(world.last_stats().solve_failed);
  EXPECT_LT((RodPoint(world, "r2", 0.5) - p2.target).norm(), 1e-9);
  EXPECT_LT((RodPoint(world, "r2", 1.0) - p2end.target).norm(), 1e-9);
  EXPECT_LT((RodPoint(world, "r0", 0.0) - p0.target).norm(), 1e-9);
  // r0 is held at one end only: it falls.
  EXPECT_LT(RodPoint(world, "r0", 1.0).y(), -0.01);

  // Removing the first rod shifts r2 to index 0.
  EXPECT_THAT(world.RemoveRod("r0"), UnorderedElementsAre("p0"));
  ASSERT_EQ(world.constraints().size(), 2u);
  for (const RodConstraint& c : world.constraints()) EXPECT_EQ(c.rod_a, 0);
  world.Step(0.01, kGravity, nullptr);
  EXPECT_LT((RodPoint(world, "r2", 0.5) - p2.target).norm(), 1e-9);
}

TEST(RodWorldTest, RemoveConstraintAndPearl) {
  RodWorld world;
  ASSERT_TRUE(world.AddRod(Straight("r", Vec3::Zero(), Vec3(1, 0, 0))).ok());
  ASSERT_TRUE(world.AddConstraint(Constraint("c", RodConstraintKind::kPlane, "r", 0.2)).ok());
  ASSERT_TRUE(world.AddPearl(Bead("p", "r", 0.5)).ok());
  EXPECT_EQ(world.RemoveConstraint("p").code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(world.RemovePearl("c").code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(world.RemoveConstraint("c").ok());
  EXPECT_TRUE(world.RemovePearl("p").ok());
  EXPECT_TRUE(world.constraints().empty());
  EXPECT_TRUE(world.pearls().empty());
}

TEST(RodWorldTest, StepWithoutRodsDoesNothing) {
  RodWorld world;
  EXPECT_TRUE(world.empty());
  world.Step(0.01, kGravity, nullptr);
  EXPECT_EQ(world.last_stats().unknowns, 0);
  EXPECT_EQ(world.last_stats().active_set_rounds, 0);
  EXPECT_FALSE(world.last_stats().solve_failed);
  EXPECT_TRUE(world.released().empty());

  // After the last rod goes, the statistics of earlier steps are cleared too.
  ASSERT_TRUE(world.AddRod(Straight("r", Vec3::Zero(), Vec3(1, 0, 0))).ok());
  world.Step(0.01, kGravity, nullptr);
  EXPECT_GT(world.last_stats().unknowns, 0);
  world.RemoveRod("r");
  EXPECT_TRUE(world.empty());
  world.Step(0.01, kGravity, nullptr);
  EXPECT_EQ(world.last_stats().unknowns, 0);
}

// With held rods only there is nothing to solve: they stay where they are.
TEST(RodWorldTest, StepWithHeldRodsOnly) {
  RodWorld world;
  ASSERT_TRUE(world.AddRod(Straight("h", Vec3::Zero(), Vec3(1, 0, 0), true)).ok());
  const std::vector<Vec3> x = world.FindRod("h")->state.x;
  world.Step(0.01, kGravity, nullptr);
  world.Step(0.01, kGravity, nullptr);
  EXPECT_FALSE(world.last_stats().solve_failed);
  EXPECT_EQ(world.last_stats().unknowns, 0);
  EXPECT_EQ(world.FindRod("h")->state.x, x);
}

}  // namespace
}  // namespace ligature
