#pragma once
// Where a point meets a soft body's surface, for contacts found at the start of a tick:
// the body's boundary swept over the step, and the nearest surface point to a point among
// a triangle grid's candidates.

#include <optional>

#include "server/collision/triangle_grid.h"
#include "server/geometry/aabb.h"
#include "server/world/soft/soft_world.h"

namespace ligature {

// A body's boundary over the step: its bounds (both ends, grown by `grow`) and the
// farthest any boundary vertex moves.
struct SweptBoundary {
  Aabb bounds;
  double reach = 0.0;
};
SweptBoundary Sweep(const SoftWorld::Body& body, double grow);

bool Contains(const Aabb& box, const Vec3& p);

// The nearest surface point of `body` (at its start positions, which `grid` lists) to p,
// with the outward normal of its triangle; nothing when none is within `reach`.
struct SurfaceHit {
  int triangle = -1;
  Vec3 barycentric = Vec3::Zero();
  Vec3 point = Vec3::Zero();
  Vec3 normal = Vec3::UnitY();
};
std::optional<SurfaceHit> NearestSurfacePoint(const SoftWorld::Body& body, const TriangleGrid& grid,
                                              const Vec3& p, double reach);

// The surface point of a hit as a point of its body (held vertices weigh nothing).
SoftWorld::WeightedPoint HitPoint(const SoftWorld::Body& body, const SurfaceHit& hit);

}  // namespace ligature
