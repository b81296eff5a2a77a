#include "server/collision/aabb_tree.h"

namespace ligature {
namespace {

// At most this many boxes in a leaf.
constexpr int kLeafSize = 4;

}  // namespace

void AabbTree::Build(std::span<const Aabb> boxes) {
  nodes_.clear();
  order_.clear();
  leaf_boxes_.clear();
  unbounded_.clear();
  for (int i = 0; i < static_cast<int>(boxes.size()); ++i) {
    (boxes[i].IsUnbounded() ? unbounded_ : order_).push_back(i);
  }
  if (order_.empty()) return;
  nodes_.reserve(2 * order_.size() / kLeafSize + 1);
  BuildNode(boxes, 0, static_cast<int>(order_.size()));
  leaf_boxes_.clear();
  leaf_boxes_.reserve(order_.size());
  for (int i : order_) leaf_boxes_.push_back(boxes[i]);
}

// One node over order_[first, first + count): a leaf when small, else split at the median
// of the centres along the axis they spread most on.
int AabbTree::BuildNode(std::span<const Aabb> boxes, int first, int count) {
  const int index = static_cast<int>(nodes_.size());
  nodes_.emplace_back();
  Aabb bounds = boxes[order_[first]];
  Vec3 lo = boxes[order_[first]].min + boxes[order_[first]].max, hi = lo;
  for (int k = first; k < first + count; ++k) {
    const Aabb& b = boxes[order_[k]];
    bounds.min = bounds.min.cwiseMin(b.min);
    bounds.max = bounds.max.cwiseMax(b.max);
    lo = lo.cwiseMin(b.min + b.max);
    hi = hi.cwiseMax(b.min + b.max);
  }
  nodes_[index].bounds = bounds;
  if (count <= kLeafSize) {
    nodes_[index].first = first;
    nodes_[index].count = count;
    return index;
  }
  int axis = 0;
  (hi - lo).maxCoeff(&axis);
  const auto begin = order_.begin() + first;
  std::nth_element(begin, begin + count / 2, begin + count, [&](int a, int b) {
    return boxes[a].min[axis] + boxes[a].max[axis] < boxes[b].min[axis] + boxes[b].max[axis];
  });
  const int left = BuildNode(boxes, first, count / 2);
  const int right = BuildNode(boxes, first + count / 2, count - count / 2);
  nodes_[index].left = left;
  nodes_[index].right = right;
  return index;
}

double AabbTree::RayEnter(const Vec3& origin, const Vec3& inv_direction, const Aabb& box,
                          double max_t) {
  double enter = 0.0, leave = max_t;
  for (int i = 0; i < 3; ++i) {
    double t0 = (box.min[i] - origin[i]) * inv_direction[i];
    double t1 = (box.max[i] - origin[i]) * inv_direction[i];
    // A ray along the slab (0 * inf) is inside it or outside for good.
    if (std::isnan(t0) || std::isnan(t1)) {
      if (origin[i] < box.min[i] || origin[i] > box.max[i]) return -1.0;
      continue;
    }
    if (t0 > t1) std::swap(t0, t1);
    enter = std::max(enter, t0);
    leave = std::min(leave, t1);
  }
  return enter <= leave ? enter : -1.0;
}

}  // namespace ligature
