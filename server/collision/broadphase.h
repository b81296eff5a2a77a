#pragma once
// Broadphase: sweep-and-prune over world-space bounds.

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "server/collision/aabb.h"

namespace ligature {

using ProxyPair = std::pair<uint32_t, uint32_t>;

// Writes every pair (i, j), i < j, of overlapping boxes to `pairs`, sorted by (i, j) so that
// results do not depend on the sort's internals (determinism). Unbounded boxes (planes)
// overlap every bounded box but not each other. Reuses `pairs`' capacity.
class SweepAndPrune {
 public:
  void FindPairs(std::span<const Aabb> boxes, std::vector<ProxyPair>* pairs);

 private:
  std::vector<uint32_t> order_;      // bounded proxies sorted by min.x (kept across calls)
  std::vector<uint32_t> unbounded_;  // planes
};

}  // namespace ligature
