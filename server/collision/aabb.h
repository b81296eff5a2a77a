#pragma once
// The world-space bounds of a placed shape; a plane's box is unbounded.

#include "server/geometry/aabb.h"
#include "server/geometry/shape.h"
#include "server/math/transform.h"

namespace ligature {

// World-space bounds of `shape` at `pose`, grown by `margin` on every side.
Aabb ComputeAabb(const Shape& shape, const Transform& pose, double margin);

}  // namespace ligature
