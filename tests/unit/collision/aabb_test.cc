#include "server/collision/aabb.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "server/collision/pairs/geometry.h"
#include "server/model/rigid/convex_hull_builder.h"
#include "tests/unit/collision/collision_test_util.h"

namespace ligature {
namespace {

using collision_testing::AxisAngleDeg;
using collision_testing::Pose;

constexpr double kInf = std::numeric_limits<double>::infinity();

void ExpectBox(const Aabb& box, const Vec3& min, const Vec3& max) {
  EXPECT_LT((box.min - min).norm(), 1e-12) << box.min.transpose();
  EXPECT_LT((box.max - max).norm(), 1e-12) << box.max.transpose();
}

TEST(AabbTest, SphereIsCentrePlusRadiusPlusMargin) {
  const Aabb box = ComputeAabb(Shape::Sphere(0.5), Pose(Vec3(1, 2, 3)), 0.1);
  ExpectBox(box, Vec3(0.4, 1.4, 2.4), Vec3(1.6, 2.6, 3.6));
  EXPECT_FALSE(box.IsUnbounded());
}

TEST(AabbTest, SphereIgnoresOrientation) {
  const Aabb box =
      ComputeAabb(Shape::Sphere(2.0), Pose(Vec3::Zero(), AxisAngleDeg(Vec3(1, 2, 3), 77)), 0.0);
  ExpectBox(box, Vec3(-2, -2, -2), Vec3(2, 2, 2));
}

TEST(AabbTest, AxisAlignedBox) {
  const Aabb box = ComputeAabb(Shape::Box(Vec3(1, 2, 3)), Pose(Vec3(-1, 0, 1)), 0.0);
  ExpectBox(box, Vec3(-2, -2, -2), Vec3(0, 2, 4));
}

TEST(AabbTest, BoxQuarterTurnSwapsExtents) {
  const Aabb box = ComputeAabb(Shape::Box(Vec3(1, 2, 3)),
                               Pose(Vec3::Zero(), AxisAngleDeg(Vec3::UnitZ(), 90)), 0.25);
  ExpectBox(box, Vec3(-2.25, -1.25, -3.25), Vec3(2.25, 1.25, 3.25));
}

TEST(AabbTest, BoxEighthTurnAboutY) {
  const Aabb box = ComputeAabb(Shape::Box(Vec3(1, 1, 1)),
                               Pose(Vec3::Zero(), AxisAngleDeg(Vec3::UnitY(), 45)), 0.0);
  const double r = std::sqrt(2.0);
  ExpectBox(box, Vec3(-r, -1, -r), Vec3(r, 1, r));
}

TEST(AabbTest, UprightCapsule) {
  const Aabb box = ComputeAabb(Shape::Capsule(0.5, 1.0), Pose(Vec3(0, 3, 0)), 0.0);
  ExpectBox(box, Vec3(-0.5, 1.5, -0.5), Vec3(0.5, 4.5, 0.5));
}

TEST(AabbTest, CapsuleLyingAlongX) {
  const Aabb box = ComputeAabb(Shape::Capsule(0.5, 1.0),
                               Pose(Vec3::Zero(), AxisAngleDeg(Vec3::UnitZ(), 90)), 0.1);
  ExpectBox(box, Vec3(-1.6, -0.6, -0.6), Vec3(1.6, 0.6, 0.6));
}

TEST(AabbTest, PlaneIsUnboundedWhateverThePose) {
  const Aabb box =
      ComputeAabb(Shape::Plane(), Pose(Vec3(1, 2, 3), AxisAngleDeg(Vec3::UnitX(), 30)), 0.1);
  EXPECT_TRUE(box.IsUnbounded());
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(std::isinf(box.min[i]) && box.min[i] < 0);
    EXPECT_TRUE(std::isinf(box.max[i]) && box.max[i] > 0);
  }
}

// For random poses the box bounds every corner, and each face touches one corner.
TEST(AabbTest, RandomBoxesAreTightAroundCorners) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 100; ++trial) {
    const Shape shape =
        Shape::Box(Vec3(0.1 + std::abs(u(rng)), 0.1 + std::abs(u(rng)), 0.1 + std::abs(u(rng))));
    const Transform pose =
        Pose(Vec3(u(rng), u(rng), u(rng)) * 5, Quat(u(rng), u(rng), u(rng), u(rng)).normalized());
    const Aabb box = ComputeAabb(shape, pose, 0.0);
    Vec3 lo = Vec3::Constant(kInf);
    Vec3 hi = Vec3::Constant(-kInf);
    for (const Vec3& c : BoxCorners(shape, pose)) {
      lo = lo.cwiseMin(c);
      hi = hi.cwiseMax(c);
    }
    EXPECT_LT((box.min - lo).norm(), 1e-9);
    EXPECT_LT((box.max - hi).norm(), 1e-9);
  }
}

// For random poses the capsule's box is the segment's box grown by the radius.
TEST(AabbTest, RandomCapsulesBoundTheirEndSpheres) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 100; ++trial) {
    const Shape shape = Shape::Capsule(0.1 + std::abs(u(rng)), std::abs(u(rng)));
    const Transform pose =
        Pose(Vec3(u(rng), u(rng), u(rng)) * 5, Quat(u(rng), u(rng), u(rng), u(rng)).normalized());
    const Aabb box = ComputeAabb(shape, pose, 0.05);
    const Vec3 tip0 = pose.Apply(Vec3(0, -shape.half_length, 0));
    const Vec3 tip1 = pose.Apply(Vec3(0, shape.half_length, 0));
    const Vec3 grow = Vec3::Constant(shape.radius + 0.05);
    EXPECT_LT((box.min - (tip0.cwiseMin(tip1) - grow)).norm(), 1e-9);
    EXPECT_LT((box.max - (tip0.cwiseMax(tip1) + grow)).norm(), 1e-9);
  }
}

// A hull's box is its local box turned: it holds every vertex, grown by the margin, and a
// hull of a box's corners off its origin gets that box's bounds, shifted.
TEST(AabbTest, HullHoldsItsVerticesAndMatchesItsBox) {
  const Vec3 h(0.1, 0.2, 0.3), offset(0.5, 0.0, -0.25);
  std::vector<Vec3> corners;
  for (int k = 0; k < 8; ++k) {
    corners.push_back(offset +
                      Vec3(k & 1 ? h.x() : -h.x(), k & 2 ? h.y() : -h.y(), k & 4 ? h.z() : -h.z()));
  }
  auto hull = BuildConvexHull(corners, {});
  ASSERT_TRUE(hull.ok());
  const Transform pose = Pose(Vec3(1, 2, 3), AxisAngleDeg(Vec3(1, 1, 0), 35.0));
  const Aabb box = ComputeAabb(Shape::Hull(*hull), pose, 0.01);
  for (const Vec3& v : (*hull)->vertices) {
    const Vec3 w = pose.Apply(v);
    EXPECT_TRUE((w.array() >= box.min.array() + 0.01 - 1e-12).all()) << w.transpose();
    EXPECT_TRUE((w.array() <= box.max.array() - 0.01 + 1e-12).all()) << w.transpose();
  }
  const Aabb same =
      ComputeAabb(Shape::Box(h), Transform{pose.Apply(offset), pose.orientation}, 0.01);
  ExpectBox(box, same.min, same.max);
}

}  // namespace
}  // namespace ligature
