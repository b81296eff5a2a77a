#include "server/model/strand/obstacles.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "server/model/rigid/convex_hull_builder.h"

namespace ligature {
namespace {

// A strand meets a hull of a box's corners as it meets the box: the same signed distance
// and normal, inside and outside, at a turned pose.
TEST(StrandObstacleTest, HullIsDistancedAsItsBox) {
  const Vec3 h(0.3, 0.1, 0.2);
  std::vector<Vec3> corners;
  for (int k = 0; k < 8; ++k) {
    corners.emplace_back(k & 1 ? h.x() : -h.x(), k & 2 ? h.y() : -h.y(), k & 4 ? h.z() : -h.z());
  }
  auto hull = BuildConvexHull(corners, {});
  ASSERT_TRUE(hull.ok());
  Obstacle as_hull, as_box;
  as_hull.shape = Shape::Hull(*hull);
  as_box.shape = Shape::Box(h);
  as_hull.pose = as_box.pose = {Vec3(-0.2, 0.5, 0.1), Quat(Eigen::AngleAxisd(1.1, Vec3::UnitY()))};
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> coord(-0.5, 0.5);
  for (int i = 0; i < 200; ++i) {
    const Vec3 p = as_box.pose.position + Vec3(coord(rng), coord(rng), coord(rng));
    const SurfaceDistance a = Distance(as_hull, p);
    const SurfaceDistance b = Distance(as_box, p);
    EXPECT_NEAR(a.distance, b.distance, 1e-12) << p.transpose();
    EXPECT_LT((a.normal - b.normal).norm(), 1e-9) << p.transpose();
  }
}

}  // namespace
}  // namespace ligature
