#include <gtest/gtest.h>

#include <cmath>

#include "server/collision/narrowphase.h"
#include "server/collision/pairs/pair_functions.h"
#include "tests/unit/collision/collision_test_util.h"

namespace ligature {
namespace {

using collision_testing::AlongX;
using collision_testing::AxisAngleDeg;
using collision_testing::ExpectHasPoint;
using collision_testing::ExpectWellFormed;
using collision_testing::Pose;

// ---- sphere-sphere ----

TEST(SphereSphereTest, OverlapAlongX) {
  ContactManifold m;
  ASSERT_EQ(CollideSphereSphere(Shape::Sphere(1.0), Pose(Vec3::Zero()), Shape::Sphere(0.5),
                                Pose(Vec3(1.2, 0, 0)), 0.0, &m),
            1);
  // Surface points (1, 0, 0) on A and (0.7, 0, 0) on B.
  ExpectHasPoint(m, Vec3(0.85, 0, 0), Vec3::UnitX(), -0.3);
}

TEST(SphereSphereTest, SeparatedWithinMarginIsReported) {
  ContactManifold m;
  ASSERT_EQ(CollideSphereSphere(Shape::Sphere(1.0), Pose(Vec3(1, 1, 1)), Shape::Sphere(0.5),
                                Pose(Vec3(1, 1, 3)), 0.6, &m),
            1);
  ExpectHasPoint(m, Vec3(1, 1, 2.25), Vec3::UnitZ(), 0.5);
}

TEST(SphereSphereTest, SeparatedBeyondMarginIsNothing) {
  ContactManifold m;
  EXPECT_EQ(CollideSphereSphere(Shape::Sphere(1.0), Pose(Vec3::Zero()), Shape::Sphere(0.5),
                                Pose(Vec3(0, 2, 0)), 0.4, &m),
            0);
  EXPECT_EQ(m.count, 0);
  // Exactly at the margin is not "below" it.
  EXPECT_EQ(CollideSphereSphere(Shape::Sphere(1.0), Pose(Vec3::Zero()), Shape::Sphere(0.5),
                                Pose(Vec3(0, 2, 0)), 0.5, &m),
            0);
}

TEST(SphereSphereTest, CoincidentCentresGiveUnitNormal) {
  ContactManifold m;
  ASSERT_EQ(CollideSphereSphere(Shape::Sphere(1.0), Pose(Vec3(2, 2, 2)), Shape::Sphere(0.5),
                                Pose(Vec3(2, 2, 2)), 0.0, &m),
            1);
  ExpectWellFormed(m, 0.0);
  EXPECT_NEAR(m.points[0].distance, -1.5, 1e-12);
}

TEST(SphereSphereTest, SwappedOrderFlipsNormal) {
  ContactManifold ab, ba;
  const Transform pa = Pose(Vec3(0, 0, 0));
  const Transform pb = Pose(Vec3(0.6, 0.8, 0));
  ASSERT_EQ(Collide(Shape::Sphere(0.5), pa, Shape::Sphere(0.6), pb, 0.0, &ab), 1);
  ASSERT_EQ(Collide(Shape::Sphere(0.6), pb, Shape::Sphere(0.5), pa, 0.0, &ba), 1);
  EXPECT_LT((ab.points[0].normal - Vec3(0.6, 0.8, 0)).norm(), 1e-12);
  EXPECT_LT((ba.points[0].normal - Vec3(-0.6, -0.8, 0)).norm(), 1e-12);
  EXPECT_NEAR(ab.points[0].distance, -0.1, 1e-12);
  EXPECT_NEAR(ba.points[0].distance, -0.1, 1e-12);
}

// ---- sphere-box (sphere is A) ----

const Shape kUnitBox = Shape::Box(Vec3(1, 1, 1));

TEST(SphereBoxTest, SphereOnTopFace) {
  ContactManifold m;
  ASSERT_EQ(CollideSphereBox(Shape::Sphere(0.5), Pose(Vec3(0.3, 1.4, -0.2)), kUnitBox,
                             Pose(Vec3::Zero()), 0.0, &m),
            1);
  // Sphere bottom at y = 0.9, box top at y = 1: normal from sphere down into the box.
  ExpectHasPoint(m, Vec3(0.3, 0.95, -0.2), -Vec3::UnitY(), -0.1);
}

TEST(SphereBoxTest, SphereNearCorner) {
  ContactManifold m;
  ASSERT_EQ(CollideSphereBox(Shape::Sphere(1.0), Pose(Vec3(1.5, 1.5, 1.5)), kUnitBox,
                             Pose(Vec3::Zero()), 0.0, &m),
            1);
  const Vec3 n = -Vec3(1, 1, 1).normalized();
  const double gap = std::sqrt(3.0) * 0.5;
  const Vec3 on_sphere = Vec3(1.5, 1.5, 1.5) + n;
  ExpectHasPoint(m, 0.5 * (on_sphere + Vec3(1, 1, 1)), n, gap - 1.0);
}

TEST(SphereBoxTest, SphereNearEdge) {
  // Closest box point is on the edge x = 1, z = 1 at y = 0.2, at a gap of 0.5.
  ContactManifold m;
  ASSERT_EQ(CollideSphereBox(Shape::Sphere(0.6), Pose(Vec3(1.3, 0.2, 1.4)), kUnitBox,
                             Pose(Vec3::Zero()), 0.0, &m),
            1);
  const Vec3 n = -Vec3(0.3, 0, 0.4) / 0.5;
  ExpectHasPoint(m, 0.5 * (Vec3(1.3, 0.2, 1.4) + 0.6 * n + Vec3(1, 0.2, 1)), n, -0.1);
}

TEST(SphereBoxTest, CentreInsideBoxUsesNearestFace) {
  ContactManifold m;
  ASSERT_EQ(CollideSphereBox(Shape::Sphere(0.5), Pose(Vec3(0.1, 0.8, -0.3)), kUnitBox,
                             Pose(Vec3::Zero()), 0.0, &m),
            1);
  // 0.2 below the top face: it must travel 0.2 + 0.5 up to separate.
  ExpectHasPoint(m, 0.5 * (Vec3(0.1, 1.0, -0.3) + Vec3(0.1, 0.3, -0.3)), -Vec3::UnitY(), -0.7);
}

TEST(SphereBoxTest, CentreAtBoxCentreIsFinite) {
  ContactManifold m;
  ASSERT_EQ(CollideSphereBox(Shape::Sphere(0.5), Pose(Vec3(4, 5, 6)), Shape::Box(Vec3(1, 2, 3)),
                             Pose(Vec3(4, 5, 6)), 0.0, &m),
            1);
  ExpectWellFormed(m, 0.0);
  EXPECT_NEAR(m.points[0].distance, -1.5, 1e-12);  // out through the thinnest (x) face
  EXPECT_NEAR(std::abs(m.points[0].normal.x()), 1.0, 1e-12);
}

TEST(SphereBoxTest, RotatedBoxEdgeUp) {
  // Box turned 45 degrees about Z: its top is an edge at y = sqrt(2).
  ContactManifold m;
  const double top = std::sqrt(2.0);
  ASSERT_EQ(CollideSphereBox(Shape::Sphere(0.5), Pose(Vec3(0, top + 0.3, 0.4)), kUnitBox,
                             Pose(Vec3::Zero(), AxisAngleDeg(Vec3::UnitZ(), 45)), 0.0, &m),
            1);
  ExpectHasPoint(m, Vec3(0, top - 0.1, 0.4), -Vec3::UnitY(), -0.2, 1e-9);
}

TEST(SphereBoxTest, Margin) {
  ContactManifold m;
  const Transform sphere = Pose(Vec3(0, 1.7, 0));
  ASSERT_EQ(CollideSphereBox(Shape::Sphere(0.5), sphere, kUnitBox, Pose(Vec3::Zero()), 0.3, &m), 1);
  EXPECT_NEAR(m.points[0].distance, 0.2, 1e-12);
  EXPECT_EQ(CollideSphereBox(Shape::Sphere(0.5), sphere, kUnitBox, Pose(Vec3::Zero()), 0.1, &m), 0);
}

TEST(SphereBoxTest, SwappedOrderFlipsNormal) {
  ContactManifold sb, bs;
  const Transform sphere = Pose(Vec3(0.3, 1.4, -0.2));
  const Transform box = Pose(Vec3::Zero(), AxisAngleDeg(Vec3(1, 2, 0), 10));
  ASSERT_EQ(Collide(Shape::Sphere(0.5), sphere, kUnitBox, box, 0.0, &sb), 1);
  ASSERT_EQ(Collide(kUnitBox, box, Shape::Sphere(0.5), sphere, 0.0, &bs), 1);
  EXPECT_LT((sb.points[0].normal + bs.points[0].normal).norm(), 1e-12);
  EXPECT_LT((sb.points[0].position - bs.points[0].position).norm(), 1e-12);
  EXPECT_EQ(sb.points[0].distance, bs.points[0].distance);
  EXPECT_GT(bs.points[0].normal.y(), 0.9);  // box below pushes the sphere up
}

// ---- sphere-capsule (sphere is A) ----

const Shape kCapsule = Shape::Capsule(0.5, 1.0);

TEST(SphereCapsuleTest, SideOfUprightCapsule) {
  ContactManifold m;
  ASSERT_EQ(CollideSphereCapsule(Shape::Sphere(0.5), Pose(Vec3(0.8, 0.5, 0)), kCapsule,
                                 Pose(Vec3::Zero()), 0.0, &m),
            1);
  ExpectHasPoint(m, Vec3(0.4, 0.5, 0), -Vec3::UnitX(), -0.2);
}

TEST(SphereCapsuleTest, BeyondTheEndWithinMargin) {
  ContactManifold m;
  ASSERT_EQ(CollideSphereCapsule(Shape::Sphere(0.5), Pose(Vec3(0, 2.2, 0)), kCapsule,
                                 Pose(Vec3::Zero()), 0.5, &m),
            1);
  ExpectHasPoint(m, Vec3(0, 1.6, 0), -Vec3::UnitY(), 0.2);
  EXPECT_EQ(CollideSphereCapsule(Shape::Sphere(0.5), Pose(Vec3(0, 2.2, 0)), kCapsule,
                                 Pose(Vec3::Zero()), 0.1, &m),
            0);
}

TEST(SphereCapsuleTest, LyingCapsule) {
  ContactManifold m;
  ASSERT_EQ(CollideSphereCapsule(Shape::Sphere(0.5), Pose(Vec3(0.7, 0.9, 0)), kCapsule,
                                 Pose(Vec3::Zero(), AlongX()), 0.0, &m),
            1);
  ExpectHasPoint(m, Vec3(0.7, 0.45, 0), -Vec3::UnitY(), -0.1);
}

TEST(SphereCapsuleTest, CentreOnSegmentPushesSideways) {
  ContactManifold m;
  ASSERT_EQ(CollideSphereCapsule(Shape::Sphere(0.5), Pose(Vec3(0, 0.3, 0)), kCapsule,
                                 Pose(Vec3::Zero()), 0.0, &m),
            1);
  ExpectWellFormed(m, 0.0);
  EXPECT_NEAR(m.points[0].normal.y(), 0.0, 1e-12);
  EXPECT_NEAR(m.points[0].distance, -1.0, 1e-12);
}

TEST(SphereCapsuleTest, SwappedOrderFlipsNormal) {
  ContactManifold sc, cs;
  const Transform sphere = Pose(Vec3(0.8, 0.5, 0));
  ASSERT_EQ(Collide(Shape::Sphere(0.5), sphere, kCapsule, Pose(Vec3::Zero()), 0.0, &sc), 1);
  ASSERT_EQ(Collide(kCapsule, Pose(Vec3::Zero()), Shape::Sphere(0.5), sphere, 0.0, &cs), 1);
  EXPECT_LT((cs.points[0].normal - Vec3::UnitX()).norm(), 1e-12);
  EXPECT_LT((sc.points[0].position - cs.points[0].position).norm(), 1e-12);
}

}  // namespace
}  // namespace ligature
