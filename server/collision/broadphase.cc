#include "server/collision/broadphase.h"

#include <algorithm>

namespace ligature {

void SweepAndPrune::FindPairs(std::span<const Aabb> boxes, std::vector<ProxyPair>* pairs) {
  pairs->clear();
  const uint32_t n = static_cast<uint32_t>(boxes.size());

  // Split proxies into bounded and unbounded. The previous order is kept (dropping indices
  // that vanished or became unbounded) so the sort below starts nearly sorted.
  std::vector<bool> listed(n, false);
  unbounded_.clear();
  std::size_t kept = 0;
  for (uint32_t id : order_) {
    if (id < n && !listed[id] && !boxes[id].IsUnbounded()) {
      listed[id] = true;
      order_[kept++] = id;
    }
  }
  order_.resize(kept);
  for (uint32_t id = 0; id < n; ++id) {
    if (boxes[id].IsUnbounded()) {
      unbounded_.push_back(id);
    } else if (!listed[id]) {
      order_.push_back(id);
    }
  }

  // Insertion sort by min.x (index breaks ties): near-linear for coherent frames.
  auto before = [&](uint32_t i, uint32_t j) {
    const double xi = boxes[i].min.x();
    const double xj = boxes[j].min.x();
    return xi < xj || (xi == xj && i < j);
  };
  for (std::size_t k = 1; k < order_.size(); ++k) {
    const uint32_t id = order_[k];
    std::size_t m = k;
    while (m > 0 && before(id, order_[m - 1])) {
      order_[m] = order_[m - 1];
      --m;
    }
    order_[m] = id;
  }

  // Sweep along x: each box meets the ones starting before its max.x; test y and z.
  for (std::size_t k = 0; k < order_.size(); ++k) {
    const Aabb& a = boxes[order_[k]];
    for (std::size_t m = k + 1; m < order_.size(); ++m) {
      const Aabb& b = boxes[order_[m]];
      if (b.min.x() > a.max.x()) break;
      if (a.min.y() > b.max.y() || b.min.y() > a.max.y()) continue;
      if (a.min.z() > b.max.z() || b.min.z() > a.max.z()) continue;
      pairs->emplace_back(std::min(order_[k], order_[m]), std::max(order_[k], order_[m]));
    }
  }

  // Unbounded proxies pair with every bounded one, never with each other.
  for (uint32_t u : unbounded_) {
    for (uint32_t id : order_) pairs->emplace_back(std::min(u, id), std::max(u, id));
  }

  // Sorted output so callers see the same order whatever the sweep visited first.
  std::sort(pairs->begin(), pairs->end());
}

}  // namespace ligature
