// Capsule against capsule: closest points of the two inner segments, with two points when
// the segments are (nearly) parallel and overlap so that one capsule can rest on the other.

#include <algorithm>
#include <cmath>

#include "server/collision/pairs/geometry.h"
#include "server/collision/pairs/pair_functions.h"

namespace ligature {
namespace {

// Segments whose directions make an angle below this sine count as parallel.
constexpr double kParallelSine = 1e-2;
// Overlaps shorter than this (m) give a single point.
constexpr double kMinOverlap = 1e-6;

// Direction used when the segments touch: across both axes if they cross, otherwise
// sideways from A's axis (or B's), oriented from A's centre to B's when possible.
Vec3 FallbackNormal(const Vec3& da, const Vec3& db, const Vec3& ca, const Vec3& cb) {
  Vec3 n = Vec3::UnitY();
  if (da.norm() > kGeometryEpsilon) {
    n = NormalizedOr(da.cross(db), AnyPerpendicular(da));
  } else if (db.norm() > kGeometryEpsilon) {
    n = AnyPerpendicular(db);
  }
  if (n.dot(cb - ca) < 0.0) n = -n;
  return n;
}

// What FallbackNormal needs: the segments' directions and the capsules' centres. It is
// worked out only when a contact's centres coincide, which is rare.
struct FallbackInputs {
  const Vec3& da;
  const Vec3& db;
  const Vec3& ca;
  const Vec3& cb;
};

// Adds the contact between spheres of radius ra at pa and rb at pb; returns the centre
// distance so callers can compare candidates. The normal is NormalizedOr(pb - pa, the
// fallback normal).
double AddSpherePair(const Vec3& pa, double ra, const Vec3& pb, double rb,
                     const FallbackInputs& fallback, double margin, ContactManifold* out) {
  const Vec3 delta = pb - pa;
  const double centre_distance = delta.norm();
  const double distance = centre_distance - ra - rb;
  if (!(distance < margin)) return centre_distance;
  const Vec3 n = centre_distance > kGeometryEpsilon && std::isfinite(centre_distance)
                     ? Vec3(delta / centre_distance)
                     : FallbackNormal(fallback.da, fallback.db, fallback.ca, fallback.cb);
  out->Add(MakeContact(pa + ra * n, pb - rb * n, n, distance));
  return centre_distance;
}

}  // namespace

int CollideCapsuleCapsule(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                          double margin, ContactManifold* out) {
  out->count = 0;
  Vec3 p0;
  Vec3 p1;
  Vec3 q0;
  Vec3 q1;
  CapsuleSegment(a, pa, &p0, &p1);
  CapsuleSegment(b, pb, &q0, &q1);
  const Vec3 da = p1 - p0;
  const Vec3 db = q1 - q0;
  // Most pairs that reach here are apart: a cheap bound tells most of them (the result is
  // the same, nothing).
  if (SegmentsSurelyApart(pa.position, da, pb.position, db, a.radius + b.radius + margin)) {
    return 0;
  }
  const FallbackInputs fallback{da, db, pa.position, pb.position};
  const SegmentClosestPoints closest = ClosestPointsBetweenSegments(p0, p1, q0, q1);

  // Parallel and overlapping: one point at each end of the overlap (measured along A),
  // plus the closest pair if it is deeper than both ends (slightly crossed segments).
  const double la2 = da.squaredNorm();
  const double lb2 = db.squaredNorm();
  if (la2 > kMinOverlap * kMinOverlap && lb2 > kMinOverlap * kMinOverlap) {
    const double sine2 = da.cross(db).squaredNorm() / (la2 * lb2);
    const double u0 = (q0 - p0).dot(da) / la2;
    const double u1 = (q1 - p0).dot(da) / la2;
    const double lo = std::max(0.0, std::min(u0, u1));
    const double hi = std::min(1.0, std::max(u0, u1));
    if (sine2 < kParallelSine * kParallelSine && (hi - lo) * std::sqrt(la2) > kMinOverlap) {
      double end_distance[2];
      const double ends[2] = {lo, hi};
      for (int k = 0; k < 2; ++k) {
        const Vec3 on_a = p0 + ends[k] * da;
        const Vec3 on_b = q0 + ClosestParamOnSegment(on_a, q0, q1) * db;
        end_distance[k] = AddSpherePair(on_a, a.radius, on_b, b.radius, fallback, margin, out);
      }
      const double closest_distance = (closest.on_second - closest.on_first).norm();
      if (closest_distance < std::min(end_distance[0], end_distance[1]) - 1e-9) {
        AddSpherePair(closest.on_first, a.radius, closest.on_second, b.radius, fallback, margin,
                      out);
      }
      return out->count;
    }
  }

  // General case: a single point between the closest points of the segments.
  AddSpherePair(closest.on_first, a.radius, closest.on_second, b.radius, fallback, margin, out);
  return out->count;
}

}  // namespace ligature
