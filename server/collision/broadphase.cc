#include "server/collision/broadphase.h"

#include <algorithm>
#include <cstdint>

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

  // The sorted boxes' extents side by side (min x, max x, min y, max y, min z, max z), so
  // the sweep reads them in order rather than through the index list.
  const std::size_t count = order_.size();
  std::vector<double> extents(6 * count);
  for (std::size_t k = 0; k < count; ++k) {
    const Aabb& box = boxes[order_[k]];
    double* e = &extents[6 * k];
    e[0] = box.min.x();
    e[1] = box.max.x();
    e[2] = box.min.y();
    e[3] = box.max.y();
    e[4] = box.min.z();
    e[5] = box.max.z();
  }
  // Pairs as one 64-bit key each (smaller index high), which sorts faster than pairs.
  auto key = [](uint32_t i, uint32_t j) {
    return (static_cast<uint64_t>(std::min(i, j)) << 32) | std::max(i, j);
  };
  std::vector<uint64_t> keys;
  keys.reserve(pairs->capacity());

  // Sweep along x: each box meets the ones starting before its max.x; test y and z (all
  // four comparisons at once: which of them fails is unpredictable, their conjunction
  // rarely holds).
  for (std::size_t k = 0; k < count; ++k) {
    const double* a = &extents[6 * k];
    for (std::size_t m = k + 1; m < count; ++m) {
      const double* b = &extents[6 * m];
      if (b[0] > a[1]) break;
      const bool overlap = !(a[2] > b[3]) & !(b[2] > a[3]) & !(a[4] > b[5]) & !(b[4] > a[5]);
      if (overlap) keys.push_back(key(order_[k], order_[m]));
    }
  }

  // Unbounded proxies pair with every bounded one, never with each other.
  for (uint32_t u : unbounded_) {
    for (uint32_t id : order_) keys.push_back(key(u, id));
  }

  // Sorted output so callers see the same order whatever the sweep visited first.
  std::sort(keys.begin(), keys.end());
  pairs->reserve(keys.size());
  for (const uint64_t k : keys) {
    pairs->emplace_back(static_cast<uint32_t>(k >> 32), static_cast<uint32_t>(k));
  }
}

}  // namespace ligature
