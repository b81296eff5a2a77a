#include "server/collision/moving_pairs.h"

#include <algorithm>

namespace ligature {

namespace {

bool SameBoxes(const std::vector<Aabb>& a, const std::vector<Aabb>& b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(),
                    [](const Aabb& x, const Aabb& y) { return x.min == y.min && x.max == y.max; });
}

}  // namespace

void MovingPairs::FindPairs(std::span<const Aabb> boxes, std::span<const uint8_t> moving,
                            std::vector<ProxyPair>* pairs) {
  pairs->clear();
  now_resting_.clear();
  now_resting_boxes_.clear();
  movers_.clear();
  mover_boxes_.clear();
  for (uint32_t i = 0; i < boxes.size(); ++i) {
    if (moving[i]) {
      movers_.push_back(i);
      mover_boxes_.push_back(boxes[i]);
    } else {
      now_resting_.push_back(i);
      now_resting_boxes_.push_back(boxes[i]);
    }
  }
  // The tree is rebuilt only when a resting box came, went or changed since the last call.
  if (now_resting_ != resting_ || !SameBoxes(now_resting_boxes_, resting_boxes_)) {
    std::swap(resting_, now_resting_);
    std::swap(resting_boxes_, now_resting_boxes_);
    tree_.Build(resting_boxes_);
  }

  // Moving boxes among themselves, then each against the resting ones.
  sweep_.FindPairs(mover_boxes_, &mover_pairs_);
  for (const auto& [a, b] : mover_pairs_) pairs->push_back({movers_[a], movers_[b]});
  for (const uint32_t m : movers_) {
    const bool unbounded = boxes[m].IsUnbounded();
    tree_.Overlapping(boxes[m], [&](int k) {
      const uint32_t r = resting_[k];
      if (unbounded && boxes[r].IsUnbounded()) return;
      pairs->push_back({std::min(m, r), std::max(m, r)});
    });
  }
  std::sort(pairs->begin(), pairs->end());
}

}  // namespace ligature
