// Sphere, box and capsule against a static plane (always B), and two fixed shapes (planes,
// meshes), which never touch.
// The plane is a half-space: everything below it counts as overlap.

#include <algorithm>
#include <array>

#include "server/collision/pairs/geometry.h"
#include "server/collision/pairs/pair_functions.h"

namespace ligature {
namespace {

// A sphere of radius r at c against the plane through `origin` with unit `up`. The normal
// from the shape to the plane is -up. Adds the point when within the margin.
void SphereAgainstPlane(const Vec3& c, double r, const Vec3& origin, const Vec3& up, double margin,
                        ContactManifold* out) {
  const double height = up.dot(c - origin);
  const double distance = height - r;
  if (!(distance < margin)) return;
  out->Add(MakeContact(c - r * up, c - height * up, -up, distance));
}

}  // namespace

// One point below the sphere centre.
int CollideSpherePlane(const Shape& a, const Transform& pa, const Shape& /*b*/, const Transform& pb,
                       double margin, ContactManifold* out) {
  out->count = 0;
  const Vec3 up = pb.Rotate(Vec3::UnitY());
  SphereAgainstPlane(pa.position, a.radius, pb.position, up, margin, out);
  return out->count;
}

// Every box corner within the margin, keeping the four deepest (ties by corner index, so
// the result is deterministic).
int CollideBoxPlane(const Shape& a, const Transform& pa, const Shape& /*b*/, const Transform& pb,
                    double margin, ContactManifold* out) {
  out->count = 0;
  const Vec3 up = pb.Rotate(Vec3::UnitY());
  const std::array<Vec3, 8> corners = BoxCorners(a, pa);
  std::array<double, 8> height;
  std::array<int, 8> index;
  int kept = 0;
  for (int k = 0; k < 8; ++k) {
    height[k] = up.dot(corners[k] - pb.position);
    if (height[k] < margin) index[kept++] = k;
  }
  std::stable_sort(index.begin(), index.begin() + kept,
                   [&](int i, int j) { return height[i] < height[j]; });
  for (int k = 0; k < std::min(kept, ContactManifold::kMaxPoints); ++k) {
    const Vec3& corner = corners[index[k]];
    const double h = height[index[k]];
    out->Add(MakeContact(corner, corner - h * up, -up, h));
  }
  return out->count;
}

// Both end spheres of the capsule; a zero-length capsule is a sphere and gives one point.
int CollideCapsulePlane(const Shape& a, const Transform& pa, const Shape& /*b*/,
                        const Transform& pb, double margin, ContactManifold* out) {
  out->count = 0;
  const Vec3 up = pb.Rotate(Vec3::UnitY());
  Vec3 s0;
  Vec3 s1;
  CapsuleSegment(a, pa, &s0, &s1);
  SphereAgainstPlane(s0, a.radius, pb.position, up, margin, out);
  if (a.half_length > kGeometryEpsilon) {
    SphereAgainstPlane(s1, a.radius, pb.position, up, margin, out);
  }
  return out->count;
}

// Two fixed shapes (planes, meshes: static or kinematic, never pushed): nothing to report.
int CollideFixedShapes(const Shape& /*a*/, const Transform& /*pa*/, const Shape& /*b*/,
                       const Transform& /*pb*/, double /*margin*/, ContactManifold* out) {
  out->count = 0;
  return 0;
}

}  // namespace ligature
