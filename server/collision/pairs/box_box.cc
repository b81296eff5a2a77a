// Box against box: separating-axis test over the 15 candidate axes, then either a clipped
// face manifold (up to four points) or a single edge-edge point. Boxes that are apart but
// within the margin get their exact gap.

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "server/collision/pairs/box_distance.h"
#include "server/collision/pairs/contact_reduction.h"
#include "server/collision/pairs/geometry.h"
#include "server/collision/pairs/pair_functions.h"

namespace ligature {
namespace {

// Edge axes from nearly parallel edges are skipped: their direction is noise, and the face
// axes already cover those configurations.
constexpr double kMinEdgeAxisLength = 1e-6;
// Bias towards A's faces over B's (relative part; the absolute part and the bias towards
// faces over edges are in geometry.h), so that the manifold does not flip between
// candidates that are equally good.
constexpr double kFaceRelativeTolerance = 0.02;

// A box in world space: centre, unit axes as columns, half extents.
struct OrientedBox {
  Vec3 centre;
  Mat3 axes;
  Vec3 half;
};

OrientedBox MakeOrientedBox(const Shape& shape, const Transform& pose) {
  return {pose.position, pose.orientation.toRotationMatrix(), shape.half_extents};
}

// Half the length of the box's projection on the unit `axis`.
double ProjectedRadius(const OrientedBox& box, const Vec3& axis) {
  return box.half.x() * std::abs(box.axes.col(0).dot(axis)) +
         box.half.y() * std::abs(box.axes.col(1).dot(axis)) +
         box.half.z() * std::abs(box.axes.col(2).dot(axis));
}

double SignOf(double x) { return x >= 0.0 ? 1.0 : -1.0; }

// One candidate axis: which feature it comes from, its normal oriented from A to B, and
// the separation of the two boxes along it (negative when they overlap along it).
enum class AxisKind { kFaceA, kFaceB, kEdge };
struct SatAxis {
  AxisKind kind = AxisKind::kFaceA;
  int index_a = 0;
  int index_b = 0;
  Vec3 normal = Vec3::UnitY();
  double separation = -std::numeric_limits<double>::infinity();
};

SatAxis TestAxis(const OrientedBox& a, const OrientedBox& b, const Vec3& unit_axis, AxisKind kind,
                 int index_a, int index_b) {
  const double along = (b.centre - a.centre).dot(unit_axis);
  SatAxis result;
  result.kind = kind;
  result.index_a = index_a;
  result.index_b = index_b;
  result.normal = SignOf(along) * unit_axis;
  result.separation =
      std::abs(along) - ProjectedRadius(a, unit_axis) - ProjectedRadius(b, unit_axis);
  return result;
}

// True when `candidate` beats `current` by more than the bias.
bool ClearlyBetter(const SatAxis& candidate, const SatAxis& current, double relative) {
  return candidate.separation >
         current.separation + relative * std::abs(current.separation) + kAbsoluteTolerance;
}

// Keeps the part of the convex polygon `in` where dot(plane_normal, v) <= offset.
int ClipPolygon(const std::array<Vec3, 8>& in, int count, const Vec3& plane_normal, double offset,
                std::array<Vec3, 8>* out) {
  int written = 0;
  for (int i = 0; i < count; ++i) {
    const Vec3& cur = in[i];
    const Vec3& next = in[(i + 1) % count];
    const double dc = plane_normal.dot(cur) - offset;
    const double dn = plane_normal.dot(next) - offset;
    if (dc <= 0.0 && written < 8) (*out)[written++] = cur;
    if (((dc < 0.0 && dn > 0.0) || (dc > 0.0 && dn < 0.0)) && written < 8) {
      (*out)[written++] = cur + (next - cur) * (dc / (dc - dn));
    }
  }
  return written;
}

// Face contact: `ref_normal` is the outward normal of the reference face (axis `ref_axis`
// of `ref`) pointing at `inc`. The incident face is the face of `inc` most opposed to it;
// it is clipped to the reference face's side planes, and every clipped vertex closer than
// `margin` to the reference face becomes a candidate point.
void FaceContact(const OrientedBox& ref, int ref_axis, const Vec3& ref_normal,
                 const OrientedBox& inc, const Vec3& normal_ab, double margin,
                 ContactManifold* out) {
  // Incident face: most anti-parallel to the reference normal.
  int inc_axis = 0;
  double best = -1.0;
  for (int j = 0; j < 3; ++j) {
    const double d = std::abs(inc.axes.col(j).dot(ref_normal));
    if (d > best) {
      best = d;
      inc_axis = j;
    }
  }
  const double inc_side = -SignOf(inc.axes.col(inc_axis).dot(ref_normal));
  const int i1 = (inc_axis + 1) % 3;
  const int i2 = (inc_axis + 2) % 3;
  const Vec3 inc_centre = inc.centre + inc_side * inc.half[inc_axis] * inc.axes.col(inc_axis);
  const Vec3 e1 = inc.half[i1] * inc.axes.col(i1);
  const Vec3 e2 = inc.half[i2] * inc.axes.col(i2);
  std::array<Vec3, 8> polygon = {inc_centre + e1 + e2, inc_centre - e1 + e2, inc_centre - e1 - e2,
                                 inc_centre + e1 - e2};
  int count = 4;

  // Clip against the four side planes of the reference face.
  std::array<Vec3, 8> scratch;
  for (int k = 1; k < 3 && count > 0; ++k) {
    const int axis = (ref_axis + k) % 3;
    const Vec3 u = ref.axes.col(axis);
    const double c = u.dot(ref.centre);
    count = ClipPolygon(polygon, count, u, c + ref.half[axis], &scratch);
    count = ClipPolygon(scratch, count, -u, -c + ref.half[axis], &polygon);
  }

  // Keep vertices below the reference face (within the margin), then reduce to four.
  const Vec3 face_centre = ref.centre + ref.half[ref_axis] * ref_normal;
  std::array<ContactPoint, 8> candidates;
  int kept = 0;
  for (int i = 0; i < count; ++i) {
    const double distance = ref_normal.dot(polygon[i] - face_centre);
    if (!(distance < margin)) continue;
    const Vec3 on_ref = polygon[i] - distance * ref_normal;
    ContactPoint p;
    p.position = 0.5 * (on_ref + polygon[i]);
    p.normal = normal_ab;
    p.distance = distance;
    candidates[kept++] = p;
  }
  ReduceContacts(std::span<const ContactPoint>(candidates.data(), kept), normal_ab, out);
}

// Edge-edge closest points: the edge of A along axis `ia` furthest along the normal and the
// edge of B along `ib` furthest against it.
SegmentClosestPoints EdgeClosestPoints(const OrientedBox& a, int ia, const OrientedBox& b, int ib,
                                       const Vec3& n) {
  Vec3 mid_a = a.centre;
  Vec3 mid_b = b.centre;
  for (int k = 0; k < 3; ++k) {
    if (k != ia) mid_a += SignOf(a.axes.col(k).dot(n)) * a.half[k] * a.axes.col(k);
    if (k != ib) mid_b -= SignOf(b.axes.col(k).dot(n)) * b.half[k] * b.axes.col(k);
  }
  const Vec3 ea = a.half[ia] * a.axes.col(ia);
  const Vec3 eb = b.half[ib] * b.axes.col(ib);
  return ClosestPointsBetweenSegments(mid_a - ea, mid_a + ea, mid_b - eb, mid_b + eb);
}

// Face contact for a face axis of A (A's face is the reference) or of B (B's face is).
void AddFaceContact(const OrientedBox& a, const OrientedBox& b, const SatAxis& axis, double margin,
                    ContactManifold* out) {
  if (axis.kind == AxisKind::kFaceA) {
    FaceContact(a, axis.index_a, axis.normal, b, axis.normal, margin, out);
  } else {
    FaceContact(b, axis.index_b, -axis.normal, a, axis.normal, margin, out);
  }
}

// Fallback when clipping leaves nothing although the boxes overlap: one point at the
// deepest corner of the incident box, at the depth found by the separating-axis test.
void AddSupportContact(const OrientedBox& a, const OrientedBox& b, const SatAxis& axis,
                       ContactManifold* out) {
  const Vec3& n = axis.normal;
  const bool b_incident = axis.kind == AxisKind::kFaceA;
  const OrientedBox& inc = b_incident ? b : a;
  const double towards = b_incident ? -1.0 : 1.0;  // direction of the incident box's tip
  Vec3 tip = inc.centre;
  for (int k = 0; k < 3; ++k) {
    tip += SignOf(towards * inc.axes.col(k).dot(n)) * inc.half[k] * inc.axes.col(k);
  }
  const Vec3 other = tip + towards * axis.separation * n;
  if (b_incident) {
    out->Add(MakeContact(other, tip, n, axis.separation));
  } else {
    out->Add(MakeContact(tip, other, n, axis.separation));
  }
}

}  // namespace

int CollideBoxBox(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                  double margin, ContactManifold* out) {
  out->count = 0;
  const OrientedBox box_a = MakeOrientedBox(a, pa);
  const OrientedBox box_b = MakeOrientedBox(b, pb);

  // Face axes of A and B: keep the one with the largest separation of each; any axis
  // separating by at least the margin means no contact.
  SatAxis face_a;
  SatAxis face_b;
  for (int i = 0; i < 3; ++i) {
    const SatAxis ta = TestAxis(box_a, box_b, box_a.axes.col(i), AxisKind::kFaceA, i, 0);
    if (!(ta.separation < margin)) return 0;
    if (ta.separation > face_a.separation) face_a = ta;
    const SatAxis tb = TestAxis(box_a, box_b, box_b.axes.col(i), AxisKind::kFaceB, 0, i);
    if (!(tb.separation < margin)) return 0;
    if (tb.separation > face_b.separation) face_b = tb;
  }

  // Edge axes: cross products of an edge direction of A with one of B.
  SatAxis edge;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      const Vec3 cross = box_a.axes.col(i).cross(box_b.axes.col(j));
      const double len = cross.norm();
      if (len < kMinEdgeAxisLength) continue;
      const SatAxis te = TestAxis(box_a, box_b, cross / len, AxisKind::kEdge, i, j);
      if (!(te.separation < margin)) return 0;
      if (te.separation > edge.separation) edge = te;
    }
  }

  // Pick the axis of least penetration, preferring A's faces, then B's, then edges.
  SatAxis best = ClearlyBetter(face_b, face_a, kFaceRelativeTolerance) ? face_b : face_a;
  if (ClearlyBetter(edge, best, kEdgeRelativeTolerance)) best = edge;

  // Overlapping: a clipped face manifold, or one point between the two edges.
  if (best.separation <= 0.0) {
    if (best.kind == AxisKind::kEdge) {
      const SegmentClosestPoints c =
          EdgeClosestPoints(box_a, best.index_a, box_b, best.index_b, best.normal);
      out->Add(MakeContact(c.on_first, c.on_second, best.normal, best.separation));
    } else {
      AddFaceContact(box_a, box_b, best, margin, out);
      if (out->count == 0) AddSupportContact(box_a, box_b, best, out);
    }
    return out->count;
  }

  // Separated within the margin. The best axis bounds the gap from below; when the chosen
  // features realize that bound (up to rounding), it is the exact gap and they are kept.
  const double scale = 1.0 + std::max(a.half_extents.maxCoeff(), b.half_extents.maxCoeff());
  const double tolerance = kExactGapTolerance * scale;
  if (best.kind == AxisKind::kEdge) {
    const SegmentClosestPoints c =
        EdgeClosestPoints(box_a, best.index_a, box_b, best.index_b, best.normal);
    if ((c.on_second - c.on_first).norm() <= best.separation + tolerance) {
      out->Add(MakeContact(c.on_first, c.on_second, best.normal, best.separation));
      return out->count;
    }
  } else {
    AddFaceContact(box_a, box_b, best, margin, out);
    if (out->count > 0 && MinDistance(*out) <= best.separation + tolerance) return out->count;
  }

  // Otherwise (corner against edge, corner against corner, ...) measure the exact gap: keep
  // the face manifold if its deepest point matches it, else report the exact closest pair.
  const BoxClosestPoints exact = ClosestPointsOfDisjointBoxes(a, pa, b, pb);
  return KeepManifoldOrExact(exact.on_a, exact.on_b, exact.distance, best.normal, margin, scale,
                             out);
}

}  // namespace ligature
