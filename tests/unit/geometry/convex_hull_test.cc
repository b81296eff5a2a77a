#include "server/geometry/convex_hull.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "server/model/rigid/convex_hull_builder.h"

namespace ligature {
namespace {

// A box of half extents (1, 2, 3) as a hull, plus points inside.
std::shared_ptr<const ConvexHull> BoxHull() {
  std::vector<Vec3> points;
  for (int k = 0; k < 8; ++k) {
    points.emplace_back(k & 1 ? 1.0 : -1.0, k & 2 ? 2.0 : -2.0, k & 4 ? 3.0 : -3.0);
  }
  points.emplace_back(0.1, 0.2, 0.3);
  auto hull = BuildConvexHull(points, {});
  EXPECT_TRUE(hull.ok()) << hull.status();
  return *hull;
}

void ExpectSurfacePoint(const HullSurfacePoint& s, double distance, const Vec3& point,
                        const Vec3& normal) {
  EXPECT_NEAR(s.distance, distance, 1e-12);
  EXPECT_NEAR((s.point - point).norm(), 0.0, 1e-12) << s.point.transpose();
  EXPECT_NEAR((s.normal - normal).norm(), 0.0, 1e-12) << s.normal.transpose();
}

TEST(NearestSurfacePointTest, AboveAFaceProjectsOntoIt) {
  const auto box = BoxHull();
  ExpectSurfacePoint(NearestSurfacePoint(*box, Vec3(0.5, 2.5, -1.0)), 0.5, Vec3(0.5, 2.0, -1.0),
                     Vec3::UnitY());
}

TEST(NearestSurfacePointTest, BesideAnEdgeOrACornerMeetsIt) {
  const auto box = BoxHull();
  // Beside the edge x = 1, y = 2: 0.3 out along x and 0.4 along y.
  ExpectSurfacePoint(NearestSurfacePoint(*box, Vec3(1.3, 2.4, 0.5)), 0.5, Vec3(1.0, 2.0, 0.5),
                     Vec3(0.6, 0.8, 0.0));
  // Beyond the corner (1, 2, 3) by (2, 3, 6): distance 7.
  ExpectSurfacePoint(NearestSurfacePoint(*box, Vec3(3.0, 5.0, 9.0)), 7.0, Vec3(1.0, 2.0, 3.0),
                     Vec3(2.0, 3.0, 6.0) / 7.0);
}

TEST(NearestSurfacePointTest, InsideTheNearestFaceWins) {
  const auto box = BoxHull();
  // 0.2 below the +x face, 1.9 from +y, 2.5 from +z.
  ExpectSurfacePoint(NearestSurfacePoint(*box, Vec3(0.8, 0.1, 0.5)), -0.2, Vec3(1.0, 0.1, 0.5),
                     Vec3::UnitX());
}

TEST(NearestSurfacePointTest, TetrahedronVertexRegion) {
  // The corner tetrahedron x, y, z >= 0, x + y + z <= 1: below the origin corner along
  // (-1, -1, -1) the nearest point is the corner itself.
  auto hull = BuildConvexHull(std::vector<Vec3>{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, {});
  ASSERT_TRUE(hull.ok());
  ExpectSurfacePoint(NearestSurfacePoint(**hull, Vec3(-1, -1, -1)), std::sqrt(3.0), Vec3::Zero(),
                     Vec3(-1, -1, -1).normalized());
  // Above the slanted face's centre by 0.5 along its normal.
  const Vec3 n = Vec3(1, 1, 1).normalized();
  const Vec3 c = Vec3::Constant(1.0 / 3.0);
  ExpectSurfacePoint(NearestSurfacePoint(**hull, c + 0.5 * n), 0.5, c, n);
}

}  // namespace
}  // namespace ligature
