#pragma once
// A convex polytope placed in world space, so that boxes and hulls go through the same
// polytope contact code: the topology (face loops, edges) is borrowed from a ConvexHull
// (a shared unit-box hull for boxes), and the world-space vertices, face planes and edge
// data are written into a caller's buffer that is reused from call to call.

#include <span>
#include <vector>

#include "server/geometry/convex_hull.h"
#include "server/math/transform.h"

namespace ligature {

// Storage for a placed polytope's world-space data. It only grows, so once warmed up no
// placement allocates.
struct PolytopeBuffer {
  std::vector<Vec3> vertices;
  std::vector<Vec3> normals;
  std::vector<double> offsets;
  std::vector<Vec3> edge_gauss;  // per edge: normal(face_right) x normal(face_left)
};

struct Polytope {
  const ConvexHull* topology = nullptr;  // face loops and edges (local data unused)
  std::span<const Vec3> vertices;        // world (m)
  std::span<const Vec3> normals;         // world outward unit normal of each face
  std::span<const double> offsets;       // world plane offset: normals[f] . x == offsets[f]
  std::span<const Vec3> edge_gauss;      // see PolytopeBuffer::edge_gauss
  double radius = 0.0;                   // no vertex is farther than this from the pose (m)

  int face_count() const { return static_cast<int>(normals.size()); }
  int edge_count() const { return static_cast<int>(topology->edges.size()); }
  int FaceSize(int face) const { return topology->faces[face].count; }
  const Vec3& FaceVertex(int face, int i) const {
    const ConvexHull::Face& f = topology->faces[face];
    return vertices[topology->face_vertices[f.first + i]];
  }
  // Lowest projection of the vertices on `direction`.
  double MinProjection(const Vec3& direction) const;
  // A vertex farthest along `direction` (the lowest index among ties).
  int SupportIndex(const Vec3& direction) const;
};

// The box of half extents 1 as a hull: vertex k has local sign + on axis i when bit i of k
// is set (the order of BoxCorners); faces in the order -X, +X, -Y, +Y, -Z, +Z.
const ConvexHull& UnitBoxTopology();

// A box of half extents `half` at `pose`, and a hull at `pose`; the views point into
// `buffer`, valid until it is used again.
Polytope PlaceBox(const Vec3& half, const Transform& pose, PolytopeBuffer* buffer);
Polytope PlaceHull(const ConvexHull& hull, const Transform& pose, PolytopeBuffer* buffer);

}  // namespace ligature
