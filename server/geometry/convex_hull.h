#pragma once
// A convex polyhedron in its shape's local frame: the constant data a hull shape shares
// between every body that uses it (built once, from points, by
// server/model/rigid/convex_hull_builder, and never changed after).

#include <vector>

#include "server/math/types.h"

namespace ligature {

struct ConvexHull {
  // One planar face: outward unit normal, plane offset (normal . x == offset on the face)
  // and its vertex loop, counter-clockwise seen from outside, as `count` indices into
  // face_vertices from `first`.
  struct Face {
    Vec3 normal = Vec3::UnitY();
    double offset = 0.0;
    int first = 0;
    int count = 0;
  };
  // One edge, as two indices into `vertices` (lower first), with the two faces it joins:
  // on its left the face whose loop runs from a to b, on its right the one running back.
  struct Edge {
    int a = 0;
    int b = 0;
    int face_left = 0;
    int face_right = 0;
  };

  // The points the hull was built from, as given: a description of the hull that rebuilds
  // it exactly (scene export, snapshots).
  std::vector<Vec3> points;
  int max_vertices = 0;         // the vertex cap it was built with
  double weld_tolerance = 0.0;  // m: points closer than this were merged first

  std::vector<Vec3> vertices;     // m
  std::vector<Face> faces;
  std::vector<int> face_vertices;  // the faces' loops, concatenated
  std::vector<Edge> edges;

  Vec3 local_min = Vec3::Zero();  // local bounds of the vertices (m)
  Vec3 local_max = Vec3::Zero();
  double bounding_radius = 0.0;   // max |vertex| about the local origin (m)

  // Solid of unit density: volume (m^3), centroid (m, local) and inertia about the
  // centroid in the local axes (m^5: kg m^2 per kg/m^3).
  double volume = 0.0;
  Vec3 centroid = Vec3::Zero();
  Mat3 unit_inertia = Mat3::Zero();

  // The face loop's i-th vertex.
  const Vec3& FaceVertex(const Face& f, int i) const {
    return vertices[face_vertices[f.first + i]];
  }
};

// The point of a hull's surface nearest to a point, all in the hull's frame: the signed
// distance (m, negative inside), the surface point and the outward unit normal there (from
// the surface point towards an outside point; the nearest face's normal inside). Exact.
struct HullSurfacePoint {
  double distance = 0.0;
  Vec3 point = Vec3::Zero();
  Vec3 normal = Vec3::UnitY();
};
HullSurfacePoint NearestSurfacePoint(const ConvexHull& hull, const Vec3& p);

}  // namespace ligature
