#pragma once
// Broadphase for a world where most boxes rest (static bodies, sleeping ones, kinematic ones
// standing still): every pair of overlapping boxes of which at least one moves. Pairs of
// resting boxes are left out: nothing between them changes. The resting boxes sit in a
// bounding-volume tree kept from call to call and rebuilt only when one of them changes;
// the moving boxes sweep among themselves and query the tree.

#include <cstdint>
#include <span>
#include <vector>

#include "server/collision/aabb_tree.h"
#include "server/collision/broadphase.h"

namespace ligature {

class MovingPairs {
 public:
  // Writes every overlapping pair (i, j), i < j, with moving[i] or moving[j] to `pairs`,
  // sorted by (i, j), as SweepAndPrune::FindPairs would list them (unbounded boxes overlap
  // every bounded box but not each other).
  void FindPairs(std::span<const Aabb> boxes, std::span<const uint8_t> moving,
                 std::vector<ProxyPair>* pairs);

 private:
  // The resting boxes the tree holds, by index, and their bounds when it was built.
  std::vector<uint32_t> resting_;
  std::vector<Aabb> resting_boxes_;
  AabbTree tree_;
  // Scratch kept to reuse capacity: this call's resting boxes, the moving ones, and their
  // pairs among themselves (by position in movers_).
  std::vector<uint32_t> now_resting_;
  std::vector<Aabb> now_resting_boxes_;
  std::vector<uint32_t> movers_;
  std::vector<Aabb> mover_boxes_;
  std::vector<ProxyPair> mover_pairs_;
  SweepAndPrune sweep_;
};

}  // namespace ligature
