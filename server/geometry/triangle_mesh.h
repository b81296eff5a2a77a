#pragma once
// A surface of triangles in its shape's local frame, for static and kinematic bodies (a
// room, a terrain): the constant data a mesh shape shares between every body that uses it
// (built once by server/model/rigid/triangle_mesh_builder, never changed after). Triangles
// collide on their front, the side from which their corners run counter-clockwise. Each
// knows which of its edges are active: open, or a convex crease; a contact on an inactive
// edge (a flat or concave seam between two triangles) takes the triangle's face normal, so
// bodies roll and slide across seams without bumps.

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "server/geometry/aabb.h"
#include "server/geometry/height_field.h"
#include "server/geometry/wide_tree.h"
#include "server/math/types.h"

namespace ligature {

struct TriangleMesh {
  // One node of the bounding-volume tree: its bounds, and either two children or, for a
  // leaf, `count` triangles of `order` from `first`.
  struct Node {
    Aabb bounds;
    int left = -1;  // inner node: index of its first child; -1 for a leaf
    int right = -1;
    int first = 0;  // leaf: first index into `order`
    int count = 0;  // leaf: number of triangles
  };

  std::vector<Vec3> vertices;                 // m
  std::vector<std::array<int, 3>> triangles;  // vertex indices, counter-clockwise from the front
  std::vector<Vec3> normals;                  // per triangle: unit front normal
  // Per triangle, bit k set: the edge from corner k to corner k + 1 is active.
  std::vector<uint8_t> active_edges;

  std::vector<Node> nodes;  // the tree; nodes[0] is the root (none for an empty mesh)
  std::vector<int> order;   // triangle indices, grouped by leaf
  // The same triangles' bounds in a four-wide single-precision tree, for rays and swept
  // boxes (its items are triangle indices), and per triangle its first corner and the edges
  // from it to the second and third, side by side for the ray's test.
  WideTree ray_tree;
  std::vector<std::array<Vec3, 3>> ray_edges;

  Vec3 local_min = Vec3::Zero();  // local bounds of the vertices (m)
  Vec3 local_max = Vec3::Zero();

  // The grid a height-field mesh was built from; none for a mesh given as triangles.
  std::shared_ptr<const HeightField> height_field;

  const Vec3& Corner(int triangle, int k) const { return vertices[triangles[triangle][k]]; }

  // The triangles whose bounds meet `box` (local frame), appended to `out` in tree order.
  void Overlapping(const Aabb& box, std::vector<int>* out) const;
};

// The point of a mesh's surface nearest to a point, all in the mesh's frame: the distance
// (m), negative when the point is behind the nearest triangle (triangles collide on their
// front), the surface point and the unit normal along which the point leaves the surface
// (from the surface point towards it in front; the triangle's front normal behind or on
// the surface). For an empty mesh, an infinite distance.
struct MeshSurfacePoint {
  double distance = 0.0;
  Vec3 point = Vec3::Zero();
  Vec3 normal = Vec3::UnitY();
  int triangle = -1;
};
MeshSurfacePoint NearestSurfacePoint(const TriangleMesh& mesh, const Vec3& p);

// The edges of a mesh whose triangles are otherwise known (vertices, triangles, normals):
// an edge shared by exactly two triangles is active when they make a convex crease sharper
// than `crease_angle` (rad); an open edge, or one shared by more than two, is active.
void MarkActiveEdges(double crease_angle, TriangleMesh* mesh);

// Builds the bounding-volume tree over the triangles (median splits along the longest
// axis of the triangle centres, at most `leaf_size` triangles a leaf), the four-wide tree
// for rays and the bounds.
void BuildMeshTree(int leaf_size, TriangleMesh* mesh);

}  // namespace ligature
