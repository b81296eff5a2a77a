#include "server/collision/aabb_tree.h"

namespace ligature {

void AabbTree::Build(std::span<const Aabb> boxes) {
  boxes_.assign(boxes.begin(), boxes.end());
  bounded_.clear();
  unbounded_.clear();
  std::vector<Aabb> bounded_boxes;
  for (int i = 0; i < static_cast<int>(boxes.size()); ++i) {
    if (boxes[i].IsUnbounded()) {
      unbounded_.push_back(i);
    } else {
      bounded_.push_back(i);
      bounded_boxes.push_back(boxes[i]);
    }
  }
  wide_.Build(bounded_boxes);
}

}  // namespace ligature
