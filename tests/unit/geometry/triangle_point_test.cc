// The nearest point of a triangle against hand values: inside, beyond a vertex and beyond
// an edge.

#include "server/geometry/triangle_point.h"

#include <gtest/gtest.h>

namespace ligature {
namespace {

TEST(TrianglePointTest, NearestPointAsBarycentricWeights) {
  const Vec3 a(0, 0, 0), b(1, 0, 0), c(0, 1, 0);
  EXPECT_LT((ClosestPointBarycentric(Vec3(0.2, 0.3, 5.0), a, b, c) - Vec3(0.5, 0.2, 0.3)).norm(),
            1e-12);
  EXPECT_LT((ClosestPointBarycentric(Vec3(-1, -1, 1), a, b, c) - Vec3(1, 0, 0)).norm(), 1e-12);
  EXPECT_LT((ClosestPointBarycentric(Vec3(0.5, -2, 0), a, b, c) - Vec3(0.5, 0.5, 0)).norm(),
            1e-12);
  EXPECT_LT((ClosestPointBarycentric(Vec3(1, 1, 0), a, b, c) - Vec3(0, 0.5, 0.5)).norm(), 1e-12);
}

}  // namespace
}  // namespace ligature
