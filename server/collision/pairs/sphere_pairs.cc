// Sphere against sphere, box and capsule.

#include <cmath>

#include "server/collision/pairs/geometry.h"
#include "server/collision/pairs/pair_functions.h"

namespace ligature {
namespace {

// Two spheres (centres ca, cb; radii ra, rb) as one contact. `fallback()` gives the normal
// used when the centres coincide (it must be unit); it is called only then.
template <typename Fallback>
int SphereVsSphere(const Vec3& ca, double ra, const Vec3& cb, double rb, Fallback fallback,
                   double margin, ContactManifold* out) {
  const Vec3 delta = cb - ca;
  const double dist_centres = delta.norm();
  const double distance = dist_centres - ra - rb;
  if (!(distance < margin)) return out->count;
  const Vec3 n = dist_centres > kGeometryEpsilon && std::isfinite(dist_centres)
                     ? Vec3(delta / dist_centres)
                     : fallback();
  out->Add(MakeContact(ca + ra * n, cb - rb * n, n, distance));
  return out->count;
}

}  // namespace

// Centre-to-centre distance minus both radii; coincident centres push along +Y.
int CollideSphereSphere(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                        double margin, ContactManifold* out) {
  out->count = 0;
  return SphereVsSphere(
      pa.position, a.radius, pb.position, b.radius, [] { return Vec3(Vec3::UnitY()); }, margin,
      out);
}

// Sphere (A) against box (B), in the box frame. Centre outside: closest box point gives the
// normal. Centre inside (or on the surface): leave through the nearest face.
int CollideSphereBox(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                     double margin, ContactManifold* out) {
  out->count = 0;
  const Vec3& half = b.half_extents;
  const Vec3 c = pb.InverseApply(pa.position);
  const Vec3 closest = c.cwiseMax(-half).cwiseMin(half);
  const Vec3 away = c - closest;  // from box surface to centre
  const double gap = away.norm();

  // Outside: normal from sphere towards box is the reverse of `away`.
  if (gap > kGeometryEpsilon) {
    const double distance = gap - a.radius;
    if (!(distance < margin)) return 0;
    const Vec3 n_local = -away / gap;
    const Vec3 n = pb.Rotate(n_local);
    out->Add(MakeContact(pa.position + a.radius * n, pb.Apply(closest), n, distance));
    return out->count;
  }

  // Inside: the face with the least depth; ties go to the lowest axis and the + side.
  int axis = 0;
  double depth = half[0] - std::abs(c[0]);
  for (int i = 1; i < 3; ++i) {
    const double d = half[i] - std::abs(c[i]);
    if (d < depth) {
      depth = d;
      axis = i;
    }
  }
  const double side = c[axis] >= 0.0 ? 1.0 : -1.0;
  Vec3 face_normal_local = Vec3::Zero();
  face_normal_local[axis] = side;
  Vec3 on_face_local = c;
  on_face_local[axis] = side * half[axis];
  const Vec3 n = -pb.Rotate(face_normal_local);
  const double distance = -(depth + a.radius);
  if (!(distance < margin)) return 0;
  out->Add(MakeContact(pa.position + a.radius * n, pb.Apply(on_face_local), n, distance));
  return out->count;
}

// Sphere (A) against the closest point of the capsule's segment (B). A centre on the
// segment is pushed sideways, perpendicular to the capsule axis.
int CollideSphereCapsule(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                         double margin, ContactManifold* out) {
  out->count = 0;
  Vec3 s0;
  Vec3 s1;
  CapsuleSegment(b, pb, &s0, &s1);
  const double t = ClosestParamOnSegment(pa.position, s0, s1);
  const Vec3 on_segment = s0 + t * (s1 - s0);
  auto fallback = [&pb] { return AnyPerpendicular(pb.Rotate(Vec3::UnitY())); };
  return SphereVsSphere(pa.position, a.radius, on_segment, b.radius, fallback, margin, out);
}

}  // namespace ligature
