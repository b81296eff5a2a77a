#include "server/haptics/tool_distance.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "server/model/rigid/convex_hull_builder.h"

namespace ligature::haptics {
namespace {

TEST(ToolDistanceTest, Sphere) {
  const std::vector<ChildShape> s = {{Shape::Sphere(0.1), {}}};
  const Transform pose{Vec3(1, 0, 0), Quat::Identity()};
  const SurfaceQuery q = ToolDistance(s, pose, Vec3(1, 0.3, 0));
  EXPECT_NEAR(q.distance, 0.2, 1e-12);
  EXPECT_TRUE(q.surface.isApprox(Vec3(1, 0.1, 0)));
  EXPECT_TRUE(q.normal.isApprox(Vec3::UnitY()));
  EXPECT_NEAR(ToolDistance(s, pose, Vec3(1.05, 0, 0)).distance, -0.05, 1e-12);
}

TEST(ToolDistanceTest, RotatedBoxInsideAndOutside) {
  const std::vector<ChildShape> s = {{Shape::Box(Vec3(0.1, 0.2, 0.3)), {}}};
  // Turned a quarter around Z: local Y is world -X.
  const Transform pose{Vec3::Zero(), Quat(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitZ()))};
  const SurfaceQuery out = ToolDistance(s, pose, Vec3(-0.5, 0, 0));
  EXPECT_NEAR(out.distance, 0.3, 1e-12);
  EXPECT_TRUE(out.normal.isApprox(Vec3(-1, 0, 0)));
  const SurfaceQuery in = ToolDistance(s, pose, Vec3(0, 0.05, 0));
  EXPECT_NEAR(in.distance, -0.05, 1e-12);  // nearest face: local x = 0.1, world y
  EXPECT_TRUE(in.normal.isApprox(Vec3(0, 1, 0)));
}

TEST(ToolDistanceTest, CapsuleAndNearestChild) {
  const std::vector<ChildShape> s = {
      {Shape::Capsule(0.01, 0.05), {}},
      {Shape::Sphere(0.02), {Vec3(0, -0.1, 0), Quat::Identity()}}};
  const Transform pose;
  EXPECT_NEAR(ToolDistance(s, pose, Vec3(0.03, 0.04, 0)).distance, 0.02, 1e-12);
  EXPECT_NEAR(ToolDistance(s, pose, Vec3(0, -0.15, 0)).distance, 0.03, 1e-12);
  EXPECT_GT(ToolDistance({}, pose, Vec3::Zero()).distance, 1e300);
}

// A tool that is a hull of a box's corners answers as that box does, inside and outside,
// at a turned pose.
TEST(ToolDistanceTest, HullAnswersAsItsBox) {
  const Vec3 h(0.1, 0.2, 0.3);
  std::vector<Vec3> corners;
  for (int k = 0; k < 8; ++k) {
    corners.emplace_back(k & 1 ? h.x() : -h.x(), k & 2 ? h.y() : -h.y(), k & 4 ? h.z() : -h.z());
  }
  auto hull = BuildConvexHull(corners, {});
  ASSERT_TRUE(hull.ok());
  const std::vector<ChildShape> as_hull = {{Shape::Hull(*hull), {}}};
  const std::vector<ChildShape> as_box = {{Shape::Box(h), {}}};
  const Transform pose{Vec3(0.3, -0.1, 0.2),
                       Quat(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()))};
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> coord(-0.6, 0.6);
  for (int i = 0; i < 200; ++i) {
    const Vec3 p = pose.position + Vec3(coord(rng), coord(rng), coord(rng));
    const SurfaceQuery a = ToolDistance(as_hull, pose, p);
    const SurfaceQuery b = ToolDistance(as_box, pose, p);
    EXPECT_NEAR(a.distance, b.distance, 1e-12) << p.transpose();
    EXPECT_LT((a.surface - b.surface).norm(), 1e-12) << p.transpose();
    EXPECT_LT((a.normal - b.normal).norm(), 1e-9) << p.transpose();
  }
}

}  // namespace
}  // namespace ligature::haptics
