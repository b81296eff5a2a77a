#include "server/collision/broadphase.h"

#include <algorithm>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ligature {
namespace {

// A new axis must spread the centres this much more than the current one, so that the axis
// (and the kept order with it) does not flip between frames of a settled scene.
constexpr double kAxisSwitchRatio = 1.2;

}  // namespace

void SweepAndPrune::ChooseAxis(std::span<const Aabb> boxes) {
  if (order_.size() < 4) return;
  // How far the middle half of the box centres spreads along each axis (the interquartile
  // range of the doubled centres): a few far boxes (bodies thrown high above a floor of
  // props) must not turn the sweep across the layers where most boxes overlap.
  const size_t n = order_.size();
  Vec3 spread;
  centres_.resize(n);
  for (int k = 0; k < 3; ++k) {
    for (size_t m = 0; m < n; ++m) centres_[m] = boxes[order_[m]].min[k] + boxes[order_[m]].max[k];
    const auto q1 = centres_.begin() + n / 4;
    const auto q3 = centres_.begin() + (3 * n) / 4;
    std::nth_element(centres_.begin(), q3, centres_.end());
    std::nth_element(centres_.begin(), q1, q3);
    spread[k] = *q3 - *q1;
  }
  int best = axis_;
  for (int k = 0; k < 3; ++k) {
    if (spread[k] > kAxisSwitchRatio * spread[best]) best = k;
  }
  axis_ = best;
}

void SweepAndPrune::FindPairs(std::span<const Aabb> boxes, std::vector<ProxyPair>* pairs) {
  pairs->clear();
  found_.clear();
  const uint32_t n = static_cast<uint32_t>(boxes.size());

  // Split proxies into bounded and unbounded. The previous order is kept (dropping indices
  // that vanished or became unbounded) so the sort below starts nearly sorted.
  listed_.assign(n, 0);
  unbounded_.clear();
  std::size_t kept = 0;
  for (uint32_t id : order_) {
    if (id < n && !listed_[id] && !boxes[id].IsUnbounded()) {
      listed_[id] = 1;
      order_[kept++] = id;
    }
  }
  order_.resize(kept);
  for (uint32_t id = 0; id < n; ++id) {
    if (boxes[id].IsUnbounded()) {
      unbounded_.push_back(id);
    } else if (!listed_[id]) {
      order_.push_back(id);
    }
  }
  ChooseAxis(boxes);
  const int ax = axis_;
  const int ay = (ax + 1) % 3;
  const int az = (ax + 2) % 3;

  // Insertion sort by min along the axis (index breaks ties): near-linear for coherent
  // frames.
  auto before = [&](uint32_t i, uint32_t j) {
    const double xi = boxes[i].min[ax];
    const double xj = boxes[j].min[ax];
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

  // The sorted boxes' extents side by side (min and max along the sweep axis, then the
  // mins and the maxes along the two others), so the sweep reads them in order rather than
  // through the index list.
  const std::size_t count = order_.size();
  extents_.resize(6 * count);
  for (std::size_t k = 0; k < count; ++k) {
    const Aabb& box = boxes[order_[k]];
    double* e = &extents_[6 * k];
    e[0] = box.min[ax];
    e[1] = box.max[ax];
    e[2] = box.min[ay];
    e[3] = box.min[az];
    e[4] = box.max[ay];
    e[5] = box.max[az];
  }

  // Sweep along the axis: each box meets the ones starting before its max; test the other
  // two axes (all four comparisons at once: which of them fails is unpredictable, their
  // conjunction rarely holds). Each comparison is "not greater", so boxes that touch
  // overlap. With SSE2 the two axes go through each comparison together.
  for (std::size_t k = 0; k < count; ++k) {
    const double* a = &extents_[6 * k];
#if defined(__SSE2__)
    const __m128d a_min = _mm_loadu_pd(a + 2);
    const __m128d a_max = _mm_loadu_pd(a + 4);
#endif
    for (std::size_t m = k + 1; m < count; ++m) {
      const double* b = &extents_[6 * m];
      if (b[0] > a[1]) break;
#if defined(__SSE2__)
      const __m128d within = _mm_and_pd(_mm_cmpngt_pd(a_min, _mm_loadu_pd(b + 4)),
                                           _mm_cmpngt_pd(_mm_loadu_pd(b + 2), a_max));
      const bool overlap = _mm_movemask_pd(within) == 3;
#else
      const bool overlap = !(a[2] > b[4]) & !(a[3] > b[5]) & !(b[2] > a[4]) & !(b[3] > a[5]);
#endif
      if (overlap) {
        const uint32_t ia = order_[k];
        const uint32_t ib = order_[m];
        found_.emplace_back(std::min(ia, ib), std::max(ia, ib));
      }
    }
  }

  // Unbounded proxies pair with every bounded one, never with each other.
  for (uint32_t u : unbounded_) {
    for (uint32_t id : order_) found_.emplace_back(std::min(u, id), std::max(u, id));
  }

  // Sorted output so callers see the same order whatever the sweep visited first.
  SortFound(n, pairs);
}

void SweepAndPrune::SortFound(uint32_t n, std::vector<ProxyPair>* pairs) {
  // Bucket starts from the counts of `key` over found pairs (prefix sums).
  auto bucket_starts = [&](std::span<const ProxyPair> in, auto key) {
    start_.assign(n + 1, 0);
    for (const ProxyPair& p : in) ++start_[key(p) + 1];
    for (uint32_t k = 0; k < n; ++k) start_[k + 1] += start_[k];
  };
  auto first = [](const ProxyPair& p) { return p.first; };
  auto second = [](const ProxyPair& p) { return p.second; };

  // By j, then stably by i: ordered by (i, j). Each pair occurs once, so this is the
  // lexicographic order.
  by_second_.resize(found_.size());
  bucket_starts(found_, second);
  for (const ProxyPair& p : found_) by_second_[start_[p.second]++] = p;
  bucket_starts(by_second_, first);
  pairs->resize(found_.size());
  for (const ProxyPair& p : by_second_) (*pairs)[start_[p.first]++] = p;
}

}  // namespace ligature
