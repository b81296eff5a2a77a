#include "server/geometry/triangle_mesh.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "server/model/rigid/triangle_mesh_builder.h"
#include "tests/support/grid_mesh.h"

namespace ligature {
namespace {

using testing::GridMesh;

double Bumpy(double x, double z) { return 0.3 * std::sin(1.7 * x) * std::cos(2.3 * z); }

// The box query finds exactly the triangles whose bounds meet the box.
TEST(TriangleMeshTest, OverlappingMatchesBruteForce) {
  const auto mesh = GridMesh(16, 0.25, Bumpy);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-2.5, 2.5), size(0.0, 0.6);
  for (int trial = 0; trial < 200; ++trial) {
    const Vec3 lo(u(rng), u(rng) * 0.2, u(rng));
    const Vec3 hi = lo + Vec3(size(rng), size(rng), size(rng));
    std::vector<int> found;
    mesh->Overlapping(Aabb{lo, hi}, &found);
    std::sort(found.begin(), found.end());
    std::vector<int> expected;
    for (int t = 0; t < static_cast<int>(mesh->triangles.size()); ++t) {
      Vec3 tmin = mesh->Corner(t, 0), tmax = tmin;
      for (int k = 1; k < 3; ++k) {
        tmin = tmin.cwiseMin(mesh->Corner(t, k));
        tmax = tmax.cwiseMax(mesh->Corner(t, k));
      }
      if ((tmin.array() <= hi.array()).all() && (lo.array() <= tmax.array()).all()) {
        expected.push_back(t);
      }
    }
    EXPECT_EQ(found, expected) << trial;
  }
}

// Distance from p to triangle abc by another route: inside the prism over the triangle, the
// plane distance; else the nearest of the three edges.
double BruteTriangleDistance(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& p) {
  const Vec3 n = (b - a).cross(c - a).normalized();
  const Vec3 q = p - n.dot(p - a) * n;
  const bool inside = n.dot((b - a).cross(q - a)) >= 0 && n.dot((c - b).cross(q - b)) >= 0 &&
                      n.dot((a - c).cross(q - c)) >= 0;
  if (inside) return std::abs(n.dot(p - a));
  double best = 1e300;
  for (const auto& [s, e] : {std::pair{a, b}, std::pair{b, c}, std::pair{c, a}}) {
    const double t = std::clamp((p - s).dot(e - s) / (e - s).squaredNorm(), 0.0, 1.0);
    best = std::min(best, (p - (s + t * (e - s))).norm());
  }
  return best;
}

TEST(TriangleMeshTest, NearestSurfacePointMatchesBruteForce) {
  const auto mesh = GridMesh(12, 0.3, Bumpy);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-2.5, 2.5);
  for (int trial = 0; trial < 300; ++trial) {
    const Vec3 p(u(rng), u(rng) * 0.4, u(rng));
    double expected = 1e300;
    for (int t = 0; t < static_cast<int>(mesh->triangles.size()); ++t) {
      expected = std::min(expected, BruteTriangleDistance(mesh->Corner(t, 0), mesh->Corner(t, 1),
                                                          mesh->Corner(t, 2), p));
    }
    const MeshSurfacePoint s = NearestSurfacePoint(*mesh, p);
    EXPECT_NEAR(std::abs(s.distance), expected, 1e-12) << trial;
    EXPECT_NEAR((p - s.point).norm(), std::abs(s.distance), 1e-12);
    EXPECT_NEAR(s.normal.norm(), 1.0, 1e-12);
    // In front, the normal leads from the surface to the point; well above or below the
    // terrain (heights within 0.3 m) over its footprint, the sign says which.
    if (s.distance > 0.0) EXPECT_LT((s.point + s.distance * s.normal - p).norm(), 1e-12);
    if (std::abs(p.x()) < 1.8 && std::abs(p.z()) < 1.8 && std::abs(p.y()) > 0.31) {
      EXPECT_EQ(s.distance > 0.0, p.y() > 0.0) << trial;
    }
  }
}

// On the surface or behind it, the way out is the front: a point 0.2 m under the floor is
// at -0.2 m.
TEST(TriangleMeshTest, OnOrBehindTheSurfaceTheNormalIsTheFront) {
  const auto mesh = GridMesh(2, 1.0);
  const MeshSurfacePoint on = NearestSurfacePoint(*mesh, Vec3(0.3, 0.0, 0.2));
  EXPECT_LT(std::abs(on.distance), 1e-15);
  EXPECT_LT((on.normal - Vec3::UnitY()).norm(), 1e-15);
  const MeshSurfacePoint below = NearestSurfacePoint(*mesh, Vec3(0.3, -0.2, 0.2));
  EXPECT_NEAR(below.distance, -0.2, 1e-15);
  EXPECT_LT((below.normal - Vec3::UnitY()).norm(), 1e-15);
}

int ActiveCount(const TriangleMesh& mesh) {
  int count = 0;
  for (const uint8_t bits : mesh.active_edges) count += std::popcount(bits);
  return count;
}

// On a flat grid only the rim is active: 4 n edges.
TEST(TriangleMeshTest, FlatGridHasOnlyItsRimActive) {
  EXPECT_EQ(ActiveCount(*GridMesh(6, 0.5)), 24);
}

// A roof (convex ridge at x = 0, 45 degree slopes) makes the ridge's six edges active; a
// valley (concave) and a crease of about 2 degrees (below the 5 degree threshold) do not.
TEST(TriangleMeshTest, ConvexCreasesAreActive) {
  EXPECT_EQ(ActiveCount(*GridMesh(6, 0.5, [](double x, double) { return -std::abs(x); })),
            24 + 2 * 6);
  EXPECT_EQ(ActiveCount(*GridMesh(6, 0.5, [](double x, double) { return std::abs(x); })), 24);
  EXPECT_EQ(ActiveCount(*GridMesh(6, 0.5, [](double x, double) { return -0.04 * std::abs(x); })),
            24);
}

// A neighbour wound the other way round still makes a flat seam.
TEST(TriangleMeshTest, FlatSeamWithFlippedNeighbourIsInactive) {
  const std::vector<Vec3> v = {{0, 0, 0}, {1, 0, 0}, {0, 0, 1}, {1, 0, 1}};
  const std::vector<uint32_t> same = {0, 2, 1, 1, 2, 3};
  const std::vector<uint32_t> flipped = {0, 2, 1, 1, 3, 2};
  for (const auto& indices : {same, flipped}) {
    auto mesh = BuildTriangleMesh(v, indices);
    ASSERT_TRUE(mesh.ok());
    EXPECT_EQ(ActiveCount(**mesh), 4);
  }
}

}  // namespace
}  // namespace ligature
