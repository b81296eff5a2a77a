#pragma once
// The curve joint: a body's anchor held on a world-space polyline (or a sampled spline).
// The point's closest segment is found by walking from the segment it was on last, so
// that a point follows the path through loops and sharp turns instead of jumping to a
// nearer, unrelated part of the curve.

#include <cstdint>
#include <span>
#include <vector>

#include "server/constraint/constraint_rows.h"
#include "server/constraint/joint.h"
#include "server/constraint/joint_rows.h"

namespace ligature {

// Polyline samples per span of a smooth curve.
inline constexpr int kCurveSamplesPerSpan = 16;
// A stop row is emitted once the point is this close to an end (m), so that it can also
// catch motion other constraints cause during the solve.
inline constexpr double kCurveStopSlop = 0.01;

// The polyline through `points` with repeated consecutive points dropped; with `smooth`, a
// centripetal Catmull-Rom spline through them (end tangents from mirrored neighbours),
// sampled kCurveSamplesPerSpan times per span.
std::vector<Vec3> CurvePolyline(const std::vector<Vec3>& points, bool smooth);

enum class CurveRegion : uint8_t {
  kInside = 0,       // the projection lies on the curve
  kBeforeStart = 1,  // before the first point, on the first segment's line
  kPastEnd = 2,      // past the last point, on the last segment's line
};

struct CurveProjection {
  uint32_t segment = 0;          // from polyline[segment] to polyline[segment + 1]
  Vec3 closest = Vec3::Zero();   // closest point (on the end segment's line beyond an end)
  Vec3 tangent = Vec3::UnitX();  // unit, in the direction of increasing index
  CurveRegion region = CurveRegion::kInside;
};

// Projects p on a polyline of at least 2 distinct points, starting from segment `start`
// and moving to a neighbour while the projection falls outside the current segment. When
// the walk would turn back, the point lies in the wedge of a convex corner: the corner is
// the closest point and the tangent there, perpendicular to p - corner, blends the two
// segments' directions.
CurveProjection ProjectOnPolyline(std::span<const Vec3> polyline, uint32_t start,
                                  const Vec3& p);

// The blocks of a curve joint on body side `b` (A is the world), without warm start:
// blocks[0] holds the anchor on the curve, blocks[1] (optional) stops it at an end. Builds
// joint.curve_samples on first use and updates joint.curve_segment and joint.curve_normal.
struct CurveBlocks {
  int count = 0;
  ConstraintBlock blocks[2];
  bool released = false;  // kRelease and the point passed an end: no blocks
};
CurveBlocks MakeCurveBlocks(Joint& joint, const JointSide& b);

}  // namespace ligature
