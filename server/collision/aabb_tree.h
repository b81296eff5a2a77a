#pragma once
// A bounding-volume tree over world-space boxes, for scene queries: which boxes a ray meets,
// which a box overlaps, and which lie nearest a box, each visited in an order that lets the
// caller stop early. Unbounded boxes (planes) are kept apart and always visited. Built once
// per set of boxes; constant after, so any number of threads may read it.

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <span>
#include <utility>
#include <vector>

#include "server/geometry/aabb.h"

namespace ligature {

class AabbTree {
 public:
  // Builds the tree over `boxes` (median splits along the longest axis of the centres);
  // visits report indices into `boxes`.
  void Build(std::span<const Aabb> boxes);

  // Visits every box, grown by `grow` on each side, that the ray from `origin` along
  // `direction` meets within [0, *max_t] (a swept box: its half extents as `grow`, its
  // centre as `origin`): `visit(index, max_t)` may shrink *max_t (a hit found), which
  // prunes what is left.
  template <typename Visit>
  void Ray(const Vec3& origin, const Vec3& direction, const Vec3& grow, double* max_t,
           Visit&& visit) const;

  // Visits every box that overlaps `box`.
  template <typename Visit>
  void Overlapping(const Aabb& box, Visit&& visit) const;

  // Visits boxes in increasing distance from `box` while that distance is below *best:
  // `visit(index, best)` may shrink *best (a nearer answer found).
  template <typename Visit>
  void Nearest(const Aabb& box, double* best, Visit&& visit) const;

  // The gap between two boxes (0 when they overlap).
  static double Gap(const Aabb& a, const Aabb& b) {
    const Vec3 gap = (a.min - b.max).cwiseMax(b.min - a.max).cwiseMax(0.0);
    return gap.norm();
  }
  // Where the ray enters `box` within [0, max_t], or a negative number when it misses.
  static double RayEnter(const Vec3& origin, const Vec3& inv_direction, const Aabb& box,
                         double max_t);

 private:
  struct Node {
    Aabb bounds;
    int left = -1;  // inner node: its two children; -1 for a leaf
    int right = -1;
    int first = 0;  // leaf: `count` indices of order_ from `first`
    int count = 0;
  };
  int BuildNode(std::span<const Aabb> boxes, int first, int count);

  std::vector<Node> nodes_;       // nodes_[0] is the root when there is one
  std::vector<int> order_;        // bounded boxes' indices, grouped by leaf
  std::vector<Aabb> leaf_boxes_;  // their boxes, in the same order
  std::vector<int> unbounded_;
};

template <typename Visit>
void AabbTree::Ray(const Vec3& origin, const Vec3& direction, const Vec3& grow, double* max_t,
                   Visit&& visit) const {
  for (int i : unbounded_) visit(i, max_t);
  if (nodes_.empty()) return;
  const Vec3 inv = direction.cwiseInverse();
  const auto enter = [&](int node) {
    const Aabb& b = nodes_[node].bounds;
    return RayEnter(origin, inv, Aabb{b.min - grow, b.max + grow}, *max_t);
  };
  // Depth first, the nearer child first, skipping nodes entered beyond the best hit.
  std::vector<std::pair<double, int>> stack;
  stack.reserve(64);
  const double root = enter(0);
  if (root >= 0.0) stack.emplace_back(root, 0);
  while (!stack.empty()) {
    const auto [entry, index] = stack.back();
    stack.pop_back();
    if (entry > *max_t) continue;
    const Node& node = nodes_[index];
    if (node.left < 0) {
      for (int k = node.first; k < node.first + node.count; ++k) {
        const Aabb& b = leaf_boxes_[k];
        if (RayEnter(origin, inv, Aabb{b.min - grow, b.max + grow}, *max_t) >= 0.0) {
          visit(order_[k], max_t);
        }
      }
      continue;
    }
    const double l = enter(node.left);
    const double r = enter(node.right);
    if (l >= 0.0 && r >= 0.0) {
      const bool left_first = l <= r;
      stack.emplace_back(left_first ? r : l, left_first ? node.right : node.left);
      stack.emplace_back(left_first ? l : r, left_first ? node.left : node.right);
    } else if (l >= 0.0) {
      stack.emplace_back(l, node.left);
    } else if (r >= 0.0) {
      stack.emplace_back(r, node.right);
    }
  }
}

template <typename Visit>
void AabbTree::Overlapping(const Aabb& box, Visit&& visit) const {
  for (int i : unbounded_) visit(i);
  if (nodes_.empty()) return;
  std::vector<int> stack = {0};
  while (!stack.empty()) {
    const Node& node = nodes_[stack.back()];
    stack.pop_back();
    if (!node.bounds.Overlaps(box)) continue;
    if (node.left < 0) {
      for (int k = node.first; k < node.first + node.count; ++k) {
        if (leaf_boxes_[k].Overlaps(box)) visit(order_[k]);
      }
      continue;
    }
    stack.push_back(node.left);
    stack.push_back(node.right);
  }
}

template <typename Visit>
void AabbTree::Nearest(const Aabb& box, double* best, Visit&& visit) const {
  for (int i : unbounded_) visit(i, best);
  if (nodes_.empty()) return;
  // Best first: a queue of nodes by their gap to the box; the search ends when the nearest
  // node left is no nearer than the best answer.
  using Entry = std::pair<double, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
  queue.emplace(Gap(nodes_[0].bounds, box), 0);
  while (!queue.empty()) {
    const auto [gap, index] = queue.top();
    queue.pop();
    if (gap >= *best) break;
    const Node& node = nodes_[index];
    if (node.left < 0) {
      for (int k = node.first; k < node.first + node.count; ++k) {
        if (Gap(leaf_boxes_[k], box) < *best) visit(order_[k], best);
      }
      continue;
    }
    queue.emplace(Gap(nodes_[node.left].bounds, box), node.left);
    queue.emplace(Gap(nodes_[node.right].bounds, box), node.right);
  }
}

}  // namespace ligature
