#pragma once
// Axis-aligned bounding boxes in world space. An unbounded box (infinite corners) is a
// plane's: it overlaps everything.

#include <cmath>

#include "server/math/types.h"

namespace ligature {

struct Aabb {
  Vec3 min = Vec3::Zero();  // m, world
  Vec3 max = Vec3::Zero();  // m, world

  bool Overlaps(const Aabb& o) const {
    return (min.array() <= o.max.array()).all() && (o.min.array() <= max.array()).all();
  }
  bool IsUnbounded() const { return !std::isfinite(min.x()); }
  // Grows this box to enclose `o` too.
  void Enclose(const Aabb& o) {
    min = min.cwiseMin(o.min);
    max = max.cwiseMax(o.max);
  }
};

}  // namespace ligature
