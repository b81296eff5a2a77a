#include "server/collision/pairs/geometry.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ligature {

Vec3 NormalizedOr(const Vec3& v, const Vec3& fallback) {
  const double n = v.norm();
  if (n > kGeometryEpsilon && std::isfinite(n)) return v / n;
  return fallback;
}

// Cross with the world axis least aligned with v, so the result is never near zero.
Vec3 AnyPerpendicular(const Vec3& v) {
  if (v.norm() <= kGeometryEpsilon) return Vec3::UnitX();
  const Vec3 a = v.cwiseAbs();
  Vec3 axis = Vec3::UnitX();
  if (a.y() <= a.x() && a.y() <= a.z()) {
    axis = Vec3::UnitY();
  } else if (a.z() <= a.x() && a.z() <= a.y()) {
    axis = Vec3::UnitZ();
  }
  return NormalizedOr(v.cross(axis), Vec3::UnitX());
}

double ClosestParamOnSegment(const Vec3& p, const Vec3& a, const Vec3& b) {
  const Vec3 d = b - a;
  const double len2 = d.squaredNorm();
  if (len2 <= kGeometryEpsilon * kGeometryEpsilon) return 0.0;
  return std::clamp((p - a).dot(d) / len2, 0.0, 1.0);
}

// Minimizes |p0 + s d1 - (q0 + t d2)|^2 over the unit square: solve the unclamped 2x2
// system (or pick s = 0 when parallel), then clamp t and re-solve s for the clamped t.
SegmentClosestPoints ClosestPointsBetweenSegments(const Vec3& p0, const Vec3& p1, const Vec3& q0,
                                                  const Vec3& q1) {
  const Vec3 d1 = p1 - p0;
  const Vec3 d2 = q1 - q0;
  const Vec3 r = p0 - q0;
  const double a = d1.squaredNorm();
  const double e = d2.squaredNorm();
  const double f = d2.dot(r);
  const double tiny = kGeometryEpsilon * kGeometryEpsilon;
  SegmentClosestPoints out;
  if (a <= tiny && e <= tiny) {
    out.s = 0.0;
    out.t = 0.0;
  } else if (a <= tiny) {
    out.s = 0.0;
    out.t = std::clamp(f / e, 0.0, 1.0);
  } else {
    const double c = d1.dot(r);
    if (e <= tiny) {
      out.t = 0.0;
      out.s = std::clamp(-c / a, 0.0, 1.0);
    } else {
      const double b = d1.dot(d2);
      const double denom = a * e - b * b;
      // Non-parallel: unconstrained optimum clamped to [0, 1]; parallel: any s works.
      out.s = denom > 1e-12 * a * e ? std::clamp((b * f - c * e) / denom, 0.0, 1.0) : 0.0;
      out.t = (b * out.s + f) / e;
      if (out.t < 0.0) {
        out.t = 0.0;
        out.s = std::clamp(-c / a, 0.0, 1.0);
      } else if (out.t > 1.0) {
        out.t = 1.0;
        out.s = std::clamp((b - c) / a, 0.0, 1.0);
      }
    }
  }
  out.on_first = p0 + out.s * d1;
  out.on_second = q0 + out.t * d2;
  return out;
}

namespace {

// Relative tolerance of SegmentsSurelyApart, and the least squared sine between the two
// directions for the lines' distance to be used (below it the common normal's direction
// is too uncertain).
constexpr double kApartTolerance = 1e-9;
constexpr double kMinLineSine2 = 1e-12;

}  // namespace

bool SegmentsSurelyApart(const Vec3& ca, const Vec3& da, const Vec3& cb, const Vec3& db,
                         double distance) {
  const Vec3 dc = cb - ca;
  const double scale = dc.cwiseAbs().sum() + da.cwiseAbs().sum() + db.cwiseAbs().sum();
  const double limit = distance + kApartTolerance * (1.0 + scale + std::abs(distance));
  if (!(limit >= 0.0)) return false;
  const double limit2 = limit * limit;
  // The lines' distance |dc . n| / |n| along their common normal n = da x db (squared:
  // both sides are non-negative).
  const Vec3 n = da.cross(db);
  const double n2 = n.squaredNorm();
  if (n2 > kMinLineSine2 * da.squaredNorm() * db.squaredNorm()) {
    const double along = dc.dot(n);
    if (along * along > limit2 * n2) return true;
  }
  // Along u = dc / |dc| the segments cover ca . u +- |da . u| / 2 and cb . u +- |db . u| / 2:
  // their gap, times |dc|, is |dc|^2 - (|da . dc| + |db . dc|) / 2.
  const double l2 = dc.squaredNorm();
  const double gap = l2 - 0.5 * (std::abs(da.dot(dc)) + std::abs(db.dot(dc)));
  return gap > 0.0 && gap * gap > limit2 * l2;
}

namespace {

// Squared distance from local point p to the solid box.
double SquaredDistanceToBox(const Vec3& p, const Vec3& half) {
  const Vec3 clamped = p.cwiseMax(-half).cwiseMin(half);
  return (p - clamped).squaredNorm();
}

}  // namespace

// Between consecutive face-plane crossings the set of clamped axes is fixed, so the squared
// distance is one quadratic whose minimum is found in closed form and clamped to the piece.
double ClosestParamSegmentToBox(const Vec3& s0, const Vec3& s1, const Vec3& half) {
  const Vec3 d = s1 - s0;
  std::array<double, 8> breaks;
  int count = 0;
  breaks[count++] = 0.0;
  breaks[count++] = 1.0;
  for (int i = 0; i < 3; ++i) {
    if (std::abs(d[i]) <= kGeometryEpsilon) continue;
    for (double side : {-half[i], half[i]}) {
      const double t = (side - s0[i]) / d[i];
      if (t > 0.0 && t < 1.0) breaks[count++] = t;
    }
  }
  // Insertion sort: at most eight values.
  for (int i = 1; i < count; ++i) {
    for (int j = i; j > 0 && breaks[j] < breaks[j - 1]; --j) std::swap(breaks[j], breaks[j - 1]);
  }

  double best_t = 0.0;
  double best_d2 = SquaredDistanceToBox(s0, half);
  for (int k = 0; k + 1 < count; ++k) {
    const double ta = breaks[k];
    const double tb = breaks[k + 1];
    const Vec3 mid = s0 + 0.5 * (ta + tb) * d;
    // Quadratic sum over clamped axes of (c_i + t d_i)^2, c_i = s0_i -/+ half_i.
    double qa = 0.0;
    double qb = 0.0;
    for (int i = 0; i < 3; ++i) {
      double c = 0.0;
      if (mid[i] > half[i]) {
        c = s0[i] - half[i];
      } else if (mid[i] < -half[i]) {
        c = s0[i] + half[i];
      } else {
        continue;
      }
      qa += d[i] * d[i];
      qb += c * d[i];
    }
    const double t = qa > kGeometryEpsilon ? std::clamp(-qb / qa, ta, tb) : ta;
    const double d2 = SquaredDistanceToBox(s0 + t * d, half);
    if (d2 < best_d2) {
      best_d2 = d2;
      best_t = t;
    }
  }
  const double end_d2 = SquaredDistanceToBox(s1, half);
  if (end_d2 < best_d2) best_t = 1.0;
  return best_t;
}

bool ClipSegmentToSlab(const Vec3& s0, const Vec3& s1, int axis, double half, double* t0,
                       double* t1) {
  const double start = s0[axis];
  const double delta = s1[axis] - start;
  // Segment parallel to the slab: all in or all out.
  if (std::abs(delta) <= kGeometryEpsilon) return std::abs(start) <= half && *t0 <= *t1;
  double ta = (-half - start) / delta;
  double tb = (half - start) / delta;
  if (ta > tb) std::swap(ta, tb);
  *t0 = std::max(*t0, ta);
  *t1 = std::min(*t1, tb);
  return *t0 <= *t1;
}

std::array<Vec3, 8> BoxCorners(const Shape& box, const Transform& pose) {
  std::array<Vec3, 8> corners;
  for (int k = 0; k < 8; ++k) {
    const Vec3 local((k & 1) ? box.half_extents.x() : -box.half_extents.x(),
                     (k & 2) ? box.half_extents.y() : -box.half_extents.y(),
                     (k & 4) ? box.half_extents.z() : -box.half_extents.z());
    corners[k] = pose.Apply(local);
  }
  return corners;
}

ContactPoint MakeContact(const Vec3& on_a, const Vec3& on_b, const Vec3& normal, double distance) {
  ContactPoint p;
  p.position = 0.5 * (on_a + on_b);
  p.normal = normal;
  p.distance = distance;
  return p;
}

double MinDistance(const ContactManifold& m) {
  double d = std::numeric_limits<double>::infinity();
  for (int i = 0; i < m.count; ++i) d = std::min(d, m.points[i].distance);
  return d;
}

int KeepManifoldOrExact(const Vec3& on_a, const Vec3& on_b, double distance,
                        const Vec3& fallback_normal, double margin, double scale,
                        ContactManifold* out) {
  if (!(distance < margin)) {
    out->count = 0;
    return 0;
  }
  // The manifold's nearest point: kept when it is the gap within the coarse tolerance, and
  // moved onto the closest pair (along the manifold's normal) when not within rounding.
  int nearest = -1;
  for (int i = 0; i < out->count; ++i) {
    if (nearest < 0 || out->points[i].distance < out->points[nearest].distance) nearest = i;
  }
  if (nearest >= 0 && out->points[nearest].distance <= distance + kAbsoluteTolerance * scale) {
    ContactPoint& p = out->points[nearest];
    if (p.distance > distance + kExactGapTolerance * scale) {
      p = MakeContact(on_a, on_b, p.normal, distance);
    }
    return out->count;
  }
  out->count = 0;
  out->Add(MakeContact(on_a, on_b, NormalizedOr(on_b - on_a, fallback_normal), distance));
  return out->count;
}

int SupportIndexOf(std::span<const Vec3> points, const Vec3& direction) {
  int best = 0;
  double best_dot = points[0].dot(direction);
  for (int i = 1; i < static_cast<int>(points.size()); ++i) {
    const double d = points[i].dot(direction);
    if (d > best_dot) {
      best_dot = d;
      best = i;
    }
  }
  return best;
}

}  // namespace ligature
