#include "server/collision/ray_cast.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

namespace ligature {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// A hit in the shape's frame: distance along the ray and outward normal (local).
struct LocalHit {
  double t = kInfinity;
  Vec3 normal = Vec3::UnitY();
  int triangle = -1;
};

// The ray enters a sphere of radius r about the origin: the smaller root of
// |o + t d|^2 = r^2, or 0 from inside.
std::optional<LocalHit> RaySphere(const Vec3& o, const Vec3& d, double r) {
  const double b = o.dot(d);
  const double c = o.squaredNorm() - r * r;
  if (c <= 0.0) return LocalHit{0.0, -d};
  const double disc = b * b - c;
  if (b > 0.0 || disc < 0.0) return std::nullopt;
  const double t = -b - std::sqrt(disc);
  return LocalHit{t, (o + t * d) / r};
}

// Slabs of a box [-h, h]: the ray enters where the last slab is entered, through that
// slab's face; it misses when a slab is left before all are entered.
std::optional<LocalHit> RayBox(const Vec3& o, const Vec3& d, const Vec3& h) {
  double enter = -kInfinity, leave = kInfinity;
  int axis = -1;
  for (int i = 0; i < 3; ++i) {
    if (d[i] == 0.0) {
      if (std::abs(o[i]) > h[i]) return std::nullopt;
      continue;
    }
    double t0 = (-h[i] - o[i]) / d[i], t1 = (h[i] - o[i]) / d[i];
    if (t0 > t1) std::swap(t0, t1);
    if (t0 > enter) {
      enter = t0;
      axis = i;
    }
    leave = std::min(leave, t1);
  }
  if (leave < std::max(enter, 0.0)) return std::nullopt;
  if (enter <= 0.0 || axis < 0) return LocalHit{0.0, -d};
  Vec3 normal = Vec3::Zero();
  normal[axis] = d[axis] > 0.0 ? -1.0 : 1.0;
  return LocalHit{enter, normal};
}

// A capsule along Y: the side (an infinite cylinder of radius r, within the segment's
// height) or the nearer of the two end spheres, whichever the ray meets first.
std::optional<LocalHit> RayCapsule(const Vec3& o, const Vec3& d, double r, double half) {
  const double y = std::clamp(o.y(), -half, half);
  if ((o - Vec3(0.0, y, 0.0)).squaredNorm() <= r * r) return LocalHit{0.0, -d};
  std::optional<LocalHit> best;
  // The side: |(o + t d)_xz|^2 = r^2, entering root, hit within the segment's height.
  const double a = d.x() * d.x() + d.z() * d.z();
  if (a > 0.0) {
    const double b = o.x() * d.x() + o.z() * d.z();
    const double c = o.x() * o.x() + o.z() * o.z() - r * r;
    const double disc = b * b - a * c;
    if (disc >= 0.0) {
      const double t = (-b - std::sqrt(disc)) / a;
      const Vec3 p = o + t * d;
      if (t >= 0.0 && std::abs(p.y()) <= half) best = LocalHit{t, Vec3(p.x(), 0.0, p.z()) / r};
    }
  }
  for (const double end : {-half, half}) {
    auto cap = RaySphere(o - Vec3(0.0, end, 0.0), d, r);
    if (cap && (!best || cap->t < best->t)) best = cap;
  }
  return best;
}

// The half-space y <= 0 behind a plane.
std::optional<LocalHit> RayPlane(const Vec3& o, const Vec3& d) {
  if (o.y() <= 0.0) return LocalHit{0.0, -d};
  if (d.y() >= 0.0) return std::nullopt;
  return LocalHit{-o.y() / d.y(), Vec3::UnitY()};
}

// A convex polyhedron as the intersection of its faces' half-spaces (as the box's slabs).
std::optional<LocalHit> RayHull(const Vec3& o, const Vec3& d, const ConvexHull& hull) {
  double enter = -kInfinity, leave = kInfinity;
  Vec3 normal = Vec3::UnitY();
  for (const ConvexHull::Face& f : hull.faces) {
    const double height = f.normal.dot(o) - f.offset;  // > 0: outside this face
    const double rate = f.normal.dot(d);
    if (rate == 0.0) {
      if (height > 0.0) return std::nullopt;
      continue;
    }
    const double t = -height / rate;
    if (rate < 0.0) {
      if (t > enter) {
        enter = t;
        normal = f.normal;
      }
    } else {
      leave = std::min(leave, t);
    }
  }
  if (leave < std::max(enter, 0.0)) return std::nullopt;
  if (enter <= 0.0) return LocalHit{0.0, -d};
  return LocalHit{enter, normal};
}

// Where the ray meets triangle (a, b, c) from either side (Moller-Trumbore), at a distance
// in [0, max_t].
std::optional<double> RayTriangle(const Vec3& o, const Vec3& d, const Vec3& a, const Vec3& b,
                                  const Vec3& c, double max_t) {
  const Vec3 e1 = b - a, e2 = c - a;
  const Vec3 p = d.cross(e2);
  const double det = e1.dot(p);
  if (det == 0.0) return std::nullopt;
  const Vec3 s = o - a;
  const double u = s.dot(p) / det;
  if (u < 0.0 || u > 1.0) return std::nullopt;
  const Vec3 q = s.cross(e1);
  const double v = d.dot(q) / det;
  if (v < 0.0 || u + v > 1.0) return std::nullopt;
  const double hit = e2.dot(q) / det;
  if (hit < 0.0 || hit > max_t) return std::nullopt;
  return hit;
}

// A mesh triangle's front met by the ray, at a distance in [0, max_t]. Moller-Trumbore's
// determinant is -d . ((b - a) x (c - a)), positive exactly when the ray meets the front
// (the side the stored normal faces), so the normal is not read; the corner and edges come
// side by side from the mesh's ray_edges. The barycentric tests are scaled by the
// determinant: one division.
std::optional<double> RayTriangleFront(const Vec3& o, const Vec3& d, const TriangleMesh& mesh,
                                       int t, double max_t) {
  const auto& [a, e1, e2] = mesh.ray_edges[t];
  const Vec3 p = d.cross(e2);
  const double det = e1.dot(p);
  if (!(det > 0.0)) return std::nullopt;  // from behind, along it, or degenerate
  const Vec3 s = o - a;
  const double su = s.dot(p);
  if (su < 0.0 || su > det) return std::nullopt;
  const Vec3 q = s.cross(e1);
  const double sv = d.dot(q);
  if (sv < 0.0 || su + sv > det) return std::nullopt;
  const double hit = e2.dot(q) / det;
  if (hit < 0.0 || hit > max_t) return std::nullopt;
  return hit;
}

// The nearest front a ray meets in a mesh, through its four-wide tree: triangles whose
// bounds the ray enters, nearest entry first, each entered beyond the nearest hit so far
// skipped.
std::optional<LocalHit> RayMesh(const Vec3& o, const Vec3& d, const TriangleMesh& mesh,
                                double max_t) {
  LocalHit best;
  best.t = max_t;
  mesh.ray_tree.Ray(o, d, Vec3::Zero(), &best.t, [&](int t, double* reach) {
    auto hit = RayTriangleFront(o, d, mesh, t, *reach);
    if (hit && (best.triangle < 0 || *hit < best.t)) best = LocalHit{*hit, mesh.normals[t], t};
  }, [&](int t) {
    __builtin_prefetch(&mesh.ray_edges[t]);
    __builtin_prefetch(reinterpret_cast<const char*>(&mesh.ray_edges[t]) + 64);
  });
  if (best.triangle < 0) return std::nullopt;
  return best;
}

}  // namespace

std::optional<RayHit> CastRay(const Shape& shape, const Transform& pose, const Vec3& origin,
                              const Vec3& direction, double max_distance) {
  // In the shape's frame: the same distances, as the pose is rigid.
  const Vec3 o = pose.InverseApply(origin);
  const Vec3 d = pose.InverseRotate(direction);
  std::optional<LocalHit> hit;
  switch (shape.type) {
    case ShapeType::kSphere:
      hit = RaySphere(o, d, shape.radius);
      break;
    case ShapeType::kBox:
      hit = RayBox(o, d, shape.half_extents);
      break;
    case ShapeType::kCapsule:
      hit = RayCapsule(o, d, shape.radius, shape.half_length);
      break;
    case ShapeType::kPlane:
      hit = RayPlane(o, d);
      break;
    case ShapeType::kHull:
      hit = RayHull(o, d, *shape.hull);
      break;
    case ShapeType::kMesh:
      hit = RayMesh(o, d, *shape.mesh, max_distance);
      break;
  }
  if (!hit || hit->t > max_distance) return std::nullopt;
  return RayHit{hit->t, origin + hit->t * direction, pose.Rotate(hit->normal), hit->triangle};
}

std::optional<RayHit> CastRayTriangle(const Vec3& a, const Vec3& b, const Vec3& c,
                                      const Vec3& origin, const Vec3& direction,
                                      double max_distance) {
  const Vec3 normal = (b - a).cross(c - a);
  if (normal.dot(direction) >= 0.0) return std::nullopt;  // from behind or along it
  const auto t = RayTriangle(origin, direction, a, b, c, max_distance);
  if (!t) return std::nullopt;
  return RayHit{*t, origin + *t * direction, normal.normalized(), -1};
}

}  // namespace ligature
