#include "server/collision/pairs/gjk.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

namespace ligature {
namespace {

std::vector<Vec3> CubeCorners(const Vec3& centre, double half) {
  std::vector<Vec3> corners;
  for (int k = 0; k < 8; ++k) {
    corners.push_back(centre + half * Vec3((k & 1) ? 1 : -1, (k & 2) ? 1 : -1, (k & 4) ? 1 : -1));
  }
  return corners;
}

GjkResult Distance(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
  return GjkDistance(PointSetSupport(a), PointSetSupport(b));
}

void ExpectApart(const GjkResult& r, double distance, const Vec3& on_a, const Vec3& on_b,
                 double tol = 1e-12) {
  ASSERT_FALSE(r.intersecting);
  EXPECT_NEAR(r.distance, distance, tol);
  EXPECT_LT((r.on_a - on_a).norm(), tol) << r.on_a.transpose();
  EXPECT_LT((r.on_b - on_b).norm(), tol) << r.on_b.transpose();
}

TEST(GjkTest, PointSupportPicksLowestIndexAmongTies) {
  const std::vector<Vec3> points = {Vec3(1, 0, 0), Vec3(1, 1, 0), Vec3(1, -1, 0)};
  EXPECT_EQ(PointSetSupport(points).Support(Vec3::UnitX()), Vec3(1, 0, 0));
  EXPECT_EQ(PointSetSupport(points).Support(Vec3::UnitY()), Vec3(1, 1, 0));
}

TEST(GjkTest, PointToPoint) {
  ExpectApart(Distance({Vec3(1, 2, 3)}, {Vec3(4, 6, 3)}), 5.0, Vec3(1, 2, 3), Vec3(4, 6, 3));
}

TEST(GjkTest, PointAboveTriangleInterior) {
  ExpectApart(Distance({Vec3(0.2, 0.3, 1.5)}, {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)}), 1.5,
              Vec3(0.2, 0.3, 1.5), Vec3(0.2, 0.3, 0));
}

TEST(GjkTest, PointBesideTriangleEdge) {
  // Closest to the edge y = 0 at (0.5, 0, 0): offset (0, -1, 1).
  ExpectApart(Distance({Vec3(0.5, -1, 1)}, {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)}),
              std::sqrt(2.0), Vec3(0.5, -1, 1), Vec3(0.5, 0, 0));
}

TEST(GjkTest, SkewSegments) {
  ExpectApart(Distance({Vec3(-1, 0, 0), Vec3(1, 0, 0)}, {Vec3(0.3, -1, 2), Vec3(0.3, 1, 2)}), 2.0,
              Vec3(0.3, 0, 0), Vec3(0.3, 0, 2));
}

TEST(GjkTest, CubesCornerToCorner) {
  ExpectApart(Distance(CubeCorners(Vec3::Zero(), 1), CubeCorners(Vec3(3, 3, 3), 1)), std::sqrt(3.0),
              Vec3(1, 1, 1), Vec3(2, 2, 2));
}

TEST(GjkTest, CubesFaceToFaceDistance) {
  const GjkResult r = Distance(CubeCorners(Vec3::Zero(), 1), CubeCorners(Vec3(0.5, 0.2, 2.25), 1));
  ASSERT_FALSE(r.intersecting);
  EXPECT_NEAR(r.distance, 0.25, 1e-12);
  EXPECT_NEAR(r.on_a.z(), 1.0, 1e-12);
  EXPECT_NEAR(r.on_b.z(), 1.25, 1e-12);
  EXPECT_NEAR(r.on_a.x(), r.on_b.x(), 1e-12);
  EXPECT_NEAR(r.on_a.y(), r.on_b.y(), 1e-12);
}

TEST(GjkTest, SegmentAboveTetrahedronEdge) {
  // Tetrahedron edge from (1, -1, -1) to (-1, 1, -1) (midpoint (0, 0, -1), outward -Z); a
  // segment along (1, 1, 0) below it at z = -1.5, which is parallel to it.
  const std::vector<Vec3> tetra = {Vec3(1, 1, 1), Vec3(1, -1, -1), Vec3(-1, 1, -1),
                                   Vec3(-1, -1, 1)};
  const GjkResult r = Distance({Vec3(-0.2, -0.2, -1.5), Vec3(0.2, 0.2, -1.5)}, tetra);
  ASSERT_FALSE(r.intersecting);
  EXPECT_NEAR(r.distance, 0.5, 1e-12);
  EXPECT_NEAR((r.on_b - r.on_a).normalized().z(), 1.0, 1e-12);
}

TEST(GjkTest, OverlapAndContainment) {
  EXPECT_TRUE(
      Distance(CubeCorners(Vec3::Zero(), 1), CubeCorners(Vec3(1, 0.5, 0.2), 1)).intersecting);
  EXPECT_TRUE(Distance(CubeCorners(Vec3::Zero(), 1), {Vec3(0.1, 0.2, 0.3)}).intersecting);
  // Exactly touching faces.
  EXPECT_TRUE(Distance(CubeCorners(Vec3::Zero(), 1), CubeCorners(Vec3(0, 0, 2), 1)).intersecting);
}

TEST(GjkTest, SymmetricInTheArguments) {
  const std::vector<Vec3> a = CubeCorners(Vec3(0.1, -0.2, 0.3), 0.7);
  const std::vector<Vec3> b = {Vec3(2, 1, 0.5), Vec3(2.5, -1, 0.2), Vec3(3, 0.4, 1.9),
                               Vec3(2.2, 0.3, -1)};
  const GjkResult ab = Distance(a, b);
  const GjkResult ba = Distance(b, a);
  ASSERT_FALSE(ab.intersecting);
  ASSERT_FALSE(ba.intersecting);
  EXPECT_NEAR(ab.distance, ba.distance, 1e-12);
  EXPECT_NEAR((ab.on_b - ab.on_a).norm(), ab.distance, 1e-12);
}

TEST(GjkTest, DegenerateInputsStayFinite) {
  // Repeated and collinear points.
  const GjkResult r = Distance({Vec3(0, 0, 0), Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(2, 0, 0)},
                               {Vec3(1, 3, 0), Vec3(1, 3, 0)});
  ExpectApart(r, 3.0, Vec3(1, 0, 0), Vec3(1, 3, 0));
  // Flat polygon against a point in its plane, outside it.
  const GjkResult flat =
      Distance({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(1, 1, 0), Vec3(0, 1, 0)}, {Vec3(3, 0.5, 0)});
  ExpectApart(flat, 2.0, Vec3(1, 0.5, 0), Vec3(3, 0.5, 0));
}

}  // namespace
}  // namespace ligature
