#pragma once
// A bounding-volume tree four boxes wide, in single precision, for sending rays and swept
// boxes through many boxes fast: each node keeps its four children's bounds side by side,
// so that a ray is tested against all four at once in a few vector operations. Bounds are
// rounded outward to single precision and every rounding of the ray's test errs towards
// meeting a box, so the tree never misses a box that the exact ray meets in double
// precision: it is a filter, and callers test what it visits exactly. Built once over a set
// of bounded boxes (median splits along the longest axis of their centres, two levels of
// binary split per node); constant after, so any number of threads may read it.

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "server/geometry/aabb.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ligature {

class WideTree {
 public:
  // One node: per slot the bounds of a child node or of one item, or an empty slot (bounds
  // inverted: lower +inf, upper -inf, so no ray or box ever meets it).
  struct alignas(64) Node {
    float bounds[6][4];  // [0..2]: lower x, y, z of the four slots; [3..5]: upper
    int32_t slot[4];     // >= 0: a child node; otherwise the item -1 - slot, or kEmpty
  };
  static constexpr int32_t kEmpty = std::numeric_limits<int32_t>::min();

  // Builds the tree over `boxes`, which must all be bounded; visits report indices into
  // them.
  void Build(std::span<const Aabb> boxes);

  // Visits each item whose box, grown by `grow` on each side, the ray from `origin` along
  // `direction` may meet within [0, *max_t] (every one it meets, and a few it grazes), the
  // nearer first as far as the tree can tell: `visit(item, max_t)` may shrink *max_t (a
  // hit found), which prunes what is left.
  // `prefetch(item)` is told of each item as it is found, well before its visit, so that
  // the caller can ask the cache for the item's own data.
  template <typename Visit, typename Prefetch = void (*)(int)>
  void Ray(const Vec3& origin, const Vec3& direction, const Vec3& grow, double* max_t,
           Visit&& visit, Prefetch&& prefetch = [](int) {}) const;

  // Visits each item whose box may overlap `box` (every one that does, and a few that touch
  // it within single precision).
  template <typename Visit>
  void Overlapping(const Aabb& box, Visit&& visit) const;

  // Visits items in about increasing gap from `box` while the gap of their bounds is below
  // *best: `visit(item, best)` may shrink *best. The gaps the tree orders by are never
  // larger than the exact ones, so no item nearer than *best is skipped.
  template <typename Visit>
  void Nearest(const Aabb& box, double* best, Visit&& visit) const;

 private:
  // A ray prepared for the four-wide slab test: per axis which bound it meets first, the
  // origin shifted by the growth and rounded so that the test only widens, and the
  // reciprocal direction.
  struct FloatRay {
    int near[3];  // index into Node::bounds of the bound met first on each axis
    int far[3];
    float near_origin[3];
    float far_origin[3];
    float inv[3];
  };
  static FloatRay Prepare(const Vec3& origin, const Vec3& direction, const Vec3& grow);
  // The slab test's entries and exits are scaled by these: each is a difference and two
  // products in single precision (relative error below 3 * 2^-24), so shrinking the entry
  // and growing the exit by 2^-20 keeps every box the exact ray meets.
  static constexpr float kEnterScale = 1.0f - 0x1p-20f;
  static constexpr float kLeaveScale = 1.0f + 0x1p-20f;
  // For each of the node's slots whose bounds the ray enters within [0, max_t]: bit k of
  // the result set and its entry in enter[k]. Entries are rounded down, never up.
  static int Enter4(const Node& node, const FloatRay& ray, float max_t, float enter[4]);
  // The gap between the node's slot k and `box` (0 when they overlap); never above the
  // exact gap between the slot's true bounds and the box.
  static double Gap(const Node& node, int k, const Aabb& box);
  static bool SlotOverlaps(const Node& node, int k, const Aabb& box);
  // Asks the cache for both lines of a node about to be tested.
  static void PrefetchNode(const Node& node) {
    __builtin_prefetch(&node);
    __builtin_prefetch(reinterpret_cast<const char*>(&node) + 64);
  }

  struct Builder;
  int BuildNode(Builder& builder, int first, int count);

  std::vector<Node> nodes_;  // nodes_[0] is the root when there is one
};

// Rounds `x` to single precision towards -inf (down) or +inf (up).
inline float RoundFloat(double x, bool up) {
  const float f = static_cast<float>(x);
  if (up && f < x) return std::nextafter(f, std::numeric_limits<float>::infinity());
  if (!up && f > x) return std::nextafter(f, -std::numeric_limits<float>::infinity());
  return f;
}

inline int WideTree::Enter4(const Node& node, const FloatRay& ray, float max_t, float enter[4]) {
#if defined(__SSE2__)
  __m128 in = _mm_setzero_ps(), out = _mm_set1_ps(max_t);
  for (int i = 0; i < 3; ++i) {
    const __m128 inv = _mm_set1_ps(ray.inv[i]);
    const __m128 near = _mm_load_ps(node.bounds[ray.near[i]]);
    const __m128 far = _mm_load_ps(node.bounds[ray.far[i]]);
    in = _mm_max_ps(in, _mm_mul_ps(_mm_sub_ps(near, _mm_set1_ps(ray.near_origin[i])), inv));
    out = _mm_min_ps(out, _mm_mul_ps(_mm_sub_ps(far, _mm_set1_ps(ray.far_origin[i])), inv));
  }
  in = _mm_mul_ps(in, _mm_set1_ps(kEnterScale));
  out = _mm_mul_ps(out, _mm_set1_ps(kLeaveScale));
  _mm_storeu_ps(enter, in);
  return _mm_movemask_ps(_mm_cmple_ps(in, out));
#else
  int hits = 0;
  for (int k = 0; k < 4; ++k) {
    float in = 0.0f, out = max_t;
    for (int i = 0; i < 3; ++i) {
      in = std::max(in, (node.bounds[ray.near[i]][k] - ray.near_origin[i]) * ray.inv[i]);
      out = std::min(out, (node.bounds[ray.far[i]][k] - ray.far_origin[i]) * ray.inv[i]);
    }
    enter[k] = in * kEnterScale;
    if (enter[k] <= out * kLeaveScale) hits |= 1 << k;
  }
  return hits;
#endif
}

template <typename Visit, typename Prefetch>
void WideTree::Ray(const Vec3& origin, const Vec3& direction, const Vec3& grow, double* max_t,
                   Visit&& visit, Prefetch&& prefetch) const {
  if (nodes_.empty()) return;
  const FloatRay ray = Prepare(origin, direction, grow);
  // Depth first from a stack of pending slots (nodes and items alike) with their entries:
  // each node's hit slots go on it farthest first, so the nearest comes off next. A node
  // adds at most four and the median splits keep the tree below 17 levels for any int's
  // count of items, so 128 entries never fill.
  struct Pending {
    float enter;
    int32_t slot;
  };
  Pending stack[128];
  int size = 0;
  stack[size++] = {0.0f, 0};
  float reach = RoundFloat(*max_t, true);
  while (size > 0) {
    const Pending top = stack[--size];
    if (top.enter > reach) continue;
    if (top.slot < 0) {
      visit(-1 - top.slot, max_t);
      reach = RoundFloat(*max_t, true);
      continue;
    }
    float enter[4];
    int hits = Enter4(nodes_[top.slot], ray, reach, enter);
    // Insert the hit slots in decreasing entry (at most four: an insertion sort in place).
    const int base = size;
    while (hits != 0) {
      const int k = __builtin_ctz(hits);
      hits &= hits - 1;
      const Pending p{enter[k], nodes_[top.slot].slot[k]};
      // A child node, or an item's data, is fetched while its siblings are sorted in.
      if (p.slot >= 0) {
        PrefetchNode(nodes_[p.slot]);
      } else {
        prefetch(-1 - p.slot);
      }
      int at = size++;
      while (at > base && stack[at - 1].enter < p.enter) {
        stack[at] = stack[at - 1];
        --at;
      }
      stack[at] = p;
    }
    assert(size <= 124);
  }
}

template <typename Visit>
void WideTree::Overlapping(const Aabb& box, Visit&& visit) const {
  if (nodes_.empty()) return;
  int32_t stack[128];
  int size = 0;
  stack[size++] = 0;
  while (size > 0) {
    const Node& node = nodes_[stack[--size]];
    for (int k = 0; k < 4; ++k) {
      if (node.slot[k] == kEmpty || !SlotOverlaps(node, k, box)) continue;
      if (node.slot[k] < 0) {
        visit(-1 - node.slot[k]);
      } else {
        stack[size++] = node.slot[k];
      }
    }
    assert(size <= 124);
  }
}

template <typename Visit>
void WideTree::Nearest(const Aabb& box, double* best, Visit&& visit) const {
  if (nodes_.empty()) return;
  // Best first: a heap of slots by their gap to the box; the search ends when the nearest
  // slot left is no nearer than the best answer.
  struct Pending {
    double gap;
    int32_t slot;
    bool operator>(const Pending& o) const { return gap > o.gap; }
  };
  std::vector<Pending> heap = {{0.0, 0}};
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), std::greater<>());
    const Pending top = heap.back();
    heap.pop_back();
    if (top.gap >= *best) break;
    if (top.slot < 0) {
      visit(-1 - top.slot, best);
      continue;
    }
    const Node& node = nodes_[top.slot];
    for (int k = 0; k < 4; ++k) {
      if (node.slot[k] == kEmpty) continue;
      const double gap = Gap(node, k, box);
      if (gap >= *best) continue;
      heap.push_back({gap, node.slot[k]});
      std::push_heap(heap.begin(), heap.end(), std::greater<>());
    }
  }
}

}  // namespace ligature
