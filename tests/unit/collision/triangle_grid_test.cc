#include "server/collision/triangle_grid.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace ligature {
namespace {

bool Lists(const TriangleGrid& grid, const Vec3& p, int triangle) {
  const std::span<const int> near = grid.Near(p);
  return std::find(near.begin(), near.end(), triangle) != near.end();
}

// Every point within a triangle's grown bounds finds it; each triangle is listed at most
// once per query; points far from every triangle find none.
TEST(TriangleGrid, FindsEveryTriangleWhoseGrownBoundsHoldThePoint) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Vec3> x;
  std::vector<std::array<int, 3>> triangles;
  for (int t = 0; t < 200; ++t) {
    const Vec3 c(u(rng), u(rng), u(rng));
    for (int k = 0; k < 3; ++k) x.push_back(c + 0.05 * Vec3(u(rng), u(rng), u(rng)));
    triangles.push_back({3 * t, 3 * t + 1, 3 * t + 2});
  }
  constexpr double kReach = 0.02;
  TriangleGrid grid;
  grid.Build(triangles, x, kReach);
  for (int q = 0; q < 5000; ++q) {
    const Vec3 p(1.2 * u(rng), 1.2 * u(rng), 1.2 * u(rng));
    const std::span<const int> near = grid.Near(p);
    std::vector<int> sorted(near.begin(), near.end());
    std::sort(sorted.begin(), sorted.end());
    EXPECT_TRUE(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
    for (int t = 0; t < static_cast<int>(triangles.size()); ++t) {
      const auto& tri = triangles[t];
      const Vec3 lo = x[tri[0]].cwiseMin(x[tri[1]]).cwiseMin(x[tri[2]]).array() - kReach;
      const Vec3 hi = x[tri[0]].cwiseMax(x[tri[1]]).cwiseMax(x[tri[2]]).array() + kReach;
      const bool inside = (lo.array() <= p.array()).all() && (p.array() <= hi.array()).all();
      if (inside) ASSERT_TRUE(Lists(grid, p, t)) << "query " << q << " triangle " << t;
    }
  }
  EXPECT_TRUE(grid.Near(Vec3(50, 50, 50)).empty());
}

TEST(TriangleGrid, EmptyMeshFindsNothing) {
  TriangleGrid grid;
  grid.Build({}, {}, 0.1);
  EXPECT_TRUE(grid.Near(Vec3::Zero()).empty());
}

}  // namespace
}  // namespace ligature
