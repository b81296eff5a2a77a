#include "server/constraint/point_constraint_rows.h"

#include <gtest/gtest.h>

namespace ligature {
namespace {

// The block is bilateral, 3D, carries the warm-start force, and its violation is the
// separation of the two anchors (B minus A).
TEST(MakePointBlockTest, ViolationIsAnchorSeparation) {
  PointSide a{2, Vec3(1.0, 2.0, 3.0), Vec3(0.1, 0.0, 0.0)};
  PointSide b{5, Vec3(1.5, 1.0, 3.25), Vec3(0.0, -0.2, 0.0)};
  const ConstraintBlock block = MakePointBlock(a, b, Vec3(4.0, -5.0, 6.0));
  EXPECT_EQ(block.law, ConstraintLaw::kBilateral);
  EXPECT_EQ(block.dim, 3);
  EXPECT_EQ(block.body_a, 2u);
  EXPECT_EQ(block.body_b, 5u);
  EXPECT_EQ(block.violation_free, Vec3(0.5, -1.0, 0.25));
  EXPECT_EQ(block.force, Vec3(4.0, -5.0, 6.0));
}

// Rows: B's anchor displacement dx + dtheta x arm counts positively, A's negatively.
TEST(MakePointBlockTest, JacobianMovesAnchors) {
  const Vec3 arm_a(0.3, -0.1, 0.2), arm_b(-0.25, 0.4, 0.05);
  PointSide a{0, Vec3::Zero(), arm_a};
  PointSide b{1, Vec3::Zero(), arm_b};
  const ConstraintBlock block = MakePointBlock(a, b, Vec3::Zero());
  const Vec3 dxa(0.01, 0.02, -0.03), dta(0.2, -0.1, 0.05);
  const Vec3 dxb(-0.02, 0.005, 0.01), dtb(-0.05, 0.3, 0.1);
  Vec6 dqa, dqb;
  dqa << dxa, dta;
  dqb << dxb, dtb;
  const Vec3 expected_a = -(dxa + dta.cross(arm_a));
  const Vec3 expected_b = dxb + dtb.cross(arm_b);
  EXPECT_LT((block.jacobian_a * dqa - expected_a).norm(), 1e-15);
  EXPECT_LT((block.jacobian_b * dqb - expected_b).norm(), 1e-15);
}

// Anchored to the world: the world side keeps kWorldBody, and a pure translation of B by
// minus the violation closes the gap to first order exactly.
TEST(MakePointBlockTest, WorldAnchor) {
  PointSide world;  // index kWorldBody, point = world anchor
  world.point = Vec3(0.0, 4.0, 0.0);
  PointSide b{0, Vec3(0.1, 3.5, -0.2), Vec3(0.0, 0.5, 0.0)};
  const ConstraintBlock block = MakePointBlock(world, b, Vec3::Zero());
  EXPECT_EQ(block.body_a, kWorldBody);
  Vec6 dq;
  dq << -block.violation_free, Vec3::Zero();
  EXPECT_LT((block.violation_free + block.jacobian_b * dq).norm(), 1e-15);
}

}  // namespace
}  // namespace ligature
