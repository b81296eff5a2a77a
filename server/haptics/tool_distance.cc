#include "server/haptics/tool_distance.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ligature::haptics {
namespace {

// A sphere of `radius` around `center` (local frame).
SurfaceQuery SphereQuery(const Vec3& center, double radius, const Vec3& p) {
  const Vec3 d = p - center;
  const double len = d.norm();
  const Vec3 n = len > 1e-12 ? Vec3(d / len) : Vec3::UnitY();
  return {len - radius, center + radius * n, n};
}

// An axis-aligned box of half extents `h` at the origin (local frame).
SurfaceQuery BoxQuery(const Vec3& h, const Vec3& p) {
  const Vec3 q = p.cwiseAbs() - h;
  if (q.maxCoeff() > 0.0) {
    // Outside: the clamped point is the closest.
    const Vec3 c = p.cwiseMax(-h).cwiseMin(h);
    const Vec3 d = p - c;
    const double len = d.norm();
    return {len, c, d / len};
  }
  // Inside: leave through the nearest face.
  int axis = 0;
  q.maxCoeff(&axis);
  Vec3 n = Vec3::Zero();
  n[axis] = p[axis] >= 0.0 ? 1.0 : -1.0;
  Vec3 c = p;
  c[axis] = n[axis] * h[axis];
  return {q[axis], c, n};
}

}  // namespace

SurfaceQuery ToolDistance(std::span<const ChildShape> shapes, const Transform& pose,
                          const Vec3& point) {
  SurfaceQuery best;
  best.distance = std::numeric_limits<double>::infinity();
  for (const ChildShape& child : shapes) {
    const Transform at = pose * child.local;
    const Vec3 p = at.InverseApply(point);
    SurfaceQuery q;
    switch (child.shape.type) {
      case ShapeType::kSphere:
        q = SphereQuery(Vec3::Zero(), child.shape.radius, p);
        break;
      case ShapeType::kBox:
        q = BoxQuery(child.shape.half_extents, p);
        break;
      case ShapeType::kCapsule: {
        const double y = std::clamp(p.y(), -child.shape.half_length, child.shape.half_length);
        q = SphereQuery(Vec3(0.0, y, 0.0), child.shape.radius, p);
        break;
      }
      case ShapeType::kPlane:
        continue;
      case ShapeType::kHull: {
        const HullSurfacePoint s = NearestSurfacePoint(*child.shape.hull, p);
        q = {s.distance, s.point, s.normal};
        break;
      }
      case ShapeType::kMesh: {
        const MeshSurfacePoint s = NearestSurfacePoint(*child.shape.mesh, p);
        q = {s.distance, s.point, s.normal};
        break;
      }
    }
    if (q.distance < best.distance) {
      best = {q.distance, at.Apply(q.surface), at.Rotate(q.normal)};
    }
  }
  return best;
}

}  // namespace ligature::haptics
