#include "server/collision/pairs/polytope.h"

#include <gtest/gtest.h>

#include <cmath>

#include "server/collision/pairs/geometry.h"
#include "tests/unit/collision/collision_test_util.h"
#include "tests/unit/collision/pairs/hull_fixtures.h"

namespace ligature {
namespace {

using collision_testing::AxisAngleDeg;
using collision_testing::Pose;

TEST(PolytopeTest, UnitBoxTopologyIsAClosedCounterClockwiseBox) {
  const ConvexHull& box = UnitBoxTopology();
  ASSERT_EQ(box.vertices.size(), 8u);
  ASSERT_EQ(box.faces.size(), 6u);
  ASSERT_EQ(box.edges.size(), 12u);
  for (int f = 0; f < 6; ++f) {
    const ConvexHull::Face& face = box.faces[f];
    // Faces -X, +X, -Y, +Y, -Z, +Z.
    Vec3 expected = Vec3::Zero();
    expected[f / 2] = (f & 1) ? 1.0 : -1.0;
    EXPECT_EQ(face.normal, expected);
    EXPECT_EQ(face.offset, 1.0);
    ASSERT_EQ(face.count, 4);
    for (int i = 0; i < 4; ++i) {
      const Vec3& a = box.FaceVertex(face, i);
      const Vec3& b = box.FaceVertex(face, (i + 1) % 4);
      const Vec3& c = box.FaceVertex(face, (i + 2) % 4);
      EXPECT_EQ(face.normal.dot(a), 1.0);
      EXPECT_GT((b - a).cross(c - b).dot(face.normal), 0.0);
    }
  }
  // Each edge: its end points differ in one coordinate, and both faces hold both ends.
  for (const ConvexHull::Edge& e : box.edges) {
    EXPECT_LT(e.a, e.b);
    EXPECT_EQ((box.vertices[e.b] - box.vertices[e.a]).norm(), 2.0);
    EXPECT_NE(e.face_left, e.face_right);
    for (int f : {e.face_left, e.face_right}) {
      EXPECT_EQ(box.faces[f].normal.dot(box.vertices[e.a]), 1.0);
      EXPECT_EQ(box.faces[f].normal.dot(box.vertices[e.b]), 1.0);
    }
  }
}

TEST(PolytopeTest, PlacedBoxHasTheCornersAndFacePlanesOfTheBox) {
  const Shape shape = Shape::Box(Vec3(0.3, 0.5, 0.7));
  const Transform pose = Pose(Vec3(1, -2, 3), AxisAngleDeg(Vec3(1, 2, 3), 50));
  PolytopeBuffer buffer;
  const Polytope box = PlaceBox(shape.half_extents, pose, &buffer);
  const std::array<Vec3, 8> corners = BoxCorners(shape, pose);
  ASSERT_EQ(box.vertices.size(), 8u);
  for (int k = 0; k < 8; ++k) EXPECT_LT((box.vertices[k] - corners[k]).norm(), 1e-12);
  for (int f = 0; f < box.face_count(); ++f) {
    EXPECT_NEAR(box.normals[f].norm(), 1.0, 1e-12);
    for (int i = 0; i < box.FaceSize(f); ++i) {
      EXPECT_NEAR(box.normals[f].dot(box.FaceVertex(f, i)), box.offsets[f], 1e-12);
    }
    // The other corners are inside.
    for (const Vec3& v : box.vertices) EXPECT_LE(box.normals[f].dot(v), box.offsets[f] + 1e-12);
  }
  EXPECT_NEAR(box.radius, std::sqrt(0.09 + 0.25 + 0.49), 1e-12);
  EXPECT_EQ(box.SupportIndex(pose.Rotate(Vec3(1, 1, 1))), 7);
  EXPECT_NEAR(box.MinProjection(pose.Rotate(Vec3::UnitY())),
              pose.Rotate(Vec3::UnitY()).dot(pose.position) - 0.5, 1e-12);
}

TEST(PolytopeTest, PlacedHullMovesVerticesAndPlanes) {
  const auto hull = hull_fixtures::TetrahedronHull(1.0);
  const Transform pose = Pose(Vec3(0.5, 0, -1), AxisAngleDeg(Vec3::UnitZ(), 90));
  PolytopeBuffer buffer;
  const Polytope p = PlaceHull(*hull, pose, &buffer);
  // 90 degrees about Z: (x, y, z) -> (-y, x, z).
  EXPECT_LT((p.vertices[0] - Vec3(-0.5, 1, 0)).norm(), 1e-12);
  EXPECT_LT((p.vertices[1] - Vec3(1.5, 1, -2)).norm(), 1e-12);
  // Face 0 (opposite vertex 0): normal -(1, 1, 1) / sqrt 3 turned to (1, -1, -1) / sqrt 3,
  // offset 1 / sqrt 3 plus the normal's projection of the new origin.
  const Vec3 n = Vec3(1, -1, -1) / std::sqrt(3.0);
  EXPECT_LT((p.normals[0] - n).norm(), 1e-12);
  EXPECT_NEAR(p.offsets[0], 1 / std::sqrt(3.0) + n.dot(Vec3(0.5, 0, -1)), 1e-12);
  EXPECT_EQ(p.radius, hull->bounding_radius);
  EXPECT_EQ(p.edge_count(), 6);
}

}  // namespace
}  // namespace ligature
