#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "server/collision/narrowphase.h"
#include "server/collision/pairs/pair_functions.h"
#include "tests/unit/collision/collision_test_util.h"

namespace ligature {
namespace {

using collision_testing::AlongX;
using collision_testing::AlongZ;
using collision_testing::AxisAngleDeg;
using collision_testing::ExpectHasPoint;
using collision_testing::ExpectWellFormed;
using collision_testing::MinDistance;
using collision_testing::Pose;

const Shape kCapsule = Shape::Capsule(0.5, 1.0);

TEST(CapsuleCapsuleTest, CrossedCapsulesGiveOnePoint) {
  ContactManifold m;
  ASSERT_EQ(CollideCapsuleCapsule(kCapsule, Pose(Vec3::Zero(), AlongX()), kCapsule,
                                  Pose(Vec3(0.3, 0.9, -0.2), AlongZ()), 0.0, &m),
            1);
  ExpectHasPoint(m, Vec3(0.3, 0.45, 0), Vec3::UnitY(), -0.1);
}

TEST(CapsuleCapsuleTest, ParallelOverlappingGiveTwoPoints) {
  ContactManifold m;
  ASSERT_EQ(CollideCapsuleCapsule(kCapsule, Pose(Vec3::Zero(), AlongX()), kCapsule,
                                  Pose(Vec3(0.5, 0.95, 0), AlongX()), 0.0, &m),
            2);
  // Overlap of the segments along x is [-0.5, 1].
  ExpectHasPoint(m, Vec3(-0.5, 0.475, 0), Vec3::UnitY(), -0.05);
  ExpectHasPoint(m, Vec3(1.0, 0.475, 0), Vec3::UnitY(), -0.05);
}

TEST(CapsuleCapsuleTest, ParallelUprightSideBySide) {
  ContactManifold m;
  ASSERT_EQ(CollideCapsuleCapsule(kCapsule, Pose(Vec3::Zero()), kCapsule, Pose(Vec3(0.9, 0.5, 0)),
                                  0.0, &m),
            2);
  ExpectHasPoint(m, Vec3(0.45, -0.5, 0), Vec3::UnitX(), -0.1);
  ExpectHasPoint(m, Vec3(0.45, 1.0, 0), Vec3::UnitX(), -0.1);
}

TEST(CapsuleCapsuleTest, ParallelOppositeDirectionsStillTwo) {
  // B's local +Y points along -X: same line set, reversed parameterization.
  ContactManifold m;
  ASSERT_EQ(
      CollideCapsuleCapsule(kCapsule, Pose(Vec3::Zero(), AlongX()), kCapsule,
                            Pose(Vec3(-0.5, 0.95, 0), AxisAngleDeg(Vec3::UnitZ(), 90)), 0.0, &m),
      2);
  ExpectHasPoint(m, Vec3(-1.0, 0.475, 0), Vec3::UnitY(), -0.05);
  ExpectHasPoint(m, Vec3(0.5, 0.475, 0), Vec3::UnitY(), -0.05);
}

TEST(CapsuleCapsuleTest, ParallelButEndToEndGiveOne) {
  ContactManifold m;
  ASSERT_EQ(CollideCapsuleCapsule(kCapsule, Pose(Vec3::Zero(), AlongX()), kCapsule,
                                  Pose(Vec3(2.5, 0.5, 0), AlongX()), 0.0, &m),
            1);
  const Vec3 n = Vec3(0.5, 0.5, 0).normalized();
  ExpectHasPoint(m, 0.5 * (Vec3(1, 0, 0) + 0.5 * n + Vec3(1.5, 0.5, 0) - 0.5 * n), n,
                 std::sqrt(0.5) - 1.0);
}

TEST(CapsuleCapsuleTest, SlightlyCrossedParallelAddsDeepestMiddle) {
  // Both horizontal; B turned 0.3 degrees about Y, so its axis crosses A's (seen from
  // above) at the middle, where the capsules are closest.
  ContactManifold m;
  const Quat q = AxisAngleDeg(Vec3::UnitY(), 0.3) * AlongX();
  ASSERT_EQ(CollideCapsuleCapsule(kCapsule, Pose(Vec3::Zero(), AlongX()), kCapsule,
                                  Pose(Vec3(0, 0.95, 0), q), 0.0, &m),
            3);
  ExpectWellFormed(m, 0.0);
  ExpectHasPoint(m, Vec3(0, 0.475, 0), Vec3::UnitY(), -0.05, 1e-9);
  EXPECT_NEAR(MinDistance(m), -0.05, 1e-12);
}

TEST(CapsuleCapsuleTest, CollinearOverlapIsFinite) {
  ContactManifold m;
  ASSERT_EQ(CollideCapsuleCapsule(kCapsule, Pose(Vec3::Zero(), AlongX()), kCapsule,
                                  Pose(Vec3(0.5, 0, 0), AlongX()), 0.0, &m),
            2);
  ExpectWellFormed(m, 0.0);
  for (int i = 0; i < 2; ++i) {
    EXPECT_NEAR(m.points[i].distance, -1.0, 1e-12);
    EXPECT_NEAR(m.points[i].normal.x(), 0.0, 1e-12);  // sideways from the shared axis
  }
}

TEST(CapsuleCapsuleTest, IntersectingAxesUseCrossDirection) {
  ContactManifold m;
  ASSERT_EQ(CollideCapsuleCapsule(kCapsule, Pose(Vec3::Zero(), AlongX()), kCapsule,
                                  Pose(Vec3::Zero(), AlongZ()), 0.0, &m),
            1);
  ExpectWellFormed(m, 0.0);
  EXPECT_NEAR(std::abs(m.points[0].normal.y()), 1.0, 1e-12);
  EXPECT_NEAR(m.points[0].distance, -1.0, 1e-12);
}

TEST(CapsuleCapsuleTest, ZeroLengthCapsulesAreSpheres) {
  ContactManifold m;
  const Shape ball = Shape::Capsule(0.5, 0.0);
  ASSERT_EQ(CollideCapsuleCapsule(ball, Pose(Vec3::Zero()), ball, Pose(Vec3(0, 0, 0.8)), 0.0, &m),
            1);
  ExpectHasPoint(m, Vec3(0, 0, 0.4), Vec3::UnitZ(), -0.2);
  ASSERT_EQ(CollideCapsuleCapsule(ball, Pose(Vec3::Zero()), ball, Pose(Vec3::Zero()), 0.0, &m), 1);
  ExpectWellFormed(m, 0.0);
}

TEST(CapsuleCapsuleTest, Margin) {
  ContactManifold m;
  const Transform pb = Pose(Vec3(0, 1.05, 0), AlongZ());
  ASSERT_EQ(CollideCapsuleCapsule(kCapsule, Pose(Vec3::Zero(), AlongX()), kCapsule, pb, 0.1, &m),
            1);
  ExpectHasPoint(m, Vec3(0, 0.525, 0), Vec3::UnitY(), 0.05);
  EXPECT_EQ(CollideCapsuleCapsule(kCapsule, Pose(Vec3::Zero(), AlongX()), kCapsule, pb, 0.01, &m),
            0);
}

TEST(CapsuleCapsuleTest, RotatedPoseMatchesAxisAligned) {
  // The parallel stack, carried by one rigid motion: same distances, rotated normals.
  const Quat r = AxisAngleDeg(Vec3(1, 2, 3), 40);
  const Vec3 shift(3, -1, 2);
  ContactManifold m;
  ASSERT_EQ(CollideCapsuleCapsule(kCapsule, Pose(shift, r * AlongX()), kCapsule,
                                  Pose(shift + r * Vec3(0.5, 0.95, 0), r * AlongX()), 0.0, &m),
            2);
  ExpectHasPoint(m, shift + r * Vec3(-0.5, 0.475, 0), r * Vec3::UnitY(), -0.05, 1e-9);
  ExpectHasPoint(m, shift + r * Vec3(1.0, 0.475, 0), r * Vec3::UnitY(), -0.05, 1e-9);
}

TEST(CapsuleCapsuleTest, SwappedOrderFlipsNormal) {
  ContactManifold ab, ba;
  const Transform pa = Pose(Vec3::Zero(), AlongX());
  const Transform pb = Pose(Vec3(0.3, 0.9, -0.2), AlongZ());
  ASSERT_EQ(Collide(kCapsule, pa, kCapsule, pb, 0.0, &ab), 1);
  ASSERT_EQ(Collide(kCapsule, pb, kCapsule, pa, 0.0, &ba), 1);
  EXPECT_LT((ab.points[0].normal - Vec3::UnitY()).norm(), 1e-12);
  EXPECT_LT((ba.points[0].normal + Vec3::UnitY()).norm(), 1e-12);
  EXPECT_LT((ab.points[0].position - ba.points[0].position).norm(), 1e-12);
}

}  // namespace
}  // namespace ligature

namespace ligature {
namespace {

using collision_testing::AlternatingProjectionDistance;
using collision_testing::ProjectOntoSegment;

// Random poses near contact: the deepest reported distance equals the reference distance
// between the segments minus both radii, and nothing is reported beyond the margin.
TEST(CapsuleCapsuleTest, RandomPosesAgreeWithReferenceDistance) {
  std::mt19937 rng(41);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const Shape a = Shape::Capsule(0.3, 0.6);
  const Shape b = Shape::Capsule(0.2, 0.9);
  const double margin = 0.2;
  int checked = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const Transform pa = Pose(Vec3::Zero(), Quat(u(rng), u(rng), u(rng), u(rng)).normalized());
    const Transform pb =
        Pose(1.5 * Vec3(u(rng), u(rng), u(rng)), Quat(u(rng), u(rng), u(rng), u(rng)).normalized());
    const Vec3 p0 = pa.Apply(Vec3(0, -0.6, 0)), p1 = pa.Apply(Vec3(0, 0.6, 0));
    const Vec3 q0 = pb.Apply(Vec3(0, -0.9, 0)), q1 = pb.Apply(Vec3(0, 0.9, 0));
    const double between = AlternatingProjectionDistance(
        [&](const Vec3& p) { return ProjectOntoSegment(p, p0, p1); },
        [&](const Vec3& p) { return ProjectOntoSegment(p, q0, q1); }, pb.position);
    const double expected = between - 0.5;
    ContactManifold m;
    const int n = CollideCapsuleCapsule(a, pa, b, pb, margin, &m);
    ExpectWellFormed(m, margin);
    if (expected < margin - 1e-6) {
      ASSERT_GT(n, 0) << "trial " << trial;
      EXPECT_NEAR(MinDistance(m), expected, 1e-6) << "trial " << trial;
      ++checked;
    } else if (expected > margin + 1e-6) {
      EXPECT_EQ(n, 0) << "trial " << trial;
    }
  }
  EXPECT_GT(checked, 40);
}

}  // namespace
}  // namespace ligature
