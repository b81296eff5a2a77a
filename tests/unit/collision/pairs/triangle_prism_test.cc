#include "server/collision/pairs/triangle_prism.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>
#include <vector>

#include "server/model/rigid/triangle_mesh_builder.h"

namespace ligature {
namespace {

// The prism is a closed convex polyhedron: each face's loop lies on its plane and runs
// counter-clockwise seen from outside, every vertex is on or behind every face, and each
// edge joins the faces whose loops run along it in opposite directions. Its front is the
// triangle, and it reaches the longest edge (here 2.5 m, from corner 1 to 2) behind.
TEST(TrianglePrismTest, IsAClosedConvexPrismBehindTheTriangle) {
  const std::vector<Vec3> v = {{0.3, 1.0, -0.2}, {2.0, 1.4, 0.1}, {0.5, 0.2, 1.7}};
  auto mesh = BuildTriangleMesh(v, std::vector<uint32_t>{0, 1, 2});
  ASSERT_TRUE(mesh.ok());
  const Vec3 n = (*mesh)->normals[0];
  {
    const Vec3 front = n;
    const double depth = (v[2] - v[1]).norm();
    ConvexHull prism;
    const Vec3 centre = PlaceTrianglePrism(**mesh, 0, &prism);
    EXPECT_LT((centre - (v[0] + v[1] + v[2]) / 3.0).norm(), 1e-15);
    ASSERT_EQ(prism.vertices.size(), 6u);
    ASSERT_EQ(prism.faces.size(), 5u);
    ASSERT_EQ(prism.edges.size(), 9u);
    EXPECT_EQ(prism.faces[0].normal, front);
    // The front face is the triangle itself.
    std::set<std::vector<double>> corners, front_face;
    for (const Vec3& c : v) {
      const Vec3 local = c - centre;
      corners.insert({local.x(), local.y(), local.z()});
    }
    for (int i = 0; i < 3; ++i) {
      const Vec3& p = prism.FaceVertex(prism.faces[0], i);
      front_face.insert({p.x(), p.y(), p.z()});
    }
    EXPECT_EQ(front_face, corners);
    for (const ConvexHull::Face& f : prism.faces) {
      EXPECT_NEAR(f.normal.norm(), 1.0, 1e-15);
      Vec3 newell = Vec3::Zero();
      for (int i = 0; i < f.count; ++i) {
        const Vec3& p = prism.FaceVertex(f, i);
        const Vec3& q = prism.FaceVertex(f, (i + 1) % f.count);
        EXPECT_NEAR(f.normal.dot(p), f.offset, 1e-12);
        newell += p.cross(q);
      }
      EXPECT_GT(newell.dot(f.normal), 0.0);
      for (const Vec3& p : prism.vertices) EXPECT_LE(f.normal.dot(p), f.offset + 1e-12);
    }
    for (const ConvexHull::Edge& e : prism.edges) {
      ASSERT_LT(e.a, e.b);
      const auto runs = [&](int face, int from, int to) {
        const ConvexHull::Face& f = prism.faces[face];
        for (int i = 0; i < f.count; ++i) {
          if (prism.face_vertices[f.first + i] == from &&
              prism.face_vertices[f.first + (i + 1) % f.count] == to) {
            return true;
          }
        }
        return false;
      };
      EXPECT_TRUE(runs(e.face_left, e.a, e.b));
      EXPECT_TRUE(runs(e.face_right, e.b, e.a));
    }
    EXPECT_NEAR(prism.centroid.dot(front), -0.5 * depth, 1e-12);
    for (int k = 3; k < 6; ++k) EXPECT_NEAR(prism.vertices[k].dot(front), -depth, 1e-12);
  }
}

}  // namespace
}  // namespace ligature
