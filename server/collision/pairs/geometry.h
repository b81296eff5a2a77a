#pragma once
// Small geometric helpers shared by the pair functions: safe normalization, closest points
// on segments and boxes, and building a contact point from two surface points.

#include <array>
#include <span>

#include "server/collision/contact.h"
#include "server/geometry/shape.h"
#include "server/math/transform.h"

namespace ligature {

// Lengths below this are treated as zero when a direction is needed (m).
inline constexpr double kGeometryEpsilon = 1e-12;

// The separating-axis tests of boxes prefer a face axis to an edge axis unless the edge
// separates clearly more: by this share of the face's separation plus an absolute 1e-6 m,
// so that a resting manifold does not flip between nearly equal candidates.
inline constexpr double kEdgeRelativeTolerance = 0.05;
inline constexpr double kAbsoluteTolerance = 1e-6;

// Edge axes from two edges (or an edge and a segment) whose directions make an angle with
// a sine below this are skipped: their cross product is noise, and the face axes cover
// those configurations.
inline constexpr double kMinEdgeAxisSine = 1e-6;

// Unit vector along `v`, or `fallback` (assumed unit) when `v` is too short to normalize.
Vec3 NormalizedOr(const Vec3& v, const Vec3& fallback);

// A unit vector perpendicular to `v`; UnitX when `v` is zero.
Vec3 AnyPerpendicular(const Vec3& v);

// Parameter in [0, 1] of the point of segment [a, b] closest to `p`.
double ClosestParamOnSegment(const Vec3& p, const Vec3& a, const Vec3& b);

// Closest points between segments [p0, p1] and [q0, q1]: parameters s (first) and t
// (second) in [0, 1] and the points themselves. Degenerate segments act as points;
// parallel segments get one valid pair of closest points (not unique).
struct SegmentClosestPoints {
  double s = 0.0;
  double t = 0.0;
  Vec3 on_first = Vec3::Zero();
  Vec3 on_second = Vec3::Zero();
};
SegmentClosestPoints ClosestPointsBetweenSegments(const Vec3& p0, const Vec3& p1, const Vec3& q0,
                                                  const Vec3& q1);

// True when every point of segment A (centre ca, running from ca - da / 2 to ca + da / 2)
// is further than `distance` (m) from every point of segment B (centre cb, direction db),
// by more than a tolerance far above rounding (1e-9 of the sizes involved), so that no
// computation of their closest points can come out below `distance`. Cheap (no square
// root or division): it bounds the gap by the distance between the segments' lines (when
// they are not nearly parallel) and by the gap between their projections on the line
// through both centres. False when unsure, for non-finite input and for a negative
// distance.
bool SegmentsSurelyApart(const Vec3& ca, const Vec3& da, const Vec3& cb, const Vec3& db,
                         double distance);

// Parameter in [0, 1] of the point of segment [s0, s1] closest to the solid box with
// half extents `half` centred at the origin (all in the box's frame). Exact: the squared
// distance is piecewise quadratic between the points where the segment crosses a face plane.
double ClosestParamSegmentToBox(const Vec3& s0, const Vec3& s1, const Vec3& half);

// Clips the parameter range [*t0, *t1] of segment s0 + t * (s1 - s0) to the slab
// |x[axis]| <= half. Returns false when nothing is left.
bool ClipSegmentToSlab(const Vec3& s0, const Vec3& s1, int axis, double half, double* t0,
                       double* t1);

// q * v as Eigen computes it (uv = 2 q.vec x v, then v + w uv + q.vec x uv), written out in
// scalars: the same operations in the same order give the same bits, without the packed
// temporaries the compiled Eigen code stores and reloads (a store-forwarding stall).
inline Vec3 RotateVector(const Quat& q, const Vec3& v) {
  const double x = q.x();
  const double y = q.y();
  const double z = q.z();
  const double w = q.w();
  double ux = y * v.z() - z * v.y();
  double uy = z * v.x() - x * v.z();
  double uz = x * v.y() - y * v.x();
  ux += ux;
  uy += uy;
  uz += uz;
  return Vec3(v.x() + w * ux + (y * uz - z * uy), v.y() + w * uy + (z * ux - x * uz),
              v.z() + w * uz + (x * uy - y * ux));
}

// World-space end points of a capsule's inner segment (local -Y end first). Inline: every
// pair function with a capsule calls it.
inline void CapsuleSegment(const Shape& capsule, const Transform& pose, Vec3* p0, Vec3* p1) {
  const Vec3 half_axis = RotateVector(pose.orientation, Vec3(0.0, capsule.half_length, 0.0));
  *p0 = pose.position - half_axis;
  *p1 = pose.position + half_axis;
}

// World-space corners of a box; corner k has local sign (+/-) on axis i from bit i of k.
std::array<Vec3, 8> BoxCorners(const Shape& box, const Transform& pose);

// Contact with position midway between the surface point on A and the one on B.
ContactPoint MakeContact(const Vec3& on_a, const Vec3& on_b, const Vec3& normal, double distance);

// The smallest distance among a manifold's points (infinity for none).
double MinDistance(const ContactManifold& m);

// Gaps that differ by less than this share of the pair's size (1 + largest radius) count as
// equal when a manifold's nearest point is checked against the exact gap.
inline constexpr double kExactGapTolerance = 1e-10;

// The end of a pair of polytopes apart within the margin, once the exact gap `distance` and
// its closest points are known. Nothing when the gap reaches the margin. The face manifold
// already in `out` when its nearest point is the gap within kAbsoluteTolerance * `scale`;
// if it is off by more than kExactGapTolerance * `scale` (the closest pair lies a little
// outside the clipped face), that point is moved onto the closest pair, so the manifold
// reports the exact gap. Else one point between the closest points, its normal along them
// (`fallback_normal` when they coincide). Returns the point count.
int KeepManifoldOrExact(const Vec3& on_a, const Vec3& on_b, double distance,
                        const Vec3& fallback_normal, double margin, double scale,
                        ContactManifold* out);

// The index of a point of `points` (not empty) farthest along `direction`, the lowest index
// among ties.
int SupportIndexOf(std::span<const Vec3> points, const Vec3& direction);

}  // namespace ligature
