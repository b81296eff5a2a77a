#include "server/collision/aabb_tree.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace ligature {

void AabbTree::Build(std::span<const Aabb> boxes) {
  boxes_.assign(boxes.begin(), boxes.end());
  bounded_.clear();
  scratch_.clear();
  unbounded_.clear();
  for (int i = 0; i < static_cast<int>(boxes.size()); ++i) {
    if (boxes[i].IsUnbounded()) {
      unbounded_.push_back(i);
    } else {
      bounded_.push_back(i);
      scratch_.push_back(boxes[i]);
    }
  }
  wide_.Build(scratch_);
}

double AabbTree::RayEnter(const Vec3& origin, const Vec3& inv_direction, const Aabb& box,
                          double max_t) {
  double enter = 0.0, leave = max_t;
  for (int i = 0; i < 3; ++i) {
    double t0 = (box.min[i] - origin[i]) * inv_direction[i];
    double t1 = (box.max[i] - origin[i]) * inv_direction[i];
    // A ray along the slab (0 * inf) is inside it or outside for good.
    if (std::isnan(t0) || std::isnan(t1)) {
      if (origin[i] < box.min[i] || origin[i] > box.max[i]) return -1.0;
      continue;
    }
    if (t0 > t1) std::swap(t0, t1);
    enter = std::max(enter, t0);
    leave = std::min(leave, t1);
  }
  return enter <= leave ? enter : -1.0;
}

}  // namespace ligature
