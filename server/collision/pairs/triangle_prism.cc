// A mesh triangle as a prism hull: six vertices, the front and back triangles and three
// side quads, nine edges each with the faces on its two sides.

#include "server/collision/pairs/triangle_prism.h"

#include <algorithm>
#include <array>
#include <cassert>

namespace ligature {

Vec3 PlaceTrianglePrism(const TriangleMesh& mesh, int t, ConvexHull* out) {
  const Vec3 centre = (mesh.Corner(t, 0) + mesh.Corner(t, 1) + mesh.Corner(t, 2)) / 3.0;
  const Vec3& front = mesh.normals[t];
  // The corners, counter-clockwise about the normal, and the prism's depth: the longest edge.
  std::array<Vec3, 3> top;
  double depth = 0.0;
  for (int k = 0; k < 3; ++k) {
    top[k] = mesh.Corner(t, k) - centre;
    depth = std::max(depth, (mesh.Corner(t, (k + 1) % 3) - mesh.Corner(t, k)).norm());
  }
  assert(depth > 0.0);

  // Vertices 0-2 on the front, 3-5 behind them.
  out->vertices.resize(6);
  for (int k = 0; k < 3; ++k) {
    out->vertices[k] = top[k];
    out->vertices[3 + k] = top[k] - depth * front;
  }
  // Faces with their loops, counter-clockwise seen from outside.
  out->faces.resize(5);
  out->face_vertices.clear();
  const auto add_face = [&](int f, const Vec3& normal, std::initializer_list<int> loop) {
    ConvexHull::Face& face = out->faces[f];
    face.normal = normal;
    face.offset = normal.dot(out->vertices[*loop.begin()]);
    face.first = static_cast<int>(out->face_vertices.size());
    face.count = static_cast<int>(loop.size());
    out->face_vertices.insert(out->face_vertices.end(), loop);
  };
  add_face(0, front, {0, 1, 2});
  add_face(1, -front, {3, 5, 4});
  for (int k = 0; k < 3; ++k) {
    const int n = (k + 1) % 3;
    const Vec3 side = (top[n] - top[k]).cross(front).normalized();
    add_face(2 + k, side, {k, 3 + k, 3 + n, n});
  }
  // Edges, lower vertex first; the face whose loop runs from a to b is on the left.
  out->edges.clear();
  const auto add_edge = [&](int from, int to, int face_along, int face_back) {
    if (from < to) {
      out->edges.push_back({from, to, face_along, face_back});
    } else {
      out->edges.push_back({to, from, face_back, face_along});
    }
  };
  for (int k = 0; k < 3; ++k) {
    const int n = (k + 1) % 3;
    const int prev = 2 + (k + 2) % 3;
    add_edge(k, n, 0, 2 + k);          // front edge: the front runs k -> n
    add_edge(3 + k, 3 + n, 2 + k, 1);  // back edge: side k runs 3+k -> 3+n
    add_edge(k, 3 + k, 2 + k, prev);   // depth edge: side k runs k -> 3+k
  }
  // Bounds and radius about the centroid.
  out->local_min = out->local_max = out->vertices[0];
  out->bounding_radius = 0.0;
  for (const Vec3& v : out->vertices) {
    out->local_min = out->local_min.cwiseMin(v);
    out->local_max = out->local_max.cwiseMax(v);
    out->bounding_radius = std::max(out->bounding_radius, v.norm());
  }
  out->centroid = -0.5 * depth * front;
  return centre;
}

}  // namespace ligature
