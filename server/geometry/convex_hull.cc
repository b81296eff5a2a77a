#include "server/geometry/convex_hull.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ligature {
namespace {

// The point of segment [a, b] nearest to p.
Vec3 NearestOnSegment(const Vec3& a, const Vec3& b, const Vec3& p) {
  const Vec3 ab = b - a;
  const double len_sq = ab.squaredNorm();
  if (len_sq <= 0.0) return a;
  return a + std::clamp((p - a).dot(ab) / len_sq, 0.0, 1.0) * ab;
}

}  // namespace

HullSurfacePoint NearestSurfacePoint(const ConvexHull& hull, const Vec3& p) {
  // The face whose plane is farthest above p: below every plane, p is inside and that
  // plane's face is the nearest surface (its projection lies within every other half-space).
  int top = 0;
  double top_height = -std::numeric_limits<double>::infinity();
  for (int f = 0; f < static_cast<int>(hull.faces.size()); ++f) {
    const double h = hull.faces[f].normal.dot(p) - hull.faces[f].offset;
    if (h > top_height) {
      top_height = h;
      top = f;
    }
  }
  const ConvexHull::Face& top_face = hull.faces[top];
  if (top_height <= 0.0) {
    return {top_height, p - top_height * top_face.normal, top_face.normal};
  }

  // Outside: the nearest point lies on a face that p is above. On each such face it is the
  // projection when that falls within the loop, else the nearest point of the loop's edges.
  HullSurfacePoint best;
  best.distance = std::numeric_limits<double>::infinity();
  for (const ConvexHull::Face& face : hull.faces) {
    const double h = face.normal.dot(p) - face.offset;
    if (h <= 0.0) continue;
    const Vec3 projected = p - h * face.normal;
    bool inside = true;
    double edge_best = std::numeric_limits<double>::infinity();
    Vec3 edge_point = projected;
    for (int i = 0; i < face.count; ++i) {
      const Vec3& a = hull.FaceVertex(face, i);
      const Vec3& b = hull.FaceVertex(face, (i + 1) % face.count);
      if ((b - a).cross(projected - a).dot(face.normal) < 0.0) inside = false;
      const Vec3 q = NearestOnSegment(a, b, p);
      const double d = (p - q).squaredNorm();
      if (d < edge_best) {
        edge_best = d;
        edge_point = q;
      }
    }
    if (inside) {
      if (h < best.distance) best = {h, projected, face.normal};
      continue;
    }
    const double d = std::sqrt(edge_best);
    if (d < best.distance) best = {d, edge_point, (p - edge_point) / d};
  }
  return best;
}

}  // namespace ligature
