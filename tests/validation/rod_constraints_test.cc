// Every rod constraint kind holds exactly after every step (to 1e-9 m), measured here from
// the rods' geometry, including while keyholes slide and a unilateral contact releases.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tests/validation/rod_scenes.h"

namespace ligature {
namespace {

using testing::kGravity;

RodMaterial Cable() {
  RodMaterial m;
  m.radius = 0.002;
  m.density = 1200.0;
  m.young = 5.0e8;
  m.damping = 0.5;
  return m;
}

RodConstraintDesc Make(const std::string& id, RodConstraintKind kind, const std::string& rod,
                       double u) {
  RodConstraintDesc c;
  c.id = id;
  c.kind = kind;
  c.a = {rod, u};
  return c;
}

// docs/rods.md: every rod constraint holds to this after every step (m).
constexpr double kTolerance = 1e-9;

TEST(RodConstraints, EveryKindHoldsAfterEveryStep) {
  RodWorld world;
  const RodMaterial m = Cable();
  // A: clamped at its start (position, tangent, twist), its tip on a sphere.
  ASSERT_TRUE(world.AddRod(testing::StraightRod("A", Vec3(0, 0, 0), Vec3(1, 0, 0), 20, m)).ok());
  ASSERT_TRUE(world.AddConstraint(testing::Hold("a-hold", "A", 0.0, Vec3::Zero())).ok());
  RodConstraintDesc orient = Make("a-orient", RodConstraintKind::kOrientation, "A", 0.0);
  orient.direction = Vec3(1, 0.2, 0).normalized();
  orient.twist = 0.3;
  ASSERT_TRUE(world.AddConstraint(orient).ok());
  RodConstraintDesc sphere = Make("a-sphere", RodConstraintKind::kSphere, "A", 1.0);
  sphere.target = Vec3::Zero();
  sphere.distance = 0.95;
  ASSERT_TRUE(world.AddConstraint(sphere).ok());
  // B: its start on an axis (the z line at x = 0, y = 0.5), its middle on the plane x = 0.5.
  ASSERT_TRUE(world.AddRod(testing::StraightRod("B", Vec3(0, 0.5, 0), Vec3(1, 0.5, 0), 20, m)).ok());
  RodConstraintDesc axis = Make("b-axis", RodConstraintKind::kAxis, "B", 0.0);
  axis.target = Vec3(0, 0.5, 0);
  axis.direction = Vec3::UnitZ();
  ASSERT_TRUE(world.AddConstraint(axis).ok());
  RodConstraintDesc plane = Make("b-plane", RodConstraintKind::kPlane, "B", 0.5);
  plane.target = Vec3(0.5, 0, 0);
  plane.direction = Vec3::UnitX();
  ASSERT_TRUE(world.AddConstraint(plane).ok());
  ASSERT_TRUE(world.AddConstraint(testing::Hold("b-end", "B", 1.0, Vec3(1, 0.5, 0))).ok());
  // E: a branch fused to A's middle, hanging down.
  ASSERT_TRUE(world.AddRod(testing::StraightRod("E", Vec3(0.5, 0, 0), Vec3(0.5, -0.6, 0), 16, m)).ok());
  RodConstraintDesc fusion = Make("fusion", RodConstraintKind::kFusion, "A", 0.5);
  fusion.b = {"E", 0.0};
  ASSERT_TRUE(world.AddConstraint(fusion).ok());
  // E's tip held at its distance from B's middle.
  RodConstraintDesc distance = Make("distance", RodConstraintKind::kDistance, "E", 0.6);
  distance.b = {"B", 0.5};
  distance.distance = (Vec3(0.5, -0.6, 0) - Vec3(0.5, 0.5, 0)).norm();
  ASSERT_TRUE(world.AddConstraint(distance).ok());
  // C: hangs through a keyhole at 0.4 of its length; the longer side pulls it through
  // until it slides out.
  ASSERT_TRUE(world.AddRod(testing::StraightRod("C", Vec3(2, 0, 0), Vec3(3, 0, 0), 20, m)).ok());
  RodConstraintDesc keyhole = Make("keyhole", RodConstraintKind::kKeyhole, "C", 0.4);
  keyhole.target = Vec3(2.4, 0, 0);
  ASSERT_TRUE(world.AddConstraint(keyhole).ok());
  // D: slides through an oriented keyhole (held horizontal there).
  ASSERT_TRUE(world.AddRod(testing::StraightRod("D", Vec3(4, 0, 0), Vec3(5, 0, 0), 20, m)).ok());
  RodConstraintDesc oriented = Make("oriented", RodConstraintKind::kKeyhole, "D", 0.5);
  oriented.target = Vec3(4.5, 0, 0);
  oriented.oriented = true;
  oriented.direction = Vec3::UnitX();
  oriented.friction = 0.01;
  ASSERT_TRUE(world.AddConstraint(oriented).ok());
  // F: slides through a point of B (a slipknot); G rests on B from above through a
  // unilateral relative plane, then B is pulled away.
  ASSERT_TRUE(world.AddRod(testing::StraightRod("F", Vec3(0.25, 0.5, -0.3), Vec3(0.25, 0.5, 0.7), 20, m)).ok());
  RodConstraintDesc slip = Make("slipknot", RodConstraintKind::kRelativeKeyhole, "F", 0.3);
  slip.b = {"B", 0.25};
  ASSERT_TRUE(world.AddConstraint(slip).ok());
  RodConstraintDesc rel_plane = Make("rel-plane", RodConstraintKind::kRelativePlane, "F", 0.9);
  rel_plane.b = {"B", 0.75};
  rel_plane.direction = Vec3::UnitY();
  rel_plane.distance = -0.2;
  rel_plane.unilateral = true;
  ASSERT_TRUE(world.AddConstraint(rel_plane).ok());

  int slid = 0;
  bool keyhole_released = false;
  const double keyhole_start = 0.4;
  double worst = 0.0;
  for (int step = 0; step < 400; ++step) {
    world.Step(0.005, kGravity, nullptr);
    ASSERT_FALSE(world.last_stats().solve_failed) << "step " << step;
    for (const RodConstraint& c : world.constraints()) {
      const double v = testing::RodConstraintViolation(world, c);
      EXPECT_LT(v, kTolerance) << c.desc.id << " at step " << step;
      worst = std::max(worst, v);
    }
    EXPECT_LT(world.last_stats().max_violation, kTolerance);
    for (const RodConstraint& c : world.constraints()) {
      if (c.desc.id == "keyhole" && std::abs(c.u_a - keyhole_start) > 0.01) ++slid;
    }
    for (const std::string& id : world.released()) keyhole_released |= id == "keyhole";
  }
  std::printf("largest violation %.3g m\n", worst);
  // The hanging cable slid through its keyhole, and out of it.
  EXPECT_GT(slid, 0);
  EXPECT_TRUE(keyhole_released);
  EXPECT_FALSE(world.HasConstraint("keyhole"));
}

}  // namespace
}  // namespace ligature
