#pragma once
// Broadphase: sweep-and-prune over world-space bounds.

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "server/geometry/aabb.h"

namespace ligature {

using ProxyPair = std::pair<uint32_t, uint32_t>;

// Writes every pair (i, j), i < j, of overlapping boxes to `pairs`, sorted by (i, j) so that
// results do not depend on the sweep's internals (determinism). Unbounded boxes (planes)
// overlap every bounded box but not each other. Reuses `pairs`' capacity and its own
// scratch, so a warm instance does not allocate.
class SweepAndPrune {
 public:
  void FindPairs(std::span<const Aabb> boxes, std::vector<ProxyPair>* pairs);

 private:
  // Picks the sweep axis: the one along which the middle half of the bounded boxes'
  // centres spreads most, so that the fewest boxes overlap along it.
  void ChooseAxis(std::span<const Aabb> boxes);
  // Sorts `found_` into `pairs` by (i, j) in linear time: a counting sort by j, then a
  // stable one by i.
  void SortFound(uint32_t n, std::vector<ProxyPair>* pairs);

  int axis_ = 0;                     // sweep axis (0 x, 1 y, 2 z)
  std::vector<uint32_t> order_;      // bounded proxies sorted by min along the axis (kept)
  std::vector<uint32_t> unbounded_;  // planes
  // Scratch kept to reuse capacity.
  std::vector<uint8_t> listed_;      // per proxy: already in order_
  std::vector<double> extents_;      // sorted boxes' extents, six per box
  std::vector<double> centres_;      // the boxes' centres along one axis
  std::vector<ProxyPair> found_;     // pairs (smaller index first) in sweep order
  std::vector<ProxyPair> by_second_;  // found_ ordered by j
  std::vector<uint32_t> start_;      // counting-sort bucket starts
};

}  // namespace ligature
