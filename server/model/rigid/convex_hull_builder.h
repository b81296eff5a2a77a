#pragma once
// Builds a ConvexHull (server/geometry/convex_hull.h) from points, with Debian's reentrant
// Qhull: welds points closer than a tolerance, caps the vertex count, orders each face's
// loop, lists the edges and computes the exact mass properties of the solid polyhedron.

#include <memory>
#include <span>

#include "absl/status/statusor.h"
#include "server/geometry/convex_hull.h"

namespace ligature {

inline constexpr int kMaxHullPoints = 65536;   // input points
inline constexpr int kMaxHullVertices = 4096;  // the largest vertex cap
inline constexpr int kDefaultHullVertices = 64;

struct HullOptions {
  // At most this many hull vertices (4 to kMaxHullVertices): beyond it the hull keeps the
  // points Qhull adds first, the farthest out, so the cap trims the smallest features.
  int max_vertices = kDefaultHullVertices;
  // m, >= 0: points closer than this to a point kept before them are dropped.
  double weld_tolerance = 0.0;
};

// The hull of `points` (local frame, m). INVALID_ARGUMENT naming the offending point
// (points[i]) or the options for non-finite or too many points, a bad option, and points
// that span no volume (fewer than four after welding, all on a plane or a line).
absl::StatusOr<std::shared_ptr<const ConvexHull>> BuildConvexHull(std::span<const Vec3> points,
                                                                  const HullOptions& options);

}  // namespace ligature
