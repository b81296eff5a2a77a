#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
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
using collision_testing::Pose;

const Shape kSlab = Shape::Box(Vec3(2, 0.5, 1));
const Shape kCube = Shape::Box(Vec3(1, 1, 1));
const Shape kCapsule = Shape::Capsule(0.25, 0.75);

TEST(BoxCapsuleTest, CapsuleFlatOnFaceGivesTwoPoints) {
  ContactManifold m;
  ASSERT_EQ(CollideBoxCapsule(kSlab, Pose(Vec3::Zero()), kCapsule,
                              Pose(Vec3(0.2, 0.74, 0.1), AlongX()), 0.0, &m),
            2);
  ExpectHasPoint(m, Vec3(-0.55, 0.495, 0.1), Vec3::UnitY(), -0.01);
  ExpectHasPoint(m, Vec3(0.95, 0.495, 0.1), Vec3::UnitY(), -0.01);
}

TEST(BoxCapsuleTest, CapsuleOverhangingEdgeIsClippedToFace) {
  ContactManifold m;
  ASSERT_EQ(CollideBoxCapsule(kSlab, Pose(Vec3::Zero()), kCapsule,
                              Pose(Vec3(1.8, 0.74, 0), AlongX()), 0.0, &m),
            2);
  ExpectHasPoint(m, Vec3(1.05, 0.495, 0), Vec3::UnitY(), -0.01);
  ExpectHasPoint(m, Vec3(2.0, 0.495, 0), Vec3::UnitY(), -0.01);
}

TEST(BoxCapsuleTest, UprightCapsuleGivesOnePoint) {
  ContactManifold m;
  ASSERT_EQ(CollideBoxCapsule(kSlab, Pose(Vec3::Zero()), kCapsule,
                              Pose(Vec3(0.5, 0.5 + 0.25 + 0.75 - 0.01, -0.3)), 0.05, &m),
            1);
  ExpectHasPoint(m, Vec3(0.5, 0.495, -0.3), Vec3::UnitY(), -0.01);
}

TEST(BoxCapsuleTest, SlightlyTiltedCapsuleEndsHaveOwnDepths) {
  // Axis 10 degrees above horizontal; the lower end sphere sinks 0.01 into the top face.
  const double s = std::sin(10 * std::numbers::pi / 180), c = std::cos(10 * std::numbers::pi / 180);
  const Quat q = AxisAngleDeg(Vec3::UnitZ(), -80);  // local Y -> (c, s, 0)
  const double centre_y = 0.74 + 0.75 * s;
  const Transform pose = Pose(Vec3(0, centre_y, 0), q);
  ContactManifold m;
  ASSERT_EQ(CollideBoxCapsule(kSlab, Pose(Vec3::Zero()), kCapsule, pose, 0.5, &m), 2);
  const double high = 0.74 + 1.5 * s;  // upper end centre height
  ExpectHasPoint(m, Vec3(-0.75 * c, 0.495, 0), Vec3::UnitY(), -0.01, 1e-9);
  ExpectHasPoint(m, Vec3(0.75 * c, 0.5 * (0.5 + high - 0.25), 0), Vec3::UnitY(), high - 0.25 - 0.5,
                 1e-9);
  // A tight margin keeps only the lower end.
  EXPECT_EQ(CollideBoxCapsule(kSlab, Pose(Vec3::Zero()), kCapsule, pose, 0.05, &m), 1);
}

TEST(BoxCapsuleTest, CapsuleAlongEdgeGivesDiagonalNormal) {
  // Capsule parallel to the cube's top +X edge, 0.2 out along the diagonal.
  const Vec3 n = Vec3(1, 1, 0).normalized();
  ContactManifold m;
  ASSERT_EQ(CollideBoxCapsule(kCube, Pose(Vec3::Zero()), kCapsule,
                              Pose(Vec3(1, 1, 0) + 0.2 * n, AlongZ()), 0.0, &m),
            1);
  ExpectWellFormed(m, 0.0);
  EXPECT_LT((m.points[0].normal - n).norm(), 1e-9);
  EXPECT_NEAR(m.points[0].distance, -0.05, 1e-9);
  EXPECT_NEAR((m.points[0].position - Vec3(1, 1, 0)).dot(n), -0.025, 1e-9);
}

TEST(BoxCapsuleTest, CapsuleAcrossCornerGivesOnePoint) {
  // End sphere of an upright capsule just above the cube's (1, 1, 1) corner, off-diagonal.
  ContactManifold m;
  ASSERT_EQ(CollideBoxCapsule(kCube, Pose(Vec3::Zero()), kCapsule,
                              Pose(Vec3(1.1, 1.0 + 0.1 + 0.75, 1.1)), 0.0, &m),
            1);
  const Vec3 n = Vec3(0.1, 0.1, 0.1).normalized();
  ExpectHasPoint(m, 0.5 * (Vec3(1, 1, 1) + Vec3(1.1, 1.1, 1.1) - 0.25 * n), n,
                 std::sqrt(0.03) - 0.25, 1e-9);
}

TEST(BoxCapsuleTest, RotatedPoseMatchesAxisAligned) {
  const Quat r = AxisAngleDeg(Vec3(2, -1, 1), 65);
  const Vec3 shift(1, 2, -3);
  ContactManifold m;
  ASSERT_EQ(CollideBoxCapsule(kSlab, Pose(shift, r), kCapsule,
                              Pose(shift + r * Vec3(0.2, 0.74, 0.1), r * AlongX()), 0.0, &m),
            2);
  ExpectHasPoint(m, shift + r * Vec3(-0.55, 0.495, 0.1), r * Vec3::UnitY(), -0.01, 1e-9);
  ExpectHasPoint(m, shift + r * Vec3(0.95, 0.495, 0.1), r * Vec3::UnitY(), -0.01, 1e-9);
}

TEST(BoxCapsuleTest, Margin) {
  const Transform pose = Pose(Vec3(0.2, 0.78, 0.1), AlongX());
  ContactManifold m;
  ASSERT_EQ(CollideBoxCapsule(kSlab, Pose(Vec3::Zero()), kCapsule, pose, 0.05, &m), 2);
  for (int i = 0; i < 2; ++i) EXPECT_NEAR(m.points[i].distance, 0.03, 1e-12);
  EXPECT_EQ(CollideBoxCapsule(kSlab, Pose(Vec3::Zero()), kCapsule, pose, 0.02, &m), 0);
}

TEST(BoxCapsuleTest, SegmentInsideBelowTopFaceIsDeep) {
  // The segment itself is 0.1 below the top face: depth 0.1 + radius.
  ContactManifold m;
  ASSERT_EQ(CollideBoxCapsule(kCube, Pose(Vec3::Zero()), Shape::Capsule(0.25, 0.5),
                              Pose(Vec3(0, 0.9, 0.2), AlongX()), 0.0, &m),
            2);
  ExpectHasPoint(m, Vec3(-0.5, 0.5 * (1.0 + 0.65), 0.2), Vec3::UnitY(), -0.35);
  ExpectHasPoint(m, Vec3(0.5, 0.5 * (1.0 + 0.65), 0.2), Vec3::UnitY(), -0.35);
}

TEST(BoxCapsuleTest, SegmentPiercingSideIsClippedToFace) {
  // Segment x in [-0.2, 1.8] at y = 0.3: least penetration is out through the top face,
  // and only the part above the face (x <= 1) gives points.
  ContactManifold m;
  ASSERT_EQ(CollideBoxCapsule(kCube, Pose(Vec3::Zero()), Shape::Capsule(0.1, 1.0),
                              Pose(Vec3(0.8, 0.3, 0), AlongX()), 0.0, &m),
            2);
  ExpectHasPoint(m, Vec3(-0.2, 0.6, 0), Vec3::UnitY(), -0.8);
  ExpectHasPoint(m, Vec3(1.0, 0.6, 0), Vec3::UnitY(), -0.8);
}

TEST(BoxCapsuleTest, SegmentCuttingEdgeUsesEdgeAxis) {
  // Segment along (1, -1, 0) cutting 0.1 inside the top +X edge of the cube.
  const Vec3 n = Vec3(1, 1, 0).normalized();
  const Quat q = Quat::FromTwoVectors(Vec3::UnitY(), Vec3(1, -1, 0));
  ContactManifold m;
  ASSERT_EQ(CollideBoxCapsule(kCube, Pose(Vec3::Zero()), Shape::Capsule(0.2, 0.5),
                              Pose(Vec3(1, 1, 0.3) - 0.1 * n, q), 0.0, &m),
            1);
  ExpectHasPoint(m, Vec3(1, 1, 0.3) - 0.15 * n, n, -0.3, 1e-9);
}

TEST(BoxCapsuleTest, SegmentThroughCentreIsFinite) {
  ContactManifold m;
  ASSERT_GE(CollideBoxCapsule(kCube, Pose(Vec3(1, 1, 1)), kCapsule, Pose(Vec3(1, 1, 1)), 0.0, &m),
            1);
  ExpectWellFormed(m, 0.0);
  ContactManifold ball;
  ASSERT_EQ(CollideBoxCapsule(kCube, Pose(Vec3::Zero()), Shape::Capsule(0.25, 0.0),
                              Pose(Vec3::Zero()), 0.0, &ball),
            1);
  ExpectWellFormed(ball, 0.0);
  EXPECT_NEAR(ball.points[0].distance, -1.25, 1e-12);
}

TEST(BoxCapsuleTest, SwappedOrderFlipsNormals) {
  const Transform box = Pose(Vec3::Zero(), AxisAngleDeg(Vec3::UnitY(), 20));
  const Transform cap = Pose(Vec3(0.2, 0.74, 0.1), AxisAngleDeg(Vec3::UnitY(), 20) * AlongX());
  ContactManifold bc, cb;
  ASSERT_EQ(Collide(kSlab, box, kCapsule, cap, 0.0, &bc), 2);
  ASSERT_EQ(Collide(kCapsule, cap, kSlab, box, 0.0, &cb), 2);
  for (int i = 0; i < 2; ++i) {
    EXPECT_LT((bc.points[i].normal - Vec3::UnitY()).norm(), 1e-9);
    EXPECT_LT((cb.points[i].normal + Vec3::UnitY()).norm(), 1e-9);
    EXPECT_LT((bc.points[i].position - cb.points[i].position).norm(), 1e-12);
    EXPECT_EQ(bc.points[i].distance, cb.points[i].distance);
  }
}

}  // namespace
}  // namespace ligature

namespace ligature {
namespace {

using collision_testing::AlternatingProjectionDistance;
using collision_testing::MinDistance;
using collision_testing::ProjectOntoBox;
using collision_testing::ProjectOntoSegment;

// Random poses near contact: the deepest reported distance equals the reference distance
// between the capsule's segment and the box minus the radius whenever the segment is outside
// the box, and is negative whenever it is inside.
TEST(BoxCapsuleTest, RandomPosesAgreeWithReferenceDistance) {
  std::mt19937 rng(31);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const Shape box = Shape::Box(Vec3(0.7, 0.4, 0.5));
  const Shape capsule = Shape::Capsule(0.3, 0.6);
  const double margin = 0.2;
  int checked = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const Transform pa = Pose(Vec3::Zero(), Quat(u(rng), u(rng), u(rng), u(rng)).normalized());
    const Transform pb =
        Pose(1.6 * Vec3(u(rng), u(rng), u(rng)), Quat(u(rng), u(rng), u(rng), u(rng)).normalized());
    const Vec3 s0 = pb.Apply(Vec3(0, -0.6, 0));
    const Vec3 s1 = pb.Apply(Vec3(0, 0.6, 0));
    const double seg_to_box = AlternatingProjectionDistance(
        [&](const Vec3& p) { return ProjectOntoBox(p, box.half_extents, pa); },
        [&](const Vec3& p) { return ProjectOntoSegment(p, s0, s1); }, pb.position);
    ContactManifold m;
    const int n = CollideBoxCapsule(box, pa, capsule, pb, margin, &m);
    ExpectWellFormed(m, margin);
    const double expected = seg_to_box - capsule.radius;
    if (seg_to_box < 1e-6) {
      ASSERT_GT(n, 0) << "trial " << trial;
      EXPECT_LT(MinDistance(m), -capsule.radius + 1e-6) << "trial " << trial;
    } else if (expected < margin - 1e-6) {
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
