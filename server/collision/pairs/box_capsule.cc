// Box (A) against capsule (B), worked out in the box frame. A capsule lying along a box
// face gets one point at each end of the part of its segment above the face, so it rests
// stably; otherwise one point between the closest features.

#include <algorithm>
#include <cmath>
#include <limits>

#include "server/collision/pairs/geometry.h"
#include "server/collision/pairs/pair_functions.h"

namespace ligature {
namespace {

// A local normal counts as a face normal when one component is this close to +/-1.
constexpr double kFaceAlignment = 1.0 - 1e-9;
// Clipped segments shorter than this (m) give a single point.
constexpr double kMinClipLength = 1e-9;

// The capsule in the box frame: its segment end points and radius.
struct LocalCapsule {
  Vec3 s0;
  Vec3 s1;
  double radius;
};

// Adds a point given in the box frame: box surface point, capsule surface point, normal.
void AddLocal(const Transform& box_pose, const Vec3& on_box, const Vec3& on_capsule,
              const Vec3& n_local, double distance, ContactManifold* out) {
  out->Add(MakeContact(box_pose.Apply(on_box), box_pose.Apply(on_capsule), box_pose.Rotate(n_local),
                       distance));
}

// Face contact on face `axis` with outward sign `side`: clip the segment to the face's
// side slabs and report both ends of what is left, each measured straight out of the face.
// Returns false if nothing is left after clipping.
bool FaceContact(const LocalCapsule& cap, const Vec3& half, int axis, double side,
                 const Transform& box_pose, double margin, ContactManifold* out) {
  double t0 = 0.0;
  double t1 = 1.0;
  for (int k = 1; k < 3; ++k) {
    const int j = (axis + k) % 3;
    if (!ClipSegmentToSlab(cap.s0, cap.s1, j, half[j], &t0, &t1)) return false;
  }
  const Vec3 d = cap.s1 - cap.s0;
  Vec3 n_local = Vec3::Zero();
  n_local[axis] = side;
  const bool single = (t1 - t0) * d.norm() < kMinClipLength;
  for (double t : {t0, t1}) {
    const Vec3 e = cap.s0 + t * d;
    const double distance = side * e[axis] - half[axis] - cap.radius;
    if (distance < margin) {
      Vec3 on_box = e;
      on_box[axis] = side * half[axis];
      AddLocal(box_pose, on_box, e - cap.radius * n_local, n_local, distance, out);
    }
    if (single) break;
  }
  return true;
}

// Separation of the segment from the box along the unit `axis` (negative = overlap), and
// the direction (+axis or -axis) in which the capsule should move to separate.
struct SegmentAxis {
  double separation = -std::numeric_limits<double>::infinity();
  Vec3 normal = Vec3::UnitY();
  int face = -1;  // box face axis, or -1 for an edge axis
  int edge = -1;  // box edge direction for an edge axis
};

SegmentAxis TestSegmentAxis(const LocalCapsule& cap, const Vec3& half, const Vec3& axis) {
  const double box_radius = half.dot(axis.cwiseAbs());
  const double p0 = axis.dot(cap.s0);
  const double p1 = axis.dot(cap.s1);
  const double push_positive = box_radius - std::min(p0, p1);
  const double push_negative = std::max(p0, p1) + box_radius;
  SegmentAxis result;
  if (push_positive <= push_negative) {
    result.separation = -push_positive;
    result.normal = axis;
  } else {
    result.separation = -push_negative;
    result.normal = -axis;
  }
  return result;
}

// The segment pierces the box: separating-axis test over the box faces and the crosses of
// the segment with the box edges (the face normals of their Minkowski sum), then a face
// contact or a single point between the segment and the chosen box edge.
void DeepContact(const LocalCapsule& cap, const Vec3& half, const Transform& box_pose,
                 double margin, ContactManifold* out) {
  SegmentAxis face;
  for (int i = 0; i < 3; ++i) {
    SegmentAxis t = TestSegmentAxis(cap, half, Vec3::Unit(i));
    t.face = i;
    if (t.separation > face.separation) face = t;
  }
  SegmentAxis edge;
  const Vec3 d = cap.s1 - cap.s0;
  for (int k = 0; k < 3; ++k) {
    const Vec3 cross = d.cross(Vec3::Unit(k));
    const double len = cross.norm();
    if (len <= 1e-6 * d.norm() || len <= kGeometryEpsilon) continue;
    SegmentAxis t = TestSegmentAxis(cap, half, cross / len);
    t.edge = k;
    if (t.separation > edge.separation) edge = t;
  }

  const bool use_edge = edge.separation > face.separation +
                                              kEdgeRelativeTolerance * std::abs(face.separation) +
                                              kAbsoluteTolerance;
  const double distance = (use_edge ? edge.separation : face.separation) - cap.radius;
  if (!use_edge) {
    // Face axis: clip against the face; should clipping leave nothing (only possible through
    // rounding), use the end of the segment deepest below the face.
    const int axis = face.face;
    const double side = face.normal[axis] >= 0.0 ? 1.0 : -1.0;
    if (FaceContact(cap, half, axis, side, box_pose, margin, out)) return;
    if (!(distance < margin)) return;
    const Vec3 deep = side * cap.s0[axis] <= side * cap.s1[axis] ? cap.s0 : cap.s1;
    Vec3 on_box = deep;
    on_box[axis] = side * half[axis];
    AddLocal(box_pose, on_box, deep - cap.radius * face.normal, face.normal, distance, out);
    return;
  }

  // Edge axis: one point between the segment and the box edge along `edge.edge` that lies
  // furthest along the normal.
  const int k = edge.edge;
  const Vec3& n = edge.normal;
  Vec3 mid = Vec3::Zero();
  for (int j = 0; j < 3; ++j) {
    if (j != k) mid[j] = (n[j] >= 0.0 ? 1.0 : -1.0) * half[j];
  }
  const Vec3 along = half[k] * Vec3::Unit(k);
  const SegmentClosestPoints c =
      ClosestPointsBetweenSegments(cap.s0, cap.s1, mid - along, mid + along);
  if (distance < margin) {
    AddLocal(box_pose, c.on_second, c.on_first - cap.radius * n, n, distance, out);
  }
}

}  // namespace

int CollideBoxCapsule(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                      double margin, ContactManifold* out) {
  out->count = 0;
  const Vec3& half = a.half_extents;
  Vec3 w0;
  Vec3 w1;
  CapsuleSegment(b, pb, &w0, &w1);
  const LocalCapsule cap{pa.InverseApply(w0), pa.InverseApply(w1), b.radius};

  // Closest points of the segment and the solid box.
  const double t = ClosestParamSegmentToBox(cap.s0, cap.s1, half);
  const Vec3 on_segment = cap.s0 + t * (cap.s1 - cap.s0);
  const Vec3 on_box = on_segment.cwiseMax(-half).cwiseMin(half);
  const Vec3 away = on_segment - on_box;
  const double gap = away.norm();

  // Segment inside or touching the box: deep overlap.
  if (gap <= kGeometryEpsilon) {
    DeepContact(cap, half, pa, margin, out);
    return out->count;
  }
  if (!(gap - cap.radius < margin)) return 0;

  // Closest box point on a face (one clamped axis): clip against that face.
  const Vec3 n_local = away / gap;
  for (int i = 0; i < 3; ++i) {
    if (std::abs(n_local[i]) < kFaceAlignment) continue;
    const double side = n_local[i] > 0.0 ? 1.0 : -1.0;
    if (FaceContact(cap, half, i, side, pa, margin, out)) return out->count;
    break;
  }

  // Closest box point on an edge or corner: one point.
  AddLocal(pa, on_box, on_segment - cap.radius * n_local, n_local, gap - cap.radius, out);
  return out->count;
}

}  // namespace ligature
