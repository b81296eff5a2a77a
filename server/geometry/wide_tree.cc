#include "server/geometry/wide_tree.h"

#include <cmath>
#include <numeric>


namespace ligature {
namespace {

// The largest reciprocal of a direction component: a component of 0 (or a denormal one)
// takes this instead of an infinity, so no test computes 0 * inf.
constexpr double kMaxInverse = 1e30;

}  // namespace

// What a build works on: the boxes, their items grouped by subtree as it goes, and their
// centres (doubled).
struct WideTree::Builder {
  std::span<const Aabb> boxes;
  std::vector<int> items;
  std::vector<Vec3> centres;
};

void WideTree::Build(std::span<const Aabb> boxes) {
  nodes_.clear();
  if (boxes.empty()) return;
  Builder builder{boxes, std::vector<int>(boxes.size()), std::vector<Vec3>(boxes.size())};
  std::iota(builder.items.begin(), builder.items.end(), 0);
  for (size_t i = 0; i < boxes.size(); ++i) {
    assert(!boxes[i].IsUnbounded());
    builder.centres[i] = boxes[i].min + boxes[i].max;
  }
  nodes_.reserve(boxes.size() / 2 + 1);
  BuildNode(builder, 0, static_cast<int>(boxes.size()));
}

// One node over items[first, first + count): up to four items as its own slots, else four
// groups from two levels of median split, each a child node (or an item, when alone).
int WideTree::BuildNode(Builder& builder, int first, int count) {
  std::vector<int>& items = builder.items;
  const std::vector<Vec3>& centres = builder.centres;
  const int index = static_cast<int>(nodes_.size());
  nodes_.emplace_back();
  // Splits items[from, from + n) at its median centre along the axis the centres spread
  // most on.
  auto split = [&](int from, int n) {
    Vec3 lo = centres[items[from]], hi = lo;
    for (int k = from; k < from + n; ++k) {
      lo = lo.cwiseMin(centres[items[k]]);
      hi = hi.cwiseMax(centres[items[k]]);
    }
    int axis = 0;
    (hi - lo).maxCoeff(&axis);
    const auto begin = items.begin() + from;
    std::nth_element(begin, begin + n / 2, begin + n, [&](int a, int b) {
      const double ca = centres[a][axis], cb = centres[b][axis];
      return ca < cb || (ca == cb && a < b);
    });
  };
  int group_first[4], group_count[4], groups = 0;
  if (count <= 4) {
    for (int k = 0; k < count; ++k) {
      group_first[groups] = first + k;
      group_count[groups++] = 1;
    }
  } else {
    split(first, count);
    const int halves[2][2] = {{first, count / 2}, {first + count / 2, count - count / 2}};
    for (const auto& [from, n] : halves) {
      split(from, n);
      group_first[groups] = from;
      group_count[groups++] = n / 2;
      group_first[groups] = from + n / 2;
      group_count[groups++] = n - n / 2;
    }
  }
  for (int k = 0; k < 4; ++k) {
    if (k >= groups) {
      for (int a = 0; a < 3; ++a) {
        nodes_[index].bounds[a][k] = std::numeric_limits<float>::infinity();
        nodes_[index].bounds[3 + a][k] = -std::numeric_limits<float>::infinity();
      }
      nodes_[index].slot[k] = kEmpty;
      continue;
    }
    Aabb bounds = builder.boxes[items[group_first[k]]];
    for (int i = group_first[k] + 1; i < group_first[k] + group_count[k]; ++i) {
      bounds.Enclose(builder.boxes[items[i]]);
    }
    const int32_t slot = group_count[k] == 1 ? -1 - items[group_first[k]]
                                             : BuildNode(builder, group_first[k], group_count[k]);
    for (int a = 0; a < 3; ++a) {
      nodes_[index].bounds[a][k] = RoundFloat(bounds.min[a], false);
      nodes_[index].bounds[3 + a][k] = RoundFloat(bounds.max[a], true);
    }
    nodes_[index].slot[k] = slot;
  }
  return index;
}

WideTree::FloatRay WideTree::Prepare(const Vec3& origin, const Vec3& direction,
                                     const Vec3& grow) {
  FloatRay ray;
  for (int i = 0; i < 3; ++i) {
    const bool negative = direction[i] < 0.0;
    ray.near[i] = negative ? 3 + i : i;
    ray.far[i] = negative ? i : 3 + i;
    const double inv = direction[i] != 0.0 ? 1.0 / direction[i] : kMaxInverse;
    ray.inv[i] = static_cast<float>(std::clamp(inv, -kMaxInverse, kMaxInverse));
    // The near bound is met first: the entry (bound - near origin) * inv is smallest, so
    // widest, with the near origin rounded along the direction; the exit likewise with the
    // far origin rounded against it.
    const double shift = negative ? -grow[i] : grow[i];
    ray.near_origin[i] = RoundFloat(origin[i] + shift, !negative);
    ray.far_origin[i] = RoundFloat(origin[i] - shift, negative);
  }
  return ray;
}

double WideTree::Gap(const Node& node, int k, const Aabb& box) {
  Vec3 gap;
  for (int a = 0; a < 3; ++a) {
    gap[a] = std::max({double{node.bounds[a][k]} - box.max[a],
                       box.min[a] - double{node.bounds[3 + a][k]}, 0.0});
  }
  return gap.norm();
}

bool WideTree::SlotOverlaps(const Node& node, int k, const Aabb& box) {
  for (int a = 0; a < 3; ++a) {
    if (double{node.bounds[a][k]} > box.max[a] || box.min[a] > double{node.bounds[3 + a][k]}) {
      return false;
    }
  }
  return true;
}

}  // namespace ligature
