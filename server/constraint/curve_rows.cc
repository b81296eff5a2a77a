#include "server/constraint/curve_rows.h"

#include <algorithm>
#include <cmath>

#include "server/constraint/contact_rows.h"

namespace ligature {
namespace {

// Consecutive points closer than this are one point (m).
constexpr double kMinSpacing = 1e-9;

void AppendDistinct(const Vec3& p, std::vector<Vec3>* out) {
  if (out->empty() || (p - out->back()).norm() > kMinSpacing) out->push_back(p);
}

// Point at u in [0, 1] of the centripetal Catmull-Rom span from p1 to p2 (Barry and
// Goldman's pyramid of linear interpolations over knots spaced by sqrt of the chord).
// Centripetal knots keep the spline free of cusps and self-intersections within a span.
Vec3 CatmullRom(const Vec3& p0, const Vec3& p1, const Vec3& p2, const Vec3& p3, double u) {
  const double t0 = 0.0;
  const double t1 = t0 + std::sqrt((p1 - p0).norm());
  const double t2 = t1 + std::sqrt((p2 - p1).norm());
  const double t3 = t2 + std::sqrt((p3 - p2).norm());
  const double t = t1 + u * (t2 - t1);
  auto lerp = [t](const Vec3& a, const Vec3& b, double ta, double tb) -> Vec3 {
    return ((tb - t) * a + (t - ta) * b) / (tb - ta);
  };
  const Vec3 a1 = lerp(p0, p1, t0, t1);
  const Vec3 a2 = lerp(p1, p2, t1, t2);
  const Vec3 a3 = lerp(p2, p3, t2, t3);
  const Vec3 b1 = lerp(a1, a2, t0, t2);
  const Vec3 b2 = lerp(a2, a3, t1, t3);
  return lerp(b1, b2, t1, t2);
}

}  // namespace

std::vector<Vec3> CurvePolyline(const std::vector<Vec3>& points, bool smooth) {
  std::vector<Vec3> pts;
  pts.reserve(points.size());
  for (const Vec3& p : points) AppendDistinct(p, &pts);
  if (!smooth || pts.size() < 2) return pts;

  // The spline needs a neighbour on each side of every span: mirror the ends.
  const size_t n = pts.size();
  auto at = [&](ptrdiff_t i) -> Vec3 {
    if (i < 0) return 2.0 * pts[0] - pts[1];
    if (i >= static_cast<ptrdiff_t>(n)) return 2.0 * pts[n - 1] - pts[n - 2];
    return pts[i];
  };
  std::vector<Vec3> out;
  out.reserve((n - 1) * kCurveSamplesPerSpan + 1);
  for (size_t i = 0; i + 1 < n; ++i) {
    const ptrdiff_t k = static_cast<ptrdiff_t>(i);
    for (int s = 0; s < kCurveSamplesPerSpan; ++s) {
      AppendDistinct(CatmullRom(at(k - 1), at(k), at(k + 1), at(k + 2),
                                static_cast<double>(s) / kCurveSamplesPerSpan),
                     &out);
    }
  }
  AppendDistinct(pts.back(), &out);
  return out;
}

CurveProjection ProjectOnPolyline(std::span<const Vec3> polyline, uint32_t start,
                                  const Vec3& p) {
  const uint32_t last = static_cast<uint32_t>(polyline.size()) - 2;
  uint32_t i = std::min(start, last);
  int came_from = 0;  // +1: walked forward onto segment i, -1: backward
  CurveProjection out;
  // Corner between segments j - 1 and j, p in its wedge: the corner is the closest point,
  // and the walk stays on the segment it came from (no flip-flop across the corner).
  // The tangent there blends the two directions, t = b t_before + a t_after with
  // a = (p - corner) . t_before >= 0 and b = -(p - corner) . t_after >= 0: it is
  // perpendicular to p - corner (so the rows across it see the whole distance) and turns
  // continuously from one segment's direction to the other's across the wedge.
  auto corner = [&](uint32_t j, uint32_t stay) {
    const Vec3 before = (polyline[j] - polyline[j - 1]).normalized();
    const Vec3 after = (polyline[j + 1] - polyline[j]).normalized();
    const Vec3 off = p - polyline[j];
    const Vec3 blend = -off.dot(after) * before + off.dot(before) * after;
    const Vec3 mean = before + after;
    out.segment = stay;
    out.closest = polyline[j];
    out.tangent = blend.norm() > 1e-12   ? blend.normalized()
                  : mean.norm() > 1e-6 ? mean.normalized()
                                       : after;
    out.region = CurveRegion::kInside;
    return out;
  };
  // Each step moves one segment in a fixed direction, so polyline.size() steps suffice.
  for (size_t step = 0; step < polyline.size(); ++step) {
    const Vec3 d = polyline[i + 1] - polyline[i];
    const double t = (p - polyline[i]).dot(d) / d.squaredNorm();
    if (t < 0.0 && i > 0) {
      if (came_from == 1) return corner(i, i - 1);
      --i;
      came_from = -1;
      continue;
    }
    if (t > 1.0 && i < last) {
      if (came_from == -1) return corner(i + 1, i + 1);
      ++i;
      came_from = 1;
      continue;
    }
    out.segment = i;
    out.closest = polyline[i] + t * d;
    out.tangent = d.normalized();
    out.region = t < 0.0   ? CurveRegion::kBeforeStart
                 : t > 1.0 ? CurveRegion::kPastEnd
                           : CurveRegion::kInside;
    return out;
  }
  return out;  // not reached
}

CurveBlocks MakeCurveBlocks(Joint& joint, const JointSide& b) {
  CurveBlocks out;
  if (joint.curve_samples.empty()) {
    joint.curve_samples = CurvePolyline(joint.params.curve, joint.params.smooth);
  }
  const std::vector<Vec3>& s = joint.curve_samples;
  if (s.size() < 2) return out;

  const Vec3 p = b.pose.Apply(joint.frame_b.position);
  const Vec3 arm = p - b.pose.position;
  const CurveProjection proj = ProjectOnPolyline(s, joint.curve_segment, p);
  joint.curve_segment = proj.segment;
  if (proj.region != CurveRegion::kInside && joint.params.curve_end == CurveEnd::kRelease) {
    out.released = true;
    return out;
  }

  // Directions across the tangent: last tick's direction carried onto the new tangent, so
  // that the warm-start forces stay meaningful; a fresh basis when there is none.
  const Vec3& t = proj.tangent;
  Vec3 u = joint.curve_normal - joint.curve_normal.dot(t) * t;
  Vec3 v;
  if (u.norm() > 1e-3) {
    u.normalize();
    v = t.cross(u);
  } else {
    TangentBasis(t, &u, &v);
  }
  joint.curve_normal = u;

  // Anchor on the curve: the offset from the closest point across the tangent must vanish
  // (exact first-order rows while the point stays over the same segment). With friction a
  // third row along the tangent carries Coulomb friction bounded by mu |(f0, f1)|; its
  // violation after free motion is zero (it resists only the tangential motion the solve
  // itself causes unless the caller adds the free slide, h v . t).
  const bool friction = joint.params.friction > 0.0;
  ConstraintBlock& on = out.blocks[out.count++];
  on.law = friction ? ConstraintLaw::kBilateralFriction : ConstraintLaw::kBilateral;
  on.dim = friction ? 3 : 2;
  on.friction = friction ? joint.params.friction : 0.0;
  on.body_a = kWorldBody;
  on.body_b = b.index;
  const Vec3 off = p - proj.closest;
  const Vec3 dirs[3] = {u, v, t};
  for (int d = 0; d < on.dim; ++d) on.jacobian_b.row(d) = PointRow(dirs[d], arm);
  on.violation_free = Vec3(u.dot(off), v.dot(off), 0.0);

  // Stop at an end: a unilateral row keeps the signed distance inside the curve from the
  // end point non-negative. Emitted already a little before the end (kCurveStopSlop).
  if (joint.params.curve_end != CurveEnd::kStop) return out;
  const uint32_t last = static_cast<uint32_t>(s.size()) - 2;
  double inside = kCurveStopSlop;
  Vec3 inward = Vec3::Zero();
  if (proj.segment == 0) {
    const Vec3 d0 = (s[1] - s[0]).normalized();
    const double from_start = (p - s[0]).dot(d0);
    if (from_start < inside) {
      inside = from_start;
      inward = d0;
    }
  }
  if (proj.segment == last) {
    const Vec3 dl = (s[last + 1] - s[last]).normalized();
    const double from_end = (s[last + 1] - p).dot(dl);
    if (from_end < inside) {
      inside = from_end;
      inward = -dl;
    }
  }
  if (inward.isZero()) return out;
  ConstraintBlock& stop = out.blocks[out.count++];
  stop.law = ConstraintLaw::kUnilateral;
  stop.dim = 1;
  stop.body_a = kWorldBody;
  stop.body_b = b.index;
  stop.jacobian_b.row(0) = PointRow(inward, arm);
  stop.violation_free.x() = inside;
  return out;
}

}  // namespace ligature
