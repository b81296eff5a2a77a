#pragma once
// Axis-aligned bounding boxes in world space; a plane's box is unbounded.

#include <cmath>

#include "server/geometry/shape.h"
#include "server/math/transform.h"

namespace ligature {

struct Aabb {
  Vec3 min = Vec3::Zero();
  Vec3 max = Vec3::Zero();

  bool Overlaps(const Aabb& o) const {
    return (min.array() <= o.max.array()).all() && (o.min.array() <= max.array()).all();
  }
  bool IsUnbounded() const { return !std::isfinite(min.x()); }
};

// World-space bounds of `shape` at `pose`, grown by `margin` on every side.
Aabb ComputeAabb(const Shape& shape, const Transform& pose, double margin);

}  // namespace ligature
