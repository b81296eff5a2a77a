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

// A ray, or a box swept along it (its half extents as `grow`, its centre as `origin`),
// prepared for testing many boxes: per axis the reciprocal of the direction and which face
// of a box it meets first, so that a test is six subtractions and multiplications and no
// branch. A direction component of 0 takes a huge finite reciprocal instead of infinity,
// so that no test ever computes 0 * inf: a ray along a slab's face counts as touching the
// box, and one outside a slab by a denormal gap may too; the test only prunes a search, so
// at worst it visits a box it grazes.
class BoxRay {
 public:
  BoxRay(const Vec3& origin, const Vec3& direction, const Vec3& grow = Vec3::Zero()) {
    for (int i = 0; i < 3; ++i) {
      negative_[i] = direction[i] < 0.0;
      inv_[i] = direction[i] != 0.0 ? 1.0 / direction[i] : 1e300;
      // The near face of a box is min - grow (max + grow going down the axis): its entry is
      // (min - (origin + grow)) * inv, and the far face's exit likewise.
      near_origin_[i] = origin[i] + (negative_[i] ? -grow[i] : grow[i]);
      far_origin_[i] = origin[i] + (negative_[i] ? grow[i] : -grow[i]);
    }
  }

  // Where the ray enters `box` within [0, max_t], or a negative number when it misses it
  // there.
  double Enter(const Aabb& box, double max_t) const {
    double enter = 0.0, leave = max_t;
    for (int i = 0; i < 3; ++i) {
      const double near = negative_[i] ? box.max[i] : box.min[i];
      const double far = negative_[i] ? box.min[i] : box.max[i];
      enter = std::max(enter, (near - near_origin_[i]) * inv_[i]);
      leave = std::min(leave, (far - far_origin_[i]) * inv_[i]);
    }
    return enter <= leave ? enter : -1.0;
  }

 private:
  double inv_[3];
  double near_origin_[3];
  double far_origin_[3];
  bool negative_[3];
};

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
  const BoxRay ray(origin, direction, grow);
  // Depth first, the nearer child first, skipping nodes entered beyond the best hit. The
  // pending nodes live on the call's stack: at most one per level (and the two children
  // being pushed), and the median splits keep the tree below 32 levels for an int's count
  // of boxes, so no allocation per ray.
  struct Pending {
    double entry;
    int index;
  };
  Pending stack[64];
  int size = 0;
  const double root = ray.Enter(nodes_[0].bounds, *max_t);
  if (root >= 0.0) stack[size++] = {root, 0};
  while (size > 0) {
    const auto [entry, index] = stack[--size];
    if (entry > *max_t) continue;
    const Node& node = nodes_[index];
    if (node.left < 0) {
      for (int k = node.first; k < node.first + node.count; ++k) {
        if (ray.Enter(leaf_boxes_[k], *max_t) >= 0.0) visit(order_[k], max_t);
      }
      continue;
    }
    const double l = ray.Enter(nodes_[node.left].bounds, *max_t);
    const double r = ray.Enter(nodes_[node.right].bounds, *max_t);
    if (l >= 0.0 && r >= 0.0) {
      const bool left_first = l <= r;
      stack[size++] = {left_first ? r : l, left_first ? node.right : node.left};
      stack[size++] = {left_first ? l : r, left_first ? node.left : node.right};
    } else if (l >= 0.0) {
      stack[size++] = {l, node.left};
    } else if (r >= 0.0) {
      stack[size++] = {r, node.right};
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
