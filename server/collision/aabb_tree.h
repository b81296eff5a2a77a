#pragma once
// A bounding-volume tree over world-space boxes, for scene queries and the broad phase:
// which boxes a ray meets, which a box overlaps, and which lie nearest a box, each visited in
// an order that lets the caller stop early. The bounded boxes go into a four-wide tree
// (server/geometry/wide_tree); unbounded ones (planes) are kept apart and always visited.
// Built once per set of boxes; constant after, so any number of threads may read it.

#include <cmath>
#include <span>
#include <vector>

#include "server/geometry/aabb.h"
#include "server/geometry/wide_tree.h"

namespace ligature {

class AabbTree {
 public:
  // Builds the tree over `boxes`; visits report indices into `boxes`.
  void Build(std::span<const Aabb> boxes);

  // Visits every box, grown by `grow` on each side, that the ray from `origin` along
  // `direction` meets within [0, *max_t] (a swept box: its half extents as `grow`, its
  // centre as `origin`), and a few it grazes within single precision: `visit(index, max_t)`
  // may shrink *max_t (a hit found), which prunes what is left.
  template <typename Visit>
  void Ray(const Vec3& origin, const Vec3& direction, const Vec3& grow, double* max_t,
           Visit&& visit) const;

  // Visits every box that overlaps `box`.
  template <typename Visit>
  void Overlapping(const Aabb& box, Visit&& visit) const;

  // Visits the boxes nearer to `box` than *best, in about increasing distance (nearest first
  // as far as the tree can tell): `visit(index, best)` may shrink *best (a nearer answer
  // found), which prunes what is left.
  template <typename Visit>
  void Nearest(const Aabb& box, double* best, Visit&& visit) const;

  // The gap between two boxes (0 when they overlap).
  static double Gap(const Aabb& a, const Aabb& b) {
    const Vec3 gap = (a.min - b.max).cwiseMax(b.min - a.max).cwiseMax(0.0);
    return gap.norm();
  }

 private:
  WideTree wide_;              // over the bounded boxes
  std::vector<int> bounded_;   // wide_'s items -> indices of the boxes given
  std::vector<Aabb> boxes_;    // the boxes given
  std::vector<int> unbounded_;
};

template <typename Visit>
void AabbTree::Ray(const Vec3& origin, const Vec3& direction, const Vec3& grow, double* max_t,
                   Visit&& visit) const {
  for (int i : unbounded_) visit(i, max_t);
  wide_.Ray(origin, direction, grow, max_t,
            [&](int k, double* reach) { visit(bounded_[k], reach); });
}

template <typename Visit>
void AabbTree::Overlapping(const Aabb& box, Visit&& visit) const {
  for (int i : unbounded_) visit(i);
  // The wide tree may also offer boxes that only touch within single precision.
  wide_.Overlapping(box, [&](int k) {
    if (boxes_[bounded_[k]].Overlaps(box)) visit(bounded_[k]);
  });
}

template <typename Visit>
void AabbTree::Nearest(const Aabb& box, double* best, Visit&& visit) const {
  for (int i : unbounded_) visit(i, best);
  wide_.Nearest(box, best, [&](int k, double* bound) {
    if (Gap(boxes_[bounded_[k]], box) < *bound) visit(bounded_[k], bound);
  });
}

}  // namespace ligature
