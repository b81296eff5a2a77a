#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "server/collision/narrowphase.h"
#include "server/collision/pairs/geometry.h"
#include "server/collision/pairs/pair_functions.h"
#include "tests/unit/collision/collision_test_util.h"

namespace ligature {
namespace {

using collision_testing::AlongX;
using collision_testing::AxisAngleDeg;
using collision_testing::ExpectHasPoint;
using collision_testing::ExpectWellFormed;
using collision_testing::Pose;

const Shape kPlane = Shape::Plane();
const Transform kGround = Pose(Vec3::Zero());

// ---- sphere-plane ----

TEST(SpherePlaneTest, RestingSphere) {
  ContactManifold m;
  ASSERT_EQ(
      CollideSpherePlane(Shape::Sphere(1.0), Pose(Vec3(3, 0.8, -2)), kPlane, kGround, 0.0, &m), 1);
  ExpectHasPoint(m, Vec3(3, -0.1, -2), -Vec3::UnitY(), -0.2);
}

TEST(SpherePlaneTest, CentreBelowPlaneIsDeep) {
  ContactManifold m;
  ASSERT_EQ(CollideSpherePlane(Shape::Sphere(1.0), Pose(Vec3(0, -2, 0)), kPlane, kGround, 0.0, &m),
            1);
  EXPECT_NEAR(m.points[0].distance, -3.0, 1e-12);
  EXPECT_LT((m.points[0].normal + Vec3::UnitY()).norm(), 1e-12);
}

TEST(SpherePlaneTest, TiltedOffsetPlaneAndMargin) {
  const Transform plane = Pose(Vec3(0, 1, 0), AxisAngleDeg(Vec3::UnitZ(), 30));
  const Vec3 up = plane.Rotate(Vec3::UnitY());
  const Transform sphere = Pose(Vec3(0, 1, 0) + 1.5 * up + Vec3(0, 0, 4));
  ContactManifold m;
  ASSERT_EQ(CollideSpherePlane(Shape::Sphere(1.0), sphere, kPlane, plane, 1.0, &m), 1);
  ExpectHasPoint(m, sphere.position - 1.25 * up, -up, 0.5);
  EXPECT_EQ(CollideSpherePlane(Shape::Sphere(1.0), sphere, kPlane, plane, 0.4, &m), 0);
}

TEST(SpherePlaneTest, SwappedOrderFlipsNormal) {
  ContactManifold m;
  ASSERT_EQ(Collide(kPlane, kGround, Shape::Sphere(1.0), Pose(Vec3(3, 0.8, -2)), 0.0, &m), 1);
  ExpectHasPoint(m, Vec3(3, -0.1, -2), Vec3::UnitY(), -0.2);
}

// ---- box-plane ----

TEST(BoxPlaneTest, RestingBoxGivesFourCorners) {
  ContactManifold m;
  ASSERT_EQ(CollideBoxPlane(Shape::Box(Vec3(1, 0.5, 2)), Pose(Vec3(5, 0.49, 0)), kPlane, kGround,
                            0.02, &m),
            4);
  for (double x : {4.0, 6.0}) {
    for (double z : {-2.0, 2.0}) ExpectHasPoint(m, Vec3(x, -0.005, z), -Vec3::UnitY(), -0.01);
  }
}

TEST(BoxPlaneTest, EdgeDownGivesTwo) {
  ContactManifold m;
  const double low = std::sqrt(2.0);
  ASSERT_EQ(CollideBoxPlane(Shape::Box(Vec3(1, 1, 1)),
                            Pose(Vec3(0, low - 0.05, 0), AxisAngleDeg(Vec3::UnitZ(), 45)), kPlane,
                            kGround, 0.01, &m),
            2);
  ExpectHasPoint(m, Vec3(0, -0.025, 1), -Vec3::UnitY(), -0.05);
  ExpectHasPoint(m, Vec3(0, -0.025, -1), -Vec3::UnitY(), -0.05);
}

TEST(BoxPlaneTest, CornerDownGivesOne) {
  // Turn the (1, 1, 1) diagonal onto -Y so one corner points straight down.
  const Quat q = Quat::FromTwoVectors(Vec3(1, 1, 1), -Vec3::UnitY());
  ContactManifold m;
  ASSERT_EQ(CollideBoxPlane(Shape::Box(Vec3(1, 1, 1)), Pose(Vec3(0, std::sqrt(3.0) - 0.1, 0), q),
                            kPlane, kGround, 0.05, &m),
            1);
  ExpectHasPoint(m, Vec3(0, -0.05, 0), -Vec3::UnitY(), -0.1, 1e-9);
}

TEST(BoxPlaneTest, DeepBoxKeepsFourDeepest) {
  const Shape box = Shape::Box(Vec3(1, 1, 1));
  const Transform pose = Pose(Vec3(0, -3, 0), AxisAngleDeg(Vec3(1, 0, 0.3), 12));
  ContactManifold m;
  ASSERT_EQ(CollideBoxPlane(box, pose, kPlane, kGround, 0.0, &m), 4);
  std::vector<double> heights;
  for (const Vec3& c : BoxCorners(box, pose)) heights.push_back(c.y());
  std::sort(heights.begin(), heights.end());
  std::vector<double> got;
  for (int i = 0; i < m.count; ++i) got.push_back(m.points[i].distance);
  std::sort(got.begin(), got.end());
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(got[i], heights[i], 1e-12);
}

TEST(BoxPlaneTest, Margin) {
  const Shape box = Shape::Box(Vec3(0.5, 0.5, 0.5));
  ContactManifold m;
  ASSERT_EQ(CollideBoxPlane(box, Pose(Vec3(0, 0.52, 0)), kPlane, kGround, 0.05, &m), 4);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(m.points[i].distance, 0.02, 1e-12);
  EXPECT_EQ(CollideBoxPlane(box, Pose(Vec3(0, 0.52, 0)), kPlane, kGround, 0.01, &m), 0);
}

TEST(BoxPlaneTest, TiltedPlaneWithMatchingBox) {
  const Quat q = AxisAngleDeg(Vec3::UnitX(), 20);
  const Transform plane = Pose(Vec3(1, 2, 3), q);
  const Vec3 up = plane.Rotate(Vec3::UnitY());
  const Transform pose = Pose(Vec3(1, 2, 3) + 0.49 * up, q);
  ContactManifold m;
  ASSERT_EQ(CollideBoxPlane(Shape::Box(Vec3(1, 0.5, 1)), pose, kPlane, plane, 0.0, &m), 4);
  ExpectWellFormed(m, 0.0);
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(m.points[i].distance, -0.01, 1e-12);
    EXPECT_LT((m.points[i].normal + up).norm(), 1e-12);
  }
  ExpectHasPoint(m, pose.Apply(Vec3(1, -0.5, 1)) + 0.005 * up, -up, -0.01);
}

TEST(BoxPlaneTest, SwappedOrderFlipsNormal) {
  ContactManifold m;
  ASSERT_EQ(Collide(kPlane, kGround, Shape::Box(Vec3(1, 0.5, 2)), Pose(Vec3(5, 0.49, 0)), 0.0, &m),
            4);
  for (int i = 0; i < 4; ++i) EXPECT_LT((m.points[i].normal - Vec3::UnitY()).norm(), 1e-12);
}

// ---- capsule-plane ----

const Shape kCapsule = Shape::Capsule(0.5, 1.0);

TEST(CapsulePlaneTest, FlatCapsuleGivesTwo) {
  ContactManifold m;
  ASSERT_EQ(
      CollideCapsulePlane(kCapsule, Pose(Vec3(0, 0.45, 2), AlongX()), kPlane, kGround, 0.0, &m), 2);
  ExpectHasPoint(m, Vec3(-1, -0.025, 2), -Vec3::UnitY(), -0.05);
  ExpectHasPoint(m, Vec3(1, -0.025, 2), -Vec3::UnitY(), -0.05);
}

TEST(CapsulePlaneTest, UprightCapsuleGivesOne) {
  ContactManifold m;
  ASSERT_EQ(CollideCapsulePlane(kCapsule, Pose(Vec3(0, 1.4, 0)), kPlane, kGround, 0.1, &m), 1);
  ExpectHasPoint(m, Vec3(0, -0.05, 0), -Vec3::UnitY(), -0.1);
}

TEST(CapsulePlaneTest, TiltedCapsuleEndsHaveOwnDepths) {
  // Axis 30 degrees from horizontal: ends at heights y +/- 0.5.
  const Quat q = AxisAngleDeg(Vec3::UnitZ(), -60);
  ContactManifold m;
  ASSERT_EQ(CollideCapsulePlane(kCapsule, Pose(Vec3(0, 0.9, 0), q), kPlane, kGround, 1.0, &m), 2);
  const double c = std::cos(std::numbers::pi / 6);
  ExpectHasPoint(m, Vec3(-c, -0.05, 0), -Vec3::UnitY(), -0.1);
  ExpectHasPoint(m, Vec3(c, 0.45, 0), -Vec3::UnitY(), 0.9);
  EXPECT_EQ(CollideCapsulePlane(kCapsule, Pose(Vec3(0, 0.9, 0), q), kPlane, kGround, 0.5, &m), 1);
}

TEST(CapsulePlaneTest, ZeroLengthCapsuleGivesOne) {
  ContactManifold m;
  ASSERT_EQ(CollideCapsulePlane(Shape::Capsule(0.5, 0.0), Pose(Vec3(0, 0.4, 0)), kPlane, kGround,
                                0.0, &m),
            1);
  EXPECT_NEAR(m.points[0].distance, -0.1, 1e-12);
}

TEST(CapsulePlaneTest, MarginAndSwap) {
  const Transform pose = Pose(Vec3(0, 0.53, 0), AlongX());
  ContactManifold m;
  ASSERT_EQ(Collide(kPlane, kGround, kCapsule, pose, 0.05, &m), 2);
  for (int i = 0; i < 2; ++i) {
    EXPECT_NEAR(m.points[i].distance, 0.03, 1e-12);
    EXPECT_LT((m.points[i].normal - Vec3::UnitY()).norm(), 1e-12);
  }
  EXPECT_EQ(Collide(kPlane, kGround, kCapsule, pose, 0.02, &m), 0);
}

// ---- plane-plane ----

TEST(PlanePlaneTest, NothingEvenWhenCrossing) {
  ContactManifold m;
  m.count = 3;
  EXPECT_EQ(CollideFixedShapes(kPlane, kGround, kPlane,
                               Pose(Vec3::Zero(), AxisAngleDeg(Vec3::UnitX(), 90)), 1.0, &m),
            0);
  EXPECT_EQ(m.count, 0);
  EXPECT_EQ(Collide(kPlane, kGround, kPlane, kGround, 1.0, &m), 0);
}

}  // namespace
}  // namespace ligature
