#pragma once
// Hand-built convex hulls for the collision tests: a box, a regular tetrahedron, an
// octahedron and a triangular prism, with every geometric field of ConvexHull filled
// consistently (face loops counter-clockwise seen from outside, unit outward normals and
// offsets, each edge once with its two faces, bounds). Mass fields are left at zero.

#include <algorithm>
#include <cassert>
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "server/geometry/convex_hull.h"
#include "server/geometry/shape.h"

namespace ligature::hull_fixtures {

// A hull from its vertices and face loops (each loop in either direction: it is turned
// counter-clockwise seen from outside, i.e. its Newell normal pointing away from the vertex
// mean). Edge (a < b) has face_left = the face whose loop runs a -> b, face_right the other.
inline std::shared_ptr<const ConvexHull> MakeHull(std::vector<Vec3> vertices,
                                                  std::vector<std::vector<int>> loops) {
  auto hull = std::make_shared<ConvexHull>();
  Vec3 mean = Vec3::Zero();
  for (const Vec3& v : vertices) mean += v;
  mean /= static_cast<double>(vertices.size());

  for (std::vector<int>& loop : loops) {
    Vec3 newell = Vec3::Zero();
    Vec3 centre = Vec3::Zero();
    for (std::size_t i = 0; i < loop.size(); ++i) {
      const Vec3& p = vertices[loop[i]];
      const Vec3& q = vertices[loop[(i + 1) % loop.size()]];
      newell += p.cross(q);
      centre += p;
    }
    centre /= static_cast<double>(loop.size());
    if (newell.dot(centre - mean) < 0.0) {
      std::reverse(loop.begin(), loop.end());
      newell = -newell;
    }
    ConvexHull::Face f;
    f.normal = newell.normalized();
    f.offset = f.normal.dot(centre);
    f.first = static_cast<int>(hull->face_vertices.size());
    f.count = static_cast<int>(loop.size());
    for (int v : loop) hull->face_vertices.push_back(v);
    hull->faces.push_back(f);
  }

  for (int fi = 0; fi < static_cast<int>(hull->faces.size()); ++fi) {
    const ConvexHull::Face& f = hull->faces[fi];
    for (int i = 0; i < f.count; ++i) {
      const int p = hull->face_vertices[f.first + i];
      const int q = hull->face_vertices[f.first + (i + 1) % f.count];
      const int lo = std::min(p, q);
      const int hi = std::max(p, q);
      ConvexHull::Edge* found = nullptr;
      for (ConvexHull::Edge& e : hull->edges) {
        if (e.a == lo && e.b == hi) found = &e;
      }
      if (found == nullptr) {
        hull->edges.push_back({lo, hi, -1, -1});
        found = &hull->edges.back();
      }
      (p < q ? found->face_left : found->face_right) = fi;
    }
  }
  for (const ConvexHull::Edge& e : hull->edges) {
    assert(e.face_left >= 0 && e.face_right >= 0 && e.face_left != e.face_right);
    (void)e;
  }

  hull->local_min = vertices[0];
  hull->local_max = vertices[0];
  for (const Vec3& v : vertices) {
    hull->local_min = hull->local_min.cwiseMin(v);
    hull->local_max = hull->local_max.cwiseMax(v);
    hull->bounding_radius = std::max(hull->bounding_radius, v.norm());
  }
  hull->points = vertices;
  hull->max_vertices = static_cast<int>(vertices.size());
  hull->vertices = std::move(vertices);
  return hull;
}

// Box of half extents `h`: vertex k has sign + on axis i when bit i of k is set.
inline std::shared_ptr<const ConvexHull> BoxHull(const Vec3& h) {
  std::vector<Vec3> v;
  for (int k = 0; k < 8; ++k) {
    v.emplace_back((k & 1) ? h.x() : -h.x(), (k & 2) ? h.y() : -h.y(), (k & 4) ? h.z() : -h.z());
  }
  return MakeHull(
      v, {{0, 2, 6, 4}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 5, 7, 6}});
}

// Regular tetrahedron with vertices s (1, 1, 1), s (1, -1, -1), s (-1, 1, -1), s (-1, -1, 1)
// (edge 2 sqrt 2 s); the face opposite vertex i has normal -vertex_i / |vertex_i| and offset
// s / sqrt 3. Faces are listed opposite vertex 0, 1, 2, 3.
inline std::shared_ptr<const ConvexHull> TetrahedronHull(double s) {
  return MakeHull({Vec3(s, s, s), Vec3(s, -s, -s), Vec3(-s, s, -s), Vec3(-s, -s, s)},
                  {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}});
}

// Octahedron with vertices at +-s on each axis (0: +x, 1: -x, 2: +y, 3: -y, 4: +z, 5: -z);
// face normals (+-1, +-1, +-1) / sqrt 3, offsets s / sqrt 3.
inline std::shared_ptr<const ConvexHull> OctahedronHull(double s) {
  std::vector<std::vector<int>> loops;
  for (int x : {0, 1}) {
    for (int y : {2, 3}) {
      for (int z : {4, 5}) loops.push_back({x, y, z});
    }
  }
  return MakeHull(
      {Vec3(s, 0, 0), Vec3(-s, 0, 0), Vec3(0, s, 0), Vec3(0, -s, 0), Vec3(0, 0, s), Vec3(0, 0, -s)},
      loops);
}

// Triangular prism: the triangle (-w, 0), (w, 0), (0, height) in XY, from z = -d to z = d.
// Vertices 0-2 at z = -d, 3-5 at z = +d. Faces: the two ends, the bottom (y = 0) and the
// two slopes meeting at the ridge (0, height, z).
inline std::shared_ptr<const ConvexHull> PrismHull(double w, double height, double d) {
  return MakeHull({Vec3(-w, 0, -d), Vec3(w, 0, -d), Vec3(0, height, -d), Vec3(-w, 0, d),
                   Vec3(w, 0, d), Vec3(0, height, d)},
                  {{0, 1, 2}, {3, 4, 5}, {0, 1, 4, 3}, {1, 2, 5, 4}, {2, 0, 3, 5}});
}

inline Shape HullShape(std::shared_ptr<const ConvexHull> hull) {
  return Shape::Hull(std::move(hull));
}

}  // namespace ligature::hull_fixtures
