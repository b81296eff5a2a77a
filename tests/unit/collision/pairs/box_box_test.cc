#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include "server/collision/narrowphase.h"
#include "server/collision/pairs/pair_functions.h"
#include "tests/unit/collision/collision_test_util.h"

namespace ligature {
namespace {

using collision_testing::AxisAngleDeg;
using collision_testing::ExpectHasPoint;
using collision_testing::ExpectWellFormed;
using collision_testing::MinDistance;
using collision_testing::Pose;

const Shape kCube = Shape::Box(Vec3(1, 1, 1));

TEST(BoxBoxTest, SmallBoxRestingOnLargeGivesFourCorners) {
  ContactManifold m;
  ASSERT_EQ(CollideBoxBox(Shape::Box(Vec3(2, 0.5, 2)), Pose(Vec3::Zero()),
                          Shape::Box(Vec3(0.5, 0.5, 0.5)), Pose(Vec3(0.3, 0.99, -0.2)), 0.0, &m),
            4);
  for (double x : {-0.2, 0.8}) {
    for (double z : {-0.7, 0.3}) ExpectHasPoint(m, Vec3(x, 0.495, z), Vec3::UnitY(), -0.01);
  }
}

TEST(BoxBoxTest, YawedBoxRestingGivesItsRotatedCorners) {
  const Quat yaw = AxisAngleDeg(Vec3::UnitY(), 30);
  const Transform pb = Pose(Vec3(0.3, 0.99, -0.2), yaw);
  ContactManifold m;
  ASSERT_EQ(CollideBoxBox(Shape::Box(Vec3(2, 0.5, 2)), Pose(Vec3::Zero()),
                          Shape::Box(Vec3(0.5, 0.5, 0.5)), pb, 0.0, &m),
            4);
  for (double x : {-0.5, 0.5}) {
    for (double z : {-0.5, 0.5}) {
      const Vec3 corner = pb.Apply(Vec3(x, -0.5, z));
      ExpectHasPoint(m, corner + Vec3(0, 0.005, 0), Vec3::UnitY(), -0.01, 1e-9);
    }
  }
}

TEST(BoxBoxTest, OffsetEqualBoxesGiveOverlapRectangle) {
  ContactManifold m;
  ASSERT_EQ(CollideBoxBox(kCube, Pose(Vec3::Zero()), kCube, Pose(Vec3(1, 1.98, 0.5)), 0.0, &m), 4);
  for (double x : {0.0, 1.0}) {
    for (double z : {-0.5, 1.0}) ExpectHasPoint(m, Vec3(x, 0.99, z), Vec3::UnitY(), -0.02);
  }
}

// B's bottom is a diamond whose clip against A's square is an octagon: reduced to four
// points, all at the same depth, spread over the face.
TEST(BoxBoxTest, OctagonClipReducedToFour) {
  ContactManifold m;
  ASSERT_EQ(
      CollideBoxBox(Shape::Box(Vec3(1, 0.5, 1)), Pose(Vec3::Zero()), Shape::Box(Vec3(1, 0.5, 1)),
                    Pose(Vec3(0, 0.99, 0), AxisAngleDeg(Vec3::UnitY(), 45)), 0.0, &m),
      4);
  ExpectWellFormed(m, 0.0);
  const double r = std::sqrt(2.0) - 1.0;  // octagon vertices are (+/-1, +/-r), (+/-r, +/-1)
  for (int i = 0; i < 4; ++i) {
    const Vec3& p = m.points[i].position;
    EXPECT_NEAR(m.points[i].distance, -0.01, 1e-12);
    EXPECT_NEAR(p.y(), 0.495, 1e-12);
    const double a = std::abs(p.x()), b = std::abs(p.z());
    EXPECT_NEAR(std::max(a, b), 1.0, 1e-9);
    EXPECT_NEAR(std::min(a, b), r, 1e-9);
  }
  // Spread: the four kept points enclose most of the octagon (area 4 - 4 (3 - 2 sqrt 2)).
  const Vec3 d1 = m.points[1].position - m.points[0].position;
  const Vec3 d2 = m.points[3].position - m.points[2].position;
  const double quad_area = 0.5 * std::abs(d1.cross(d2).y());
  EXPECT_GT(quad_area, 2.0);
}

TEST(BoxBoxTest, TiltedBoxTouchesWithOneEdge) {
  // B tilted 5 degrees about Z: only its two lower bottom corners are within the margin.
  const Quat tilt = AxisAngleDeg(Vec3::UnitZ(), 5);
  const double s = std::sin(5 * std::numbers::pi / 180), c = std::cos(5 * std::numbers::pi / 180);
  // Lowest corners are (-0.5, -0.5, z) rotated: y = -0.5 s - 0.5 c relative to the centre.
  const double centre_y = 0.5 + 0.5 * s + 0.5 * c - 0.01;
  const Transform pb = Pose(Vec3(0, centre_y, 0), tilt);
  ContactManifold m;
  ASSERT_EQ(CollideBoxBox(Shape::Box(Vec3(2, 0.5, 2)), Pose(Vec3::Zero()),
                          Shape::Box(Vec3(0.5, 0.5, 0.5)), pb, 0.02, &m),
            2);
  for (double z : {-0.5, 0.5}) {
    const Vec3 corner = pb.Apply(Vec3(-0.5, -0.5, z));
    ExpectHasPoint(m, corner + Vec3(0, 0.005, 0), Vec3::UnitY(), -0.01, 1e-9);
  }
  // A margin large enough to include the raised edge gives all four.
  EXPECT_EQ(CollideBoxBox(Shape::Box(Vec3(2, 0.5, 2)), Pose(Vec3::Zero()),
                          Shape::Box(Vec3(0.5, 0.5, 0.5)), pb, 0.2, &m),
            4);
}

TEST(BoxBoxTest, EdgeOnEdgeGivesOnePoint) {
  // A's top is an edge along Z at y = sqrt 2; B's bottom an edge along X.
  const double r2 = std::sqrt(2.0);
  ContactManifold m;
  ASSERT_EQ(
      CollideBoxBox(kCube, Pose(Vec3::Zero(), AxisAngleDeg(Vec3::UnitZ(), 45)), kCube,
                    Pose(Vec3(0, 2 * r2 - 0.02, 0), AxisAngleDeg(Vec3::UnitX(), 45)), 0.0, &m),
      1);
  ExpectHasPoint(m, Vec3(0, r2 - 0.01, 0), Vec3::UnitY(), -0.02, 1e-9);
}

TEST(BoxBoxTest, EdgeOnEdgeSwappedFlipsNormal) {
  const double r2 = std::sqrt(2.0);
  const Transform pa = Pose(Vec3::Zero(), AxisAngleDeg(Vec3::UnitZ(), 45));
  const Transform pb = Pose(Vec3(0.1, 2 * r2 - 0.02, 0.2), AxisAngleDeg(Vec3::UnitX(), 45));
  ContactManifold ab, ba;
  ASSERT_EQ(Collide(kCube, pa, kCube, pb, 0.0, &ab), 1);
  ASSERT_EQ(Collide(kCube, pb, kCube, pa, 0.0, &ba), 1);
  EXPECT_LT((ab.points[0].normal - Vec3::UnitY()).norm(), 1e-9);
  EXPECT_LT((ba.points[0].normal + Vec3::UnitY()).norm(), 1e-9);
  EXPECT_NEAR(ab.points[0].distance, -0.02, 1e-9);
  EXPECT_NEAR(ba.points[0].distance, -0.02, 1e-9);
  EXPECT_LT((ab.points[0].position - Vec3(0, r2 - 0.01, 0.2)).norm(), 1e-9);
  EXPECT_LT((ba.points[0].position - Vec3(0, r2 - 0.01, 0.2)).norm(), 1e-9);
}

TEST(BoxBoxTest, EdgeOnEdgeMargin) {
  const double r2 = std::sqrt(2.0);
  const Transform pa = Pose(Vec3::Zero(), AxisAngleDeg(Vec3::UnitZ(), 45));
  const Transform pb = Pose(Vec3(0, 2 * r2 + 0.03, 0), AxisAngleDeg(Vec3::UnitX(), 45));
  ContactManifold m;
  ASSERT_EQ(CollideBoxBox(kCube, pa, kCube, pb, 0.05, &m), 1);
  ExpectHasPoint(m, Vec3(0, r2 + 0.015, 0), Vec3::UnitY(), 0.03, 1e-9);
  EXPECT_EQ(CollideBoxBox(kCube, pa, kCube, pb, 0.02, &m), 0);
}

TEST(BoxBoxTest, FaceMargin) {
  ContactManifold m;
  ASSERT_EQ(CollideBoxBox(kCube, Pose(Vec3::Zero()), kCube, Pose(Vec3(0, 0, 2.03)), 0.05, &m), 4);
  for (double x : {-1.0, 1.0}) {
    for (double y : {-1.0, 1.0}) ExpectHasPoint(m, Vec3(x, y, 1.015), Vec3::UnitZ(), 0.03);
  }
  EXPECT_EQ(CollideBoxBox(kCube, Pose(Vec3::Zero()), kCube, Pose(Vec3(0, 0, 2.03)), 0.02, &m), 0);
}

TEST(BoxBoxTest, CornerToCornerWithinMarginUsesExactGap) {
  // Every face axis separates by 0.05, but the real gap is corner to corner.
  ContactManifold m;
  ASSERT_EQ(CollideBoxBox(kCube, Pose(Vec3::Zero()), kCube, Pose(Vec3(2.05, 2.05, 2.05)), 0.1, &m),
            1);
  ExpectHasPoint(m, Vec3(1.025, 1.025, 1.025), Vec3(1, 1, 1).normalized(), std::sqrt(3.0) * 0.05,
                 1e-12);
  EXPECT_EQ(CollideBoxBox(kCube, Pose(Vec3::Zero()), kCube, Pose(Vec3(2.05, 2.05, 2.05)), 0.08, &m),
            0);
}

TEST(BoxBoxTest, CoincidentBoxesAreFinite) {
  ContactManifold m;
  const Transform p = Pose(Vec3(1, 2, 3), AxisAngleDeg(Vec3(1, 1, 0), 33));
  ASSERT_EQ(CollideBoxBox(kCube, p, kCube, p, 0.0, &m), 4);
  ExpectWellFormed(m, 0.0);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(m.points[i].distance, -2.0, 1e-9);
}

// The resting configuration carried by one rigid motion: same depths and points, moved.
TEST(BoxBoxTest, RotatedPoseMatchesAxisAligned) {
  const Quat r = AxisAngleDeg(Vec3(-1, 2, 0.5), 70);
  const Vec3 shift(-4, 1, 2);
  auto moved = [&](const Vec3& p) -> Vec3 { return shift + r * p; };
  ContactManifold m;
  ASSERT_EQ(
      CollideBoxBox(Shape::Box(Vec3(2, 0.5, 2)), Pose(shift, r), Shape::Box(Vec3(0.5, 0.5, 0.5)),
                    Pose(moved(Vec3(0.3, 0.99, -0.2)), r), 0.0, &m),
      4);
  for (double x : {-0.2, 0.8}) {
    for (double z : {-0.7, 0.3}) {
      ExpectHasPoint(m, moved(Vec3(x, 0.495, z)), r * Vec3::UnitY(), -0.01, 1e-9);
    }
  }
}

TEST(BoxBoxTest, ReferenceFaceOnBReportsNormalFromAToB) {
  // A small box turned 30 degrees about Z pokes one edge into the -X face of a large box B:
  // B's face is the reference, and A's lower +X edge gives two points.
  const double c = std::cos(std::numbers::pi / 6), s = 0.5;
  const double reach = 0.5 * (c + s);  // A's extent along +X
  const Transform pa = Pose(Vec3(-(reach - 0.01), 0, 0), AxisAngleDeg(Vec3::UnitZ(), 30));
  const Transform pb = Pose(Vec3(0.5, 0, 0));
  const Shape small = Shape::Box(Vec3(0.5, 0.5, 0.5));
  const Shape large = Shape::Box(Vec3(0.5, 3, 3));
  ContactManifold m;
  ASSERT_EQ(CollideBoxBox(small, pa, large, pb, 0.0, &m), 2);
  for (double z : {-0.5, 0.5}) {
    const Vec3 tip = pa.Apply(Vec3(0.5, -0.5, z));
    ASSERT_NEAR(tip.x(), 0.01, 1e-12);
    ExpectHasPoint(m, Vec3(0.005, tip.y(), z), Vec3::UnitX(), -0.01, 1e-9);
  }
  ContactManifold swapped;
  ASSERT_EQ(Collide(large, pb, small, pa, 0.0, &swapped), 2);
  for (double z : {-0.5, 0.5}) {
    const Vec3 tip = pa.Apply(Vec3(0.5, -0.5, z));
    ExpectHasPoint(swapped, Vec3(0.005, tip.y(), z), -Vec3::UnitX(), -0.01, 1e-9);
  }
}

TEST(BoxBoxTest, SeparatedAlongDiagonalIsNothing) {
  ContactManifold m;
  EXPECT_EQ(CollideBoxBox(kCube, Pose(Vec3::Zero()), kCube, Pose(Vec3(2.5, 2.5, 2.5)), 0.1, &m), 0);
  EXPECT_EQ(m.count, 0);
}

TEST(BoxBoxTest, DeepFaceOverlap) {
  ContactManifold m;
  ASSERT_EQ(CollideBoxBox(Shape::Box(Vec3(3, 1, 3)), Pose(Vec3::Zero()), kCube,
                          Pose(Vec3(0, 1.2, 0)), 0.0, &m),
            4);
  EXPECT_NEAR(MinDistance(m), -0.8, 1e-12);
  for (int i = 0; i < 4; ++i) EXPECT_LT((m.points[i].normal - Vec3::UnitY()).norm(), 1e-12);
}

}  // namespace
}  // namespace ligature

namespace ligature {
namespace {

using collision_testing::AlternatingProjectionDistance;
using collision_testing::ProjectOntoBox;

// Random poses near contact, against the reference distance between the boxes: overlapping
// boxes give a non-positive deepest distance, boxes closer than the margin give the exact
// gap as the deepest distance, and boxes farther apart than the margin give nothing.
TEST(BoxBoxTest, RandomPosesAgreeWithReferenceDistance) {
  std::mt19937 rng(53);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const Shape a = Shape::Box(Vec3(0.7, 0.4, 0.5));
  const Shape b = Shape::Box(Vec3(0.3, 0.6, 0.45));
  const double margin = 0.2;
  int overlapping = 0;
  int near = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const Transform pa = Pose(Vec3::Zero(), Quat(u(rng), u(rng), u(rng), u(rng)).normalized());
    const Transform pb =
        Pose(1.6 * Vec3(u(rng), u(rng), u(rng)), Quat(u(rng), u(rng), u(rng), u(rng)).normalized());
    const double between = AlternatingProjectionDistance(
        [&](const Vec3& p) { return ProjectOntoBox(p, a.half_extents, pa); },
        [&](const Vec3& p) { return ProjectOntoBox(p, b.half_extents, pb); }, pb.position);
    ContactManifold m;
    const int n = CollideBoxBox(a, pa, b, pb, margin, &m);
    ExpectWellFormed(m, margin);
    if (between < 1e-7) {
      ASSERT_GT(n, 0) << "trial " << trial;
      EXPECT_LT(MinDistance(m), 1e-6) << "trial " << trial;
      ++overlapping;
    } else if (between < margin - 1e-6) {
      ASSERT_GT(n, 0) << "trial " << trial;
      EXPECT_NEAR(MinDistance(m), between, 1e-6) << "trial " << trial;
      ++near;
    } else if (between > margin + 1e-6) {
      EXPECT_EQ(n, 0) << "trial " << trial;
    }
  }
  EXPECT_GT(overlapping, 40);
  EXPECT_GT(near, 20);
}

}  // namespace
}  // namespace ligature
