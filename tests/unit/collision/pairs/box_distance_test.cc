#include "server/collision/pairs/box_distance.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tests/unit/collision/collision_test_util.h"

namespace ligature {
namespace {

using collision_testing::AlternatingProjectionDistance;
using collision_testing::AxisAngleDeg;
using collision_testing::Pose;
using collision_testing::ProjectOntoBox;

const Shape kCube = Shape::Box(Vec3(1, 1, 1));

TEST(BoxDistanceTest, FaceToFace) {
  const BoxClosestPoints c =
      ClosestPointsOfDisjointBoxes(kCube, Pose(Vec3::Zero()), kCube, Pose(Vec3(0, 2.5, 0)));
  EXPECT_NEAR(c.distance, 0.5, 1e-12);
  EXPECT_NEAR(c.on_a.y(), 1.0, 1e-12);
  EXPECT_NEAR(c.on_b.y(), 1.5, 1e-12);
  EXPECT_NEAR((c.on_b - c.on_a).norm(), 0.5, 1e-12);
}

TEST(BoxDistanceTest, CornerToCorner) {
  const BoxClosestPoints c =
      ClosestPointsOfDisjointBoxes(kCube, Pose(Vec3::Zero()), kCube, Pose(Vec3(3, 3, 3)));
  EXPECT_NEAR(c.distance, std::sqrt(3.0), 1e-12);
  EXPECT_LT((c.on_a - Vec3(1, 1, 1)).norm(), 1e-12);
  EXPECT_LT((c.on_b - Vec3(2, 2, 2)).norm(), 1e-12);
}

TEST(BoxDistanceTest, CrossedEdges) {
  // A's top edge along Z at y = sqrt 2, B's bottom edge along X at y = 2 sqrt 2 + 0.3 - sqrt 2.
  const double r2 = std::sqrt(2.0);
  const BoxClosestPoints c = ClosestPointsOfDisjointBoxes(
      kCube, Pose(Vec3::Zero(), AxisAngleDeg(Vec3::UnitZ(), 45)), kCube,
      Pose(Vec3(0.2, 2 * r2 + 0.3, -0.1), AxisAngleDeg(Vec3::UnitX(), 45)));
  EXPECT_NEAR(c.distance, 0.3, 1e-12);
  EXPECT_LT((c.on_a - Vec3(0, r2, -0.1)).norm(), 1e-12);
  EXPECT_LT((c.on_b - Vec3(0, r2 + 0.3, -0.1)).norm(), 1e-12);
}

// Random disjoint boxes: agrees with the alternating-projection reference.
TEST(BoxDistanceTest, RandomDisjointBoxesAgreeWithReference) {
  std::mt19937 rng(61);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const Shape a = Shape::Box(Vec3(0.5, 0.2, 0.8));
  const Shape b = Shape::Box(Vec3(0.3, 0.9, 0.4));
  int checked = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const Transform pa = Pose(Vec3::Zero(), Quat(u(rng), u(rng), u(rng), u(rng)).normalized());
    const Transform pb =
        Pose(2.5 * Vec3(u(rng), u(rng), u(rng)), Quat(u(rng), u(rng), u(rng), u(rng)).normalized());
    const double reference = AlternatingProjectionDistance(
        [&](const Vec3& p) { return ProjectOntoBox(p, a.half_extents, pa); },
        [&](const Vec3& p) { return ProjectOntoBox(p, b.half_extents, pb); }, pb.position);
    if (reference < 1e-3) continue;  // overlapping or touching: outside the contract
    const BoxClosestPoints c = ClosestPointsOfDisjointBoxes(a, pa, b, pb);
    EXPECT_NEAR(c.distance, reference, 1e-6) << "trial " << trial;
    EXPECT_NEAR((c.on_b - c.on_a).norm(), c.distance, 1e-12);
    EXPECT_LT((ProjectOntoBox(c.on_a, a.half_extents, pa) - c.on_a).norm(), 1e-9);
    EXPECT_LT((ProjectOntoBox(c.on_b, b.half_extents, pb) - c.on_b).norm(), 1e-9);
    ++checked;
  }
  EXPECT_GT(checked, 100);
}

}  // namespace
}  // namespace ligature
