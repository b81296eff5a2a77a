#include "server/geometry/shape_features.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

namespace ligature {
namespace {

// A triangle in the plane y = 0, counter-clockwise seen from above (normal +y), with legs
// of 0.1 m along x and z.
const Vec3 kA(0.0, 0.0, 0.0), kB(0.0, 0.0, 0.1), kC(0.1, 0.0, 0.0);

TEST(ShapeFeaturesTest, ShapesGiveTheirSegments) {
  std::vector<ShapeFeature> f;
  const Transform pose{Vec3(1.0, 2.0, 3.0), Quat(Eigen::AngleAxisd(0.3, Vec3::UnitZ()))};
  AppendShapeFeatures(Shape::Sphere(0.1), pose, &f);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].a, pose.position);
  EXPECT_EQ(f[0].b, pose.position);
  EXPECT_EQ(f[0].radius, 0.1);
  f.clear();
  AppendShapeFeatures(Shape::Capsule(0.02, 0.5), pose, &f);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_LT((f[0].b - f[0].a - pose.orientation * Vec3(0.0, 1.0, 0.0)).norm(), 1e-15);
  EXPECT_EQ(f[0].radius, 0.02);
  // A box's twelve edges: four along each axis, as long as the box, through its corners.
  f.clear();
  const Vec3 half(0.1, 0.2, 0.3);
  AppendShapeFeatures(Shape::Box(half), Transform{}, &f);
  ASSERT_EQ(f.size(), 12u);
  std::array<int, 3> along = {0, 0, 0};
  for (const ShapeFeature& e : f) {
    const Vec3 d = (e.b - e.a).cwiseAbs();
    int axis = 0;
    d.maxCoeff(&axis);
    ++along[axis];
    EXPECT_NEAR(d[axis], 2.0 * half[axis], 1e-15);
    EXPECT_NEAR((e.a.cwiseAbs() - half).norm(), 0.0, 1e-15);  // a corner
    EXPECT_EQ(e.radius, 0.0);
  }
  EXPECT_EQ(along, (std::array<int, 3>{4, 4, 4}));
  f.clear();
  AppendShapeFeatures(Shape::Plane(), pose, &f);
  EXPECT_TRUE(f.empty());
}

// A sphere over the triangle's inside: its lowest point, the radius below its centre, at
// the centre's height minus the radius, over the point with the barycentric coordinates
// of the centre's projection.
TEST(ShapeFeaturesTest, SphereOverTheInside) {
  std::array<TriangleFeatureHit, 2> hits;
  const ShapeFeature sphere{Vec3(0.02, 0.01, 0.03), Vec3(0.02, 0.01, 0.03), 0.004};
  ASSERT_EQ(FeatureOverTriangle(sphere, kA, kB, kC, 0.01, 0.003, &hits), 1);
  EXPECT_NEAR(hits[0].distance, 0.006, 1e-15);
  // q = a + 0.3 (b - a) + 0.2 (c - a): weights (0.5, 0.3, 0.2).
  EXPECT_LT((hits[0].barycentric - Vec3(0.5, 0.3, 0.2)).norm(), 1e-14);
  EXPECT_LT((hits[0].on_triangle - Vec3(0.02, 0.0, 0.03)).norm(), 1e-15);
  EXPECT_LT((hits[0].on_feature - Vec3(0.02, 0.006, 0.03)).norm(), 1e-15);
  // Sunk 2 mm into the face: a negative distance.
  const ShapeFeature sunk{Vec3(0.02, 0.002, 0.03), Vec3(0.02, 0.002, 0.03), 0.004};
  ASSERT_EQ(FeatureOverTriangle(sunk, kA, kB, kC, 0.01, 0.003, &hits), 1);
  EXPECT_NEAR(hits[0].distance, -0.002, 1e-15);
}

// What the face leaves to others: a point beyond the margin, one sunk deeper than the
// depth allowed (3 mm), one outside the prism, and one over a vertex (the vertex meets the
// shape itself).
TEST(ShapeFeaturesTest, FarDeepOutsideAndOverAVertexAreNotTheFaces) {
  std::array<TriangleFeatureHit, 2> hits;
  const auto point = [](const Vec3& p) { return ShapeFeature{p, p, 0.0}; };
  EXPECT_EQ(FeatureOverTriangle(point(Vec3(0.02, 0.011, 0.03)), kA, kB, kC, 0.01, 0.003, &hits), 0);
  EXPECT_EQ(FeatureOverTriangle(point(Vec3(0.02, -0.0031, 0.03)), kA, kB, kC, 0.01, 0.003, &hits),
            0);
  EXPECT_EQ(FeatureOverTriangle(point(Vec3(0.08, 0.001, 0.08)), kA, kB, kC, 0.01, 0.003, &hits), 0);
  EXPECT_EQ(FeatureOverTriangle(point(Vec3(0.0, 0.001, 0.0)), kA, kB, kC, 0.01, 0.003, &hits), 0);
  // Seen from below, the triangle runs clockwise: its normal points away, and a point
  // under it is 1 mm above that side.
  EXPECT_EQ(FeatureOverTriangle(point(Vec3(0.02, -0.001, 0.03)), kA, kC, kB, 0.01, 0.003, &hits),
            1);
  EXPECT_NEAR(hits[0].distance, 0.001, 1e-15);
}

// A sphere resting on a ridge between two faces at right angles, its centre over neither:
// both faces hold it, at distance 0 from the ridge's nearest point, along the line from
// the ridge to the centre.
TEST(ShapeFeaturesTest, SphereOnARidgeMeetsBothFaces) {
  // The ridge along z at the origin; the faces fall away at 45 degrees on either side.
  const Vec3 r0(0.0, 0.0, 0.0), r1(0.0, 0.0, 0.1);
  const Vec3 left(-0.1, -0.1, 0.0), right(0.1, -0.1, 0.0);
  const double radius = 0.004;
  const Vec3 centre(0.0, radius, 0.05);
  const ShapeFeature sphere{centre, centre, radius};
  std::array<TriangleFeatureHit, 2> hits;
  // Counter-clockwise seen from outside (normals up and out).
  const Vec3 ridge(0.0, 0.0, 0.05);
  ASSERT_EQ(FeatureOverTriangle(sphere, r0, r1, right, 0.01, 0.003, &hits), 1);
  EXPECT_NEAR(hits[0].distance, 0.0, 1e-15);
  EXPECT_LT((hits[0].on_triangle - ridge).norm(), 1e-15);
  EXPECT_LT((hits[0].normal - Vec3::UnitY()).norm(), 1e-15);
  ASSERT_EQ(FeatureOverTriangle(sphere, r1, r0, left, 0.01, 0.003, &hits), 1);
  EXPECT_NEAR(hits[0].distance, 0.0, 1e-15);
  EXPECT_LT((hits[0].on_triangle - ridge).norm(), 1e-15);
  EXPECT_NEAR(hits[0].barycentric.z(), 0.0, 1e-15);  // on the ridge: no weight on `left`
}

// A segment lying across the triangle, both ends outside its prism, tilted: the part over
// the triangle runs from where it enters over edge a-b (x = 0) to where it leaves over the
// hypotenuse (x + z = 0.1); both ends are hits, at their own heights.
TEST(ShapeFeaturesTest, EdgeAcrossTheFaceIsClippedToIt) {
  std::array<TriangleFeatureHit, 2> hits;
  // From (-0.05, 0.003, 0.02) to (0.15, -0.001, 0.02): y = 0.002 - 0.02 x.
  const ShapeFeature edge{Vec3(-0.05, 0.003, 0.02), Vec3(0.15, -0.001, 0.02), 0.0};
  ASSERT_EQ(FeatureOverTriangle(edge, kA, kB, kC, 0.01, 0.003, &hits), 2);
  EXPECT_LT((hits[0].on_feature - Vec3(0.0, 0.002, 0.02)).norm(), 1e-15);
  EXPECT_NEAR(hits[0].distance, 0.002, 1e-15);
  EXPECT_LT((hits[1].on_feature - Vec3(0.08, 0.0004, 0.02)).norm(), 1e-15);
  EXPECT_NEAR(hits[1].distance, 0.0004, 1e-15);
  // On edge a-b the weight of c is zero; on the hypotenuse that of a.
  EXPECT_NEAR(hits[0].barycentric.z(), 0.0, 1e-15);
  EXPECT_NEAR(hits[1].barycentric.x(), 0.0, 1e-15);
  // A segment that never passes over the triangle gives nothing.
  const ShapeFeature beside{Vec3(-0.05, 0.001, 0.2), Vec3(0.15, 0.001, 0.2), 0.0};
  EXPECT_EQ(FeatureOverTriangle(beside, kA, kB, kC, 0.01, 0.003, &hits), 0);
}

}  // namespace
}  // namespace ligature
