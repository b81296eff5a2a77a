// Rigid shapes' features against a surface triangle: segments clipped to the prism over the
// triangle, their ends measured along its normal or, beside it, from its edges.

#include "server/geometry/shape_features.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "server/geometry/convex_hull.h"
#include "server/geometry/triangle_point.h"

namespace ligature {
namespace {

// Barycentric coordinates at or above this are the triangle's vertex: the vertex's own
// test meets the shape there.
constexpr double kAtVertex = 1.0 - 1e-6;
// Two ends of a clipped feature closer than this (m) are one.
constexpr double kSameEnd = 1e-9;

}  // namespace

void AppendShapeFeatures(const Shape& shape, const Transform& pose,
                         std::vector<ShapeFeature>* out) {
  switch (shape.type) {
    case ShapeType::kSphere: out->push_back({pose.position, pose.position, shape.radius}); return;
    case ShapeType::kCapsule: {
      const Vec3 half = pose.orientation * Vec3(0.0, shape.half_length, 0.0);
      out->push_back({pose.position - half, pose.position + half, shape.radius});
      return;
    }
    case ShapeType::kBox: {
      // The twelve edges: along each axis, from each of the four corners of the face
      // across it.
      const Vec3& e = shape.half_extents;
      for (int axis = 0; axis < 3; ++axis) {
        const int u = (axis + 1) % 3, v = (axis + 2) % 3;
        for (const double su : {-1.0, 1.0}) {
          for (const double sv : {-1.0, 1.0}) {
            Vec3 from = Vec3::Zero();
            from[u] = su * e[u];
            from[v] = sv * e[v];
            Vec3 to = from;
            from[axis] = -e[axis];
            to[axis] = e[axis];
            out->push_back({pose.Apply(from), pose.Apply(to), 0.0});
          }
        }
      }
      return;
    }
    case ShapeType::kHull: {
      if (!shape.hull) return;
      const ConvexHull& hull = *shape.hull;
      for (const ConvexHull::Edge& edge : hull.edges) {
        out->push_back({pose.Apply(hull.vertices[edge.a]), pose.Apply(hull.vertices[edge.b]), 0.0});
      }
      return;
    }
    case ShapeType::kPlane:
    case ShapeType::kMesh: return;
  }
}

double FeatureDistance(const ShapeFeature& feature, const Vec3& point) {
  const Vec3 d = feature.b - feature.a;
  const double length2 = d.squaredNorm();
  const double t = length2 > 0.0 ? std::clamp((point - feature.a).dot(d) / length2, 0.0, 1.0) : 0.0;
  return (point - (feature.a + t * d)).norm() - feature.radius;
}

int FeatureOverTriangle(const ShapeFeature& feature, const Vec3& a, const Vec3& b, const Vec3& c,
                        double margin, double max_depth, std::array<TriangleFeatureHit, 2>* out) {
  const Vec3 ab = b - a, ac = c - a;
  const Vec3 cross = ab.cross(ac);
  const double area2 = cross.norm();
  if (!(area2 > 0.0)) return 0;
  const Vec3 n = cross / area2;
  // Clip the segment to the prism, its sides moved out by the feature's radius: a sphere or
  // capsule whose axis passes beside the triangle can still touch it, as one resting on a
  // ridge between two faces (its axis over neither) touches both. Each side's inward
  // normal is n x edge (the triangle runs counter-clockwise seen along n).
  const Vec3 d = feature.b - feature.a;
  double t0 = 0.0, t1 = 1.0;
  const std::array<std::pair<Vec3, Vec3>, 3> sides = {{{a, b}, {b, c}, {c, a}}};
  for (const auto& [from, to] : sides) {
    const Vec3 inward = n.cross(to - from);
    const double at_start = inward.dot(feature.a - from) + feature.radius * inward.norm();
    const double rate = inward.dot(d);
    if (rate == 0.0) {
      if (at_start < 0.0) return 0;
      continue;
    }
    const double t = -at_start / rate;
    if (rate > 0.0) {
      t0 = std::max(t0, t);
    } else {
      t1 = std::min(t1, t);
    }
    if (t0 > t1) return 0;
  }
  int count = 0;
  Vec3 first_end = Vec3::Zero();
  for (const double t : {t0, t1}) {
    const Vec3 p = feature.a + t * d;
    if (count == 1 && (p - first_end).norm() < kSameEnd) break;
    // Over the triangle (or sunk beside it): the distance along its normal. Above the
    // plane beside it: the distance to the nearest point of its edges, along the line
    // between them.
    const double height = n.dot(p - a);
    const Vec3 q = p - height * n;
    const double wb = (q - a).cross(ac).dot(n) / area2;
    const double wc = ab.cross(q - a).dot(n) / area2;
    const Vec3 raw(1.0 - wb - wc, wb, wc);
    const Vec3 w = raw.minCoeff() >= 0.0 ? raw : ClosestPointBarycentric(q, a, b, c);
    const Vec3 on_triangle = w[0] * a + w[1] * b + w[2] * c;
    Vec3 normal = n;
    double distance = height - feature.radius;
    if (raw.minCoeff() < 0.0 && height > 0.0) {
      const Vec3 apart = p - on_triangle;
      const double length = apart.norm();
      if (length > 0.0) normal = apart / length;
      distance = length - feature.radius;
    }
    if (!(distance < margin) || distance < -max_depth || w.maxCoeff() >= kAtVertex) continue;
    if (count == 0) first_end = p;
    (*out)[count++] = {w, normal, on_triangle, p - feature.radius * normal, distance};
    if (t0 == t1) break;
  }
  return count;
}

}  // namespace ligature
