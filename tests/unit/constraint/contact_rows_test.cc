#include "server/constraint/contact_rows.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace ligature {
namespace {

// Unit normals covering the axes (both signs), the diagonals where the helper axis changes,
// and random directions.
std::vector<Vec3> SampleNormals() {
  std::vector<Vec3> normals;
  for (int axis = 0; axis < 3; ++axis) {
    normals.push_back(Vec3::Unit(axis));
    normals.push_back(-Vec3::Unit(axis));
  }
  for (int sx : {-1, 1}) {
    for (int sy : {-1, 1}) {
      for (int sz : {-1, 1}) normals.push_back(Vec3(sx, sy, sz).normalized());
    }
  }
  normals.push_back(Vec3(0.57735, 0.57735, 0.5773).normalized());
  normals.push_back(Vec3(1e-9, 1.0, -1e-9).normalized());
  std::mt19937 rng(12345);
  std::normal_distribution<double> g(0.0, 1.0);
  for (int i = 0; i < 500; ++i) normals.push_back(Vec3(g(rng), g(rng), g(rng)).normalized());
  return normals;
}

// The tangents complete the normal into a right-handed orthonormal frame (t1, t2, n).
TEST(TangentBasisTest, OrthonormalAndRightHanded) {
  for (const Vec3& n : SampleNormals()) {
    SCOPED_TRACE(testing::Message() << "n = " << n.transpose());
    Vec3 t1, t2;
    TangentBasis(n, &t1, &t2);
    EXPECT_NEAR(t1.norm(), 1.0, 1e-12);
    EXPECT_NEAR(t2.norm(), 1.0, 1e-12);
    EXPECT_NEAR(t1.dot(n), 0.0, 1e-12);
    EXPECT_NEAR(t2.dot(n), 0.0, 1e-12);
    EXPECT_NEAR(t1.dot(t2), 0.0, 1e-12);
    EXPECT_LT((t1.cross(t2) - n).norm(), 1e-12);
    Mat3 frame;
    frame << t1, t2, n;
    EXPECT_NEAR(frame.determinant(), 1.0, 1e-12);
  }
}

// Same normal, same tangents: warm-started friction forces stay meaningful across ticks.
TEST(TangentBasisTest, Deterministic) {
  const Vec3 n = Vec3(0.3, -0.8, 0.2).normalized();
  Vec3 a1, a2, b1, b2;
  TangentBasis(n, &a1, &a2);
  TangentBasis(n, &b1, &b2);
  EXPECT_EQ(a1, b1);
  EXPECT_EQ(a2, b2);
}

// Separations count in full; penetration within the slop is ignored; deeper penetration is
// recovered by kPenetrationRecovery of what lies beyond the slop.
TEST(ContactGapTest, SlopAndRecovery) {
  EXPECT_EQ(ContactGap(0.0), 0.0);
  EXPECT_EQ(ContactGap(0.013), 0.013);
  EXPECT_EQ(ContactGap(-0.3 * kPenetrationSlop), 0.0);
  EXPECT_EQ(ContactGap(-kPenetrationSlop), 0.0);
  EXPECT_NEAR(ContactGap(-0.01), kPenetrationRecovery * (-0.01 + kPenetrationSlop), 1e-15);
  // With the constants as documented: 0.2 * (-0.0095).
  EXPECT_NEAR(ContactGap(-0.01), -0.0019, 1e-15);
  EXPECT_LT(ContactGap(-0.1), ContactGap(-0.01));
}

struct Bodies {
  ContactBody a;
  ContactBody b;
};

Bodies MovingBodies() {
  Bodies s;
  s.a.index = 3;
  s.a.origin = Vec3(0.1, -0.5, 0.2);
  s.a.linear_velocity = Vec3(0.4, -1.0, 0.3);
  s.a.angular_velocity = Vec3(0.5, 2.0, -1.0);
  s.b.index = 7;
  s.b.origin = Vec3(-0.2, 0.6, 0.0);
  s.b.linear_velocity = Vec3(-0.2, -3.0, 0.1);
  s.b.angular_velocity = Vec3(-1.5, 0.2, 0.7);
  return s;
}

ContactPoint Point(const Vec3& position, const Vec3& normal, double distance) {
  ContactPoint p;
  p.position = position;
  p.normal = normal;
  p.distance = distance;
  return p;
}

// The violation after free motion is the gap plus h times the relative velocity of the two
// material points at the contact, projected on each direction.
TEST(MakeContactBlockTest, ViolationIsGapPlusRelativeFreeDisplacement) {
  const Bodies s = MovingBodies();
  const Vec3 n = Vec3(0.2, 1.0, -0.1).normalized();
  const Vec3 p(0.05, 0.02, 0.1);
  const double h = 1.0 / 60.0;
  for (double distance : {0.01, -0.0002, -0.02}) {
    SCOPED_TRACE(distance);
    const ConstraintBlock block = MakeContactBlock(Point(p, n, distance), s.a, s.b, 0.6, h);
    const Vec3 va = s.a.linear_velocity + s.a.angular_velocity.cross(p - s.a.origin);
    const Vec3 vb = s.b.linear_velocity + s.b.angular_velocity.cross(p - s.b.origin);
    Vec3 t1, t2;
    TangentBasis(n, &t1, &t2);
    EXPECT_NEAR(block.violation_free[0], ContactGap(distance) + h * (vb - va).dot(n), 1e-14);
    EXPECT_NEAR(block.violation_free[1], h * (vb - va).dot(t1), 1e-14);
    EXPECT_NEAR(block.violation_free[2], h * (vb - va).dot(t2), 1e-14);
  }
}

// A concrete case by hand: B falls at 3 m/s onto a resting A, 1 cm apart, h = 0.01 s:
// violation = 0.01 - 0.03 = -0.02 along +Y.
TEST(MakeContactBlockTest, FallingBodyByHand) {
  ContactBody a, b;
  a.index = kWorldBody;
  b.index = 0;
  b.origin = Vec3(0, 0.5, 0);
  b.linear_velocity = Vec3(0, -3.0, 0);
  const ConstraintBlock block =
      MakeContactBlock(Point(Vec3(0, 0.005, 0), Vec3::UnitY(), 0.01), a, b, 0.0, 0.01);
  EXPECT_NEAR(block.violation_free[0], -0.02, 1e-15);
  EXPECT_EQ(block.body_a, kWorldBody);
  EXPECT_EQ(block.body_b, 0u);
}

// Jacobian signs: a displacement of B along +n opens the gap, of A along +n closes it; a
// small rotation of either body moves the contact point by dtheta x r.
TEST(MakeContactBlockTest, JacobianSigns) {
  const Bodies s = MovingBodies();
  const Vec3 n = Vec3(-0.3, 0.9, 0.2).normalized();
  const Vec3 p(0.3, 0.1, -0.2);
  const ConstraintBlock block = MakeContactBlock(Point(p, n, 0.0), s.a, s.b, 0.5, 0.01);
  Vec3 dirs[3];
  dirs[0] = n;
  TangentBasis(n, &dirs[1], &dirs[2]);

  Vec6 move_along_n;
  move_along_n << n, Vec3::Zero();
  EXPECT_NEAR((block.jacobian_b * move_along_n)[0], 1.0, 1e-14);
  EXPECT_NEAR((block.jacobian_a * move_along_n)[0], -1.0, 1e-14);
  // Moving along n does not slide.
  EXPECT_NEAR((block.jacobian_b * move_along_n)[1], 0.0, 1e-14);
  EXPECT_NEAR((block.jacobian_b * move_along_n)[2], 0.0, 1e-14);

  // General displacement [dx, dtheta] of each body: the material point at p moves by
  // dx + dtheta x r; the rows measure B's motion minus A's along n, t1, t2.
  const Vec3 dxa(0.01, -0.02, 0.005), dta(0.03, 0.01, -0.02);
  const Vec3 dxb(-0.004, 0.011, 0.02), dtb(-0.01, 0.04, 0.02);
  Vec6 dqa, dqb;
  dqa << dxa, dta;
  dqb << dxb, dtb;
  const Vec3 moved_a = dxa + dta.cross(p - s.a.origin);
  const Vec3 moved_b = dxb + dtb.cross(p - s.b.origin);
  const Vec3 rows = block.jacobian_a * dqa + block.jacobian_b * dqb;
  for (int d = 0; d < 3; ++d) {
    EXPECT_NEAR(rows[d], (moved_b - moved_a).dot(dirs[d]), 1e-14) << "row " << d;
  }
}

// With friction the block is a 3D friction contact; without, a 1D unilateral one whose
// tangent rows stay empty.
TEST(MakeContactBlockTest, LawAndDimensionFollowFriction) {
  const Bodies s = MovingBodies();
  const ContactPoint p = Point(Vec3(0, 0, 0), Vec3::UnitY(), -0.01);
  const ConstraintBlock with = MakeContactBlock(p, s.a, s.b, 0.7, 0.01);
  EXPECT_EQ(with.law, ConstraintLaw::kFrictionContact);
  EXPECT_EQ(with.dim, 3);
  EXPECT_EQ(with.friction, 0.7);
  EXPECT_EQ(with.body_a, 3u);
  EXPECT_EQ(with.body_b, 7u);
  EXPECT_TRUE(with.force.isZero());

  const ConstraintBlock without = MakeContactBlock(p, s.a, s.b, 0.0, 0.01);
  EXPECT_EQ(without.law, ConstraintLaw::kUnilateral);
  EXPECT_EQ(without.dim, 1);
  EXPECT_TRUE(without.jacobian_a.bottomRows<2>().isZero());
  EXPECT_TRUE(without.jacobian_b.bottomRows<2>().isZero());
  EXPECT_EQ(without.violation_free[1], 0.0);
  EXPECT_EQ(without.violation_free[2], 0.0);
  // The normal row is the same either way.
  EXPECT_EQ(without.violation_free[0], with.violation_free[0]);
  EXPECT_EQ(without.jacobian_b.row(0), with.jacobian_b.row(0));
}

// A contact's rolling and spinning blocks: angular rows only (about the tangents of
// TangentBasis, and about the normal), equal and opposite on the two bodies, their
// violations the relative free rotation over the step, bounded by the contact block given.
TEST(AppendContactTorqueBlocksTest, AngularRowsBoundByTheirContact) {
  const Bodies s = MovingBodies();
  const ContactPoint p = Point(Vec3(0.1, 0.0, -0.2), Vec3(0.0, 0.6, 0.8), -0.01);
  const double h = 0.01;
  ConstraintRows rows;
  rows.blocks.push_back(MakeContactBlock(p, s.a, s.b, 0.5, h));
  AppendContactTorqueBlocks(p, s.a, s.b, 0, {0.02, 0.005}, h, &rows);
  ASSERT_EQ(rows.blocks.size(), 3u);
  Vec3 t1, t2;
  TangentBasis(p.normal, &t1, &t2);
  const Vec3 w_rel = s.b.angular_velocity - s.a.angular_velocity;
  const ConstraintBlock& rolling = rows.blocks[1];
  const ConstraintBlock& spinning = rows.blocks[2];
  EXPECT_EQ(rolling.law, ConstraintLaw::kRollingFriction);
  EXPECT_EQ(rolling.dim, 2);
  EXPECT_EQ(rolling.friction, 0.02);
  EXPECT_EQ(spinning.law, ConstraintLaw::kRollingFriction);
  EXPECT_EQ(spinning.dim, 1);
  EXPECT_EQ(spinning.friction, 0.005);
  const Vec3 axes[3] = {t1, t2, p.normal};
  for (int k = 0; k < 3; ++k) {
    const ConstraintBlock& b = k < 2 ? rolling : spinning;
    const int d = k < 2 ? k : 0;
    EXPECT_EQ(b.normal_block, 0u);
    EXPECT_EQ(b.body_a, 3u);
    EXPECT_EQ(b.body_b, 7u);
    EXPECT_FALSE(b.point);
    EXPECT_TRUE(b.jacobian_a.row(d).head<3>().isZero());
    EXPECT_TRUE(b.jacobian_b.row(d).head<3>().isZero());
    EXPECT_EQ(b.jacobian_b.row(d).tail<3>().transpose(), axes[k]);
    EXPECT_EQ(b.jacobian_a.row(d).tail<3>().transpose(), -axes[k]);
    EXPECT_NEAR(b.violation_free[d], h * w_rel.dot(axes[k]), 1e-15);
  }
}

// Without rolling or spinning resistance nothing is appended; each comes alone.
TEST(AppendContactTorqueBlocksTest, OnlyTheResistanceThereIs) {
  const Bodies s = MovingBodies();
  const ContactPoint p = Point(Vec3::Zero(), Vec3::UnitY(), 0.0);
  ConstraintRows rows;
  AppendContactTorqueBlocks(p, s.a, s.b, 4, {0.0, 0.0}, 0.01, &rows);
  EXPECT_TRUE(rows.blocks.empty());
  AppendContactTorqueBlocks(p, s.a, s.b, 4, {0.0, 0.01}, 0.01, &rows);
  ASSERT_EQ(rows.blocks.size(), 1u);
  EXPECT_EQ(rows.blocks[0].dim, 1);
  EXPECT_EQ(rows.blocks[0].normal_block, 4u);
  AppendContactTorqueBlocks(p, s.a, s.b, 5, {0.01, 0.0}, 0.01, &rows);
  ASSERT_EQ(rows.blocks.size(), 2u);
  EXPECT_EQ(rows.blocks[1].dim, 2);
  EXPECT_EQ(rows.blocks[1].normal_block, 5u);
}

}  // namespace
}  // namespace ligature
