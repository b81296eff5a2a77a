#include "server/collision/shape_query.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "server/model/rigid/convex_hull_builder.h"
#include "server/model/rigid/triangle_mesh_builder.h"

namespace ligature {
namespace {

// Casts end within 1e-9 m of the touch; distances are exact up to rounding.
constexpr double kCastTol = 1e-8;
constexpr double kTol = 1e-10;

Transform At(const Vec3& p, const Quat& q = Quat::Identity()) { return Transform{p, q}; }
Quat About(const Vec3& axis, double angle) { return Quat(Eigen::AngleAxisd(angle, axis)); }

// A 2 x 2 m square of two triangles in the XZ plane, facing +Y.
Shape Floor() {
  const std::vector<Vec3> v = {Vec3(-1, 0, -1), Vec3(1, 0, -1), Vec3(1, 0, 1), Vec3(-1, 0, 1)};
  const std::vector<uint32_t> i = {0, 2, 1, 0, 3, 2};
  return Shape::Mesh(*BuildTriangleMesh(v, i));
}

TEST(ShapeQueryTest, SphereSphereDistance) {
  const ConvexCore q = CoreOf(Shape::Sphere(1.0), At(Vec3::Zero()));
  auto r = ShapeDistance(q, Shape::Sphere(0.5), At(Vec3(3, 0, 0)), 10.0);
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(r->overlapping);
  EXPECT_NEAR(r->distance, 1.5, kTol);
  EXPECT_NEAR((r->on_target - Vec3(2.5, 0, 0)).norm(), 0.0, kTol);
  EXPECT_NEAR((r->on_query - Vec3(1, 0, 0)).norm(), 0.0, kTol);
  EXPECT_NEAR((r->normal - Vec3(-1, 0, 0)).norm(), 0.0, kTol);
  // Beyond the limit: none; closer than touching: overlap at 0.
  EXPECT_FALSE(ShapeDistance(q, Shape::Sphere(0.5), At(Vec3(3, 0, 0)), 1.0).has_value());
  auto in = ShapeDistance(q, Shape::Sphere(0.5), At(Vec3(1.2, 0, 0)), 0.0);
  ASSERT_TRUE(in.has_value());
  EXPECT_TRUE(in->overlapping);
  EXPECT_EQ(in->distance, 0.0);
}

// A unit cube tipped 45 degrees about Z stands on its edge: its lowest point is
// sqrt(2)/2 m below its centre.
TEST(ShapeQueryTest, TippedBoxAbovePlane) {
  const ConvexCore q = CoreOf(Shape::Box(Vec3::Constant(0.5)),
                              At(Vec3(0, 2, 0), About(Vec3::UnitZ(), 0.25 * std::numbers::pi)));
  auto r = ShapeDistance(q, Shape::Plane(), At(Vec3::Zero()), 10.0);
  ASSERT_TRUE(r.has_value());
  EXPECT_NEAR(r->distance, 2.0 - std::sqrt(0.5), kTol);
  EXPECT_NEAR(r->on_target.y(), 0.0, kTol);
  EXPECT_NEAR((r->normal - Vec3::UnitY()).norm(), 0.0, kTol);
}

// A sphere of radius 0.5 moving +X meets a 2 m cube's face after 5 - 1 - 0.5 m.
TEST(ShapeQueryTest, SphereCastOntoBoxFace) {
  const ConvexCore q = CoreOf(Shape::Sphere(0.5), At(Vec3(-5, 0.3, 0.2)));
  auto hit = CastShape(q, Vec3::UnitX(), 10.0, Shape::Box(Vec3::Ones()), At(Vec3::Zero()));
  ASSERT_TRUE(hit.has_value());
  EXPECT_NEAR(hit->distance, 3.5, kCastTol);
  EXPECT_NEAR((hit->point - Vec3(-1, 0.3, 0.2)).norm(), 0.0, kCastTol);
  EXPECT_NEAR((hit->normal - Vec3(-1, 0, 0)).norm(), 0.0, 1e-6);
  // Too short a cast, or moving away: no touch.
  EXPECT_FALSE(CastShape(q, Vec3::UnitX(), 3.4, Shape::Box(Vec3::Ones()), At(Vec3::Zero())));
  EXPECT_FALSE(CastShape(q, -Vec3::UnitX(), 10.0, Shape::Box(Vec3::Ones()), At(Vec3::Zero())));
}

// Two spheres on an oblique course: the touch is the smaller root of
// |t d - c| = r1 + r2, t = d.c - sqrt((d.c)^2 - |c|^2 + (r1 + r2)^2).
TEST(ShapeQueryTest, SphereCastOntoSphereObliquely) {
  const Vec3 c(4.0, 0.7, -0.3);
  const Vec3 d = Vec3(1.0, 0.05, 0.02).normalized();
  const double r = 0.4 + 0.6;
  const double expected = d.dot(c) - std::sqrt(d.dot(c) * d.dot(c) - c.squaredNorm() + r * r);
  const ConvexCore q = CoreOf(Shape::Sphere(0.4), At(Vec3::Zero()));
  auto hit = CastShape(q, d, 10.0, Shape::Sphere(0.6), At(c));
  ASSERT_TRUE(hit.has_value());
  EXPECT_NEAR(hit->distance, expected, kCastTol);
  EXPECT_NEAR((hit->point - c).norm(), 0.6, kCastTol);
}

// A unit cube moving +X meets a 2 m cube turned 45 degrees about Y on the edge that points
// at it, sqrt(2) m from that cube's centre.
TEST(ShapeQueryTest, BoxCastOntoTurnedBoxEdge) {
  const ConvexCore q = CoreOf(Shape::Box(Vec3::Constant(0.5)), At(Vec3(-5, 0, 0)));
  auto hit = CastShape(q, Vec3::UnitX(), 10.0, Shape::Box(Vec3::Ones()),
                       At(Vec3::Zero(), About(Vec3::UnitY(), 0.25 * std::numbers::pi)));
  ASSERT_TRUE(hit.has_value());
  EXPECT_NEAR(hit->distance, 5.0 - 0.5 - std::sqrt(2.0), kCastTol);
  EXPECT_NEAR(hit->point.x(), -std::sqrt(2.0), 1e-6);
}

// A capsule lying along X, falling onto a plane tilted by 30 degrees about Z: its lower
// end (the one lower along the plane's normal) touches first.
TEST(ShapeQueryTest, CapsuleCastOntoTiltedPlane) {
  const double angle = std::numbers::pi / 6.0, r = 0.2, h = 1.0;
  const Quat lying = About(Vec3::UnitZ(), std::numbers::pi / 2.0);  // local Y onto -X
  const ConvexCore q = CoreOf(Shape::Capsule(r, h), At(Vec3(0, 3, 0), lying));
  const Transform plane = At(Vec3::Zero(), About(Vec3::UnitZ(), angle));
  const Vec3 n = plane.Rotate(Vec3::UnitY());
  // Each end's height over the plane along n, less the radius; the lower one decides, and
  // falling straight down closes on the plane at n.y per metre.
  const double lowest = std::min(n.dot(Vec3(h, 3, 0)), n.dot(Vec3(-h, 3, 0))) - r;
  auto hit = CastShape(q, -Vec3::UnitY(), 10.0, Shape::Plane(), plane);
  ASSERT_TRUE(hit.has_value());
  EXPECT_NEAR(hit->distance, lowest / n.y(), kTol);
  EXPECT_NEAR(n.dot(hit->point), 0.0, kTol);
  EXPECT_NEAR((hit->normal - n).norm(), 0.0, kTol);
}

// A hull (a cube built from its corners) cast down onto a mesh floor meets its front; cast
// up from below, it passes through (a body would too); and a cast that starts in overlap
// touches at 0 against its motion.
TEST(ShapeQueryTest, HullCastOntoMeshFronts) {
  std::vector<Vec3> corners;
  for (int i = 0; i < 8; ++i) {
    corners.emplace_back((i & 1) ? 0.25 : -0.25, (i & 2) ? 0.25 : -0.25, (i & 4) ? 0.25 : -0.25);
  }
  const Shape hull = Shape::Hull(*BuildConvexHull(corners, HullOptions{}));
  const Shape floor = Floor();
  const Transform floor_pose = At(Vec3(0, 1, 0));
  auto down =
      CastShape(CoreOf(hull, At(Vec3(0.2, 3, -0.1))), -Vec3::UnitY(), 10.0, floor, floor_pose);
  ASSERT_TRUE(down.has_value());
  EXPECT_NEAR(down->distance, 2.0 - 0.25, kCastTol);
  EXPECT_NEAR(down->point.y(), 1.0, kCastTol);
  EXPECT_GE(down->triangle, 0);
  EXPECT_FALSE(
      CastShape(CoreOf(hull, At(Vec3(0.2, -1, -0.1))), Vec3::UnitY(), 10.0, floor, floor_pose));
  auto start =
      CastShape(CoreOf(hull, At(Vec3(0.2, 1.1, -0.1))), -Vec3::UnitY(), 10.0, floor, floor_pose);
  ASSERT_TRUE(start.has_value());
  EXPECT_EQ(start->distance, 0.0);
  EXPECT_NEAR((start->normal - Vec3::UnitY()).norm(), 0.0, kTol);
}

// A point's distance to a mesh floor is its height over the triangle beneath it, and to a
// box its distance to the nearest face.
TEST(ShapeQueryTest, PointDistanceToMeshAndBox) {
  const ConvexCore point{{Vec3(0.3, 2.5, 0.4)}, 0.0};
  auto r = ShapeDistance(point, Floor(), At(Vec3(0, 1, 0)), 10.0);
  ASSERT_TRUE(r.has_value());
  EXPECT_NEAR(r->distance, 1.5, kTol);
  EXPECT_NEAR((r->on_target - Vec3(0.3, 1, 0.4)).norm(), 0.0, kTol);
  EXPECT_GE(r->triangle, 0);
  auto box = ShapeDistance(point, Shape::Box(Vec3(1, 1, 1)), At(Vec3(0, 0, 0)), 10.0);
  ASSERT_TRUE(box.has_value());
  EXPECT_NEAR(box->distance, 1.5, kTol);
}

}  // namespace
}  // namespace ligature
