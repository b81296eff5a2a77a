#include "server/collision/ray_cast.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "server/model/rigid/convex_hull_builder.h"
#include "server/model/rigid/triangle_mesh_builder.h"

namespace ligature {
namespace {

constexpr double kTol = 1e-12;

// A pose turned by `angle` about Y and moved to `at`.
Transform Posed(const Vec3& at, double angle = 0.0) {
  return Transform{at, Quat(Eigen::AngleAxisd(angle, Vec3::UnitY()))};
}

void ExpectHit(const std::optional<RayHit>& hit, double distance, const Vec3& normal) {
  ASSERT_TRUE(hit.has_value());
  EXPECT_NEAR(hit->distance, distance, kTol);
  EXPECT_NEAR((hit->normal - normal).norm(), 0.0, 1e-12) << hit->normal.transpose();
}

// A ray 0.6 m off a sphere's centre line meets it where sqrt(1 - 0.6^2) = 0.8 before the
// closest approach: at 5 - 0.8 from a start 5 m away.
TEST(RayCastTest, Sphere) {
  const Shape sphere = Shape::Sphere(1.0);
  const Transform pose = Posed(Vec3(1.0, 2.0, 3.0));
  auto hit = CastRay(sphere, pose, Vec3(-4.0, 2.6, 3.0), Vec3::UnitX(), 10.0);
  ExpectHit(hit, 4.2, Vec3(-0.8, 0.6, 0.0));
  EXPECT_NEAR((hit->point - Vec3(0.2, 2.6, 3.0)).norm(), 0.0, kTol);
  EXPECT_FALSE(CastRay(sphere, pose, Vec3(-4.0, 3.1, 3.0), Vec3::UnitX(), 10.0));
  EXPECT_FALSE(CastRay(sphere, pose, Vec3(-4.0, 2.6, 3.0), -Vec3::UnitX(), 10.0));
  EXPECT_FALSE(CastRay(sphere, pose, Vec3(-4.0, 2.6, 3.0), Vec3::UnitX(), 4.1));
  ExpectHit(CastRay(sphere, pose, Vec3(1.5, 2.0, 3.0), Vec3::UnitZ(), 1.0), 0.0, -Vec3::UnitZ());
}

// A box turned 90 degrees about Y shows its z extent along x.
TEST(RayCastTest, Box) {
  const Shape box = Shape::Box(Vec3(0.5, 1.0, 2.0));
  const Transform pose = Posed(Vec3::Zero(), std::numbers::pi / 2);
  ExpectHit(CastRay(box, pose, Vec3(-10.0, 0.0, 0.0), Vec3::UnitX(), 20.0), 8.0, -Vec3::UnitX());
  ExpectHit(CastRay(box, pose, Vec3(0.1, 5.0, 0.2), -Vec3::UnitY(), 20.0), 4.0, Vec3::UnitY());
  // Along a face, just outside it: a miss; a diagonal through an edge region: the later slab.
  EXPECT_FALSE(CastRay(box, pose, Vec3(-10.0, 1.0 + 1e-9, 0.0), Vec3::UnitX(), 20.0));
  const Vec3 diagonal = Vec3(1.0, -1.0, 0.0).normalized();
  ExpectHit(CastRay(box, pose, Vec3(-3.0, 2.5, 0.0), diagonal, 20.0), std::sqrt(2.0) * 1.5,
            Vec3::UnitY());
}

// The side of a capsule along Y, and its end cap from above.
TEST(RayCastTest, Capsule) {
  const Shape capsule = Shape::Capsule(0.5, 1.0);
  const Transform pose = Posed(Vec3(0.0, 1.0, 0.0));
  ExpectHit(CastRay(capsule, pose, Vec3(-3.0, 1.5, 0.0), Vec3::UnitX(), 10.0), 2.5, -Vec3::UnitX());
  ExpectHit(CastRay(capsule, pose, Vec3(0.0, 5.0, 0.0), -Vec3::UnitY(), 10.0), 2.5, Vec3::UnitY());
  // Past the segment's end, 0.3 m to the side: the cap, at sqrt(0.5^2 - 0.3^2) = 0.4 above
  // its centre at y = 2.
  ExpectHit(CastRay(capsule, pose, Vec3(0.3, 5.0, 0.0), -Vec3::UnitY(), 10.0), 2.6,
            Vec3(0.6, 0.8, 0.0));
  EXPECT_FALSE(CastRay(capsule, pose, Vec3(0.6, 5.0, 0.0), -Vec3::UnitY(), 10.0));
}

TEST(RayCastTest, Plane) {
  const Shape plane = Shape::Plane();
  const Vec3 down = Vec3(1.0, -1.0, 0.0).normalized();
  ExpectHit(CastRay(plane, Posed(Vec3::Zero()), Vec3(0.0, 2.0, 0.0), down, 10.0),
            2.0 * std::sqrt(2.0), Vec3::UnitY());
  EXPECT_FALSE(CastRay(plane, Posed(Vec3::Zero()), Vec3(0.0, 2.0, 0.0), Vec3::UnitX(), 10.0));
  ExpectHit(CastRay(plane, Posed(Vec3::Zero()), Vec3(0.0, -1.0, 0.0), Vec3::UnitX(), 10.0), 0.0,
            -Vec3::UnitX());
}

// A hull of a cube's corners answers as the box does; a tetrahedron's slanted face too.
TEST(RayCastTest, Hull) {
  std::vector<Vec3> corners;
  for (int i = 0; i < 8; ++i) {
    corners.emplace_back(i & 1 ? 0.5 : -0.5, i & 2 ? 1.0 : -1.0, i & 4 ? 2.0 : -2.0);
  }
  const Shape hull = Shape::Hull(*BuildConvexHull(corners, HullOptions{}));
  const Shape box = Shape::Box(Vec3(0.5, 1.0, 2.0));
  const Transform pose = Posed(Vec3(1.0, 0.0, 0.0), 0.3);
  // Rays from outside aimed at points inside, so that each hits.
  const Vec3 from(-5.0, 0.1, 0.2);
  for (const Vec3& target : {Vec3(1.0, 0.0, 0.0), Vec3(1.2, 0.5, 0.3), Vec3(0.9, -0.7, 1.5)}) {
    const Vec3 dir = (target - from).normalized();
    auto a = CastRay(hull, pose, from, dir, 20.0);
    auto b = CastRay(box, pose, from, dir, 20.0);
    ASSERT_TRUE(a && b);
    EXPECT_NEAR(a->distance, b->distance, 1e-12);
    EXPECT_NEAR((a->normal - b->normal).norm(), 0.0, 1e-12);
  }
  const Shape tet = Shape::Hull(*BuildConvexHull(
      std::vector<Vec3>{Vec3::Zero(), Vec3::UnitX(), Vec3::UnitY(), Vec3::UnitZ()}, HullOptions{}));
  // Along the diagonal from far out: the face x + y + z = 1, at |p| = 1/sqrt(3).
  const Vec3 in = -Vec3::Ones().normalized();
  ExpectHit(CastRay(tet, Posed(Vec3::Zero()), Vec3::Ones() * 2.0, in, 10.0),
            2.0 * std::sqrt(3.0) - 1.0 / std::sqrt(3.0), -in);
  ExpectHit(CastRay(tet, Posed(Vec3::Zero()), Vec3(0.1, 0.1, 0.1), Vec3::UnitX(), 10.0), 0.0,
            -Vec3::UnitX());
}

// A floor of 2 x 2 m cells facing +Y: a ray from above meets the triangle under its target;
// from below it passes through; the nearest of two stacked floors is hit.
TEST(RayCastTest, MeshFront) {
  std::vector<Vec3> vertices;
  std::vector<uint32_t> indices;
  for (const double y : {0.0, 1.0}) {
    const uint32_t base = static_cast<uint32_t>(vertices.size());
    for (int r = 0; r <= 4; ++r) {
      for (int c = 0; c <= 4; ++c) vertices.emplace_back(2.0 * c - 4.0, y, 2.0 * r - 4.0);
    }
    for (uint32_t r = 0; r < 4; ++r) {
      for (uint32_t c = 0; c < 4; ++c) {
        const uint32_t p = base + r * 5 + c, q = p + 5;
        for (const uint32_t i : {p, q, p + 1, p + 1, q, q + 1}) indices.push_back(i);
      }
    }
  }
  const Shape mesh = Shape::Mesh(*BuildTriangleMesh(vertices, indices));
  const Transform pose = Posed(Vec3(0.0, -1.0, 0.0));
  const Vec3 slant = Vec3(0.3, -1.0, 0.2).normalized();
  auto hit = CastRay(mesh, pose, Vec3(0.5, 3.0, 0.7), slant, 10.0);
  ASSERT_TRUE(hit.has_value());
  EXPECT_NEAR(hit->point.y(), 0.0, kTol);  // the upper floor, at world y = 0
  EXPECT_NEAR(hit->distance, 3.0 / -slant.y(), kTol);
  EXPECT_NEAR((hit->normal - Vec3::UnitY()).norm(), 0.0, kTol);
  // The triangle: in cell (2, 2) of the upper floor, the first (p, q, p + 1) or second half.
  const Vec3 local = hit->point - pose.position;
  const Vec3& a = vertices[indices[3 * hit->triangle]];
  EXPECT_EQ(a.y(), 1.0);
  EXPECT_LE(std::abs(local.x() - a.x()), 2.0);
  EXPECT_LE(std::abs(local.z() - a.z()), 2.0);
  EXPECT_FALSE(CastRay(mesh, pose, Vec3(0.5, -3.0, 0.7), Vec3::UnitY(), 10.0));
  EXPECT_FALSE(CastRay(mesh, pose, Vec3(9.0, 3.0, 0.7), -Vec3::UnitY(), 10.0));
  EXPECT_FALSE(CastRay(mesh, pose, Vec3(0.5, 3.0, 0.7), -Vec3::UnitY(), 2.5));
}

}  // namespace
}  // namespace ligature
