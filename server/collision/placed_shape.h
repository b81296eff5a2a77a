#pragma once
// A body's child shape placed in world space with its bounds, computed once per tick so
// that the child pairs of two compound bodies are placed once and those whose bounds are
// apart skip the narrowphase.

#include "server/geometry/aabb.h"
#include "server/geometry/shape.h"
#include "server/math/transform.h"

namespace ligature {

struct PlacedShape {
  Transform pose;      // world pose of the shape (body pose * child pose)
  Aabb bounds;         // world bounds grown by the body's growth
  double slack = 0.0;  // extra room (m) the culling test allows (BoundsApart)
};

// Places `child` of a body at `body_pose`; its bounds are grown by `grow` (m) on every side,
// exactly as ComputeAabb does, so that the body's bounds are their union.
PlacedShape PlaceShape(const ChildShape& child, const Transform& body_pose, double grow);

// True when the narrowphase cannot find a contact between the two shapes at a pair margin
// of (grow of a) + (grow of b): their bounds are apart along a world axis by more than both
// slacks. Each pair function reports a point only when the shapes are closer than the
// margin, up to tolerances (box-box keeps an edge pair within 1e-6 (1 + size) of its
// separating-axis bound) far smaller than the slack. Unbounded bounds (planes) and
// non-finite ones are never apart, so such pairs always reach the narrowphase.
inline bool BoundsApart(const PlacedShape& a, const PlacedShape& b) {
  const double room = a.slack + b.slack;
  return (a.bounds.min.array() - b.bounds.max.array() > room).any() ||
         (b.bounds.min.array() - a.bounds.max.array() > room).any();
}

}  // namespace ligature
