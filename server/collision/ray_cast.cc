#include "server/collision/ray_cast.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "server/collision/aabb_tree.h"

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
// (the side the stored normal faces), so the normal is not read: one memory access less
// per triangle tried. The barycentric tests are scaled by the determinant: one division.
std::optional<double> RayTriangleFront(const Vec3& o, const Vec3& d, const TriangleMesh& mesh,
                                       int t, double max_t) {
  const std::array<int, 3>& corners = mesh.triangles[t];
  const Vec3& a = mesh.vertices[corners[0]];
  const Vec3 e1 = mesh.vertices[corners[1]] - a, e2 = mesh.vertices[corners[2]] - a;
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

// The nearest front a ray meets in a mesh, through the bounding-volume tree: depth first,
// the nearer child first, skipping nodes the ray misses or enters only beyond the nearest
// hit so far (visiting near children first finds a close hit early and prunes the rest).
std::optional<LocalHit> RayMesh(const Vec3& o, const Vec3& d, const TriangleMesh& mesh,
                                double max_t) {
  if (mesh.nodes.empty()) return std::nullopt;
  const BoxRay ray(o, d);
  LocalHit best;
  best.t = max_t;
  // Pending nodes with their entry distances, on the stack of the call: at most one per
  // level of the tree, whose median splits keep it below 32 levels for any mesh the builder
  // accepts (kMaxMeshTriangles = 2^21), so no allocation per ray.
  struct Pending {
    double enter;
    int node;
  };
  std::array<Pending, 64> stack;
  int size = 0;
  const double root = ray.Enter(mesh.nodes[0].bounds, best.t);
  if (root >= 0.0) stack[size++] = {root, 0};
  while (size > 0) {
    const Pending top = stack[--size];
    if (top.enter > best.t) continue;
    const TriangleMesh::Node& node = mesh.nodes[top.node];
    if (node.left < 0) {
      for (int k = node.first; k < node.first + node.count; ++k) {
        const int t = mesh.order[k];
        auto hit = RayTriangleFront(o, d, mesh, t, best.t);
        if (hit && (best.triangle < 0 || *hit < best.t)) {
          best = LocalHit{*hit, mesh.normals[t], t};
        }
      }
      continue;
    }
    // Both children, the farther below the nearer (visited after it), each only when the
    // ray enters it: selects rather than branches, which incoherent rays would mispredict.
    const double l = ray.Enter(mesh.nodes[node.left].bounds, best.t);
    const double r = ray.Enter(mesh.nodes[node.right].bounds, best.t);
    const double lt = l >= 0.0 ? l : kInfinity, rt = r >= 0.0 ? r : kInfinity;
    const bool left_near = lt <= rt;
    stack[size] = {left_near ? rt : lt, left_near ? node.right : node.left};
    size += (left_near ? rt : lt) < kInfinity ? 1 : 0;
    stack[size] = {left_near ? lt : rt, left_near ? node.left : node.right};
    size += (left_near ? lt : rt) < kInfinity ? 1 : 0;
  }
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
