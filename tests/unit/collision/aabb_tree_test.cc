#include "server/collision/aabb_tree.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <set>
#include <utility>
#include <vector>

namespace ligature {
namespace {

// Random small boxes in a 20 m cube, and one unbounded box (a plane's).
std::vector<Aabb> RandomBoxes(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> at(-10.0, 10.0), size(0.01, 1.0);
  std::vector<Aabb> boxes;
  for (int i = 0; i < n; ++i) {
    const Vec3 c(at(rng), at(rng), at(rng));
    const Vec3 h(size(rng), size(rng), size(rng));
    boxes.push_back({c - h, c + h});
  }
  const double inf = std::numeric_limits<double>::infinity();
  boxes.push_back({Vec3::Constant(-inf), Vec3::Constant(inf)});
  return boxes;
}

// Whether the ray from `o` along `d` (no component 0) enters `box` within [0, max_t]: the
// exact slab test, as the reference.
bool RayMeets(const Vec3& o, const Vec3& d, const Aabb& box, double max_t) {
  double enter = 0.0, leave = max_t;
  for (int i = 0; i < 3; ++i) {
    double t0 = (box.min[i] - o[i]) / d[i], t1 = (box.max[i] - o[i]) / d[i];
    if (t0 > t1) std::swap(t0, t1);
    enter = std::max(enter, t0);
    leave = std::min(leave, t1);
  }
  return enter <= leave;
}

// Every box a ray meets is visited (checked against testing each box), and visits stop
// beyond a hit the visitor reports.
TEST(AabbTreeTest, RayVisitsEveryBoxItMeets) {
  const std::vector<Aabb> boxes = RandomBoxes(500, 1);
  AabbTree tree;
  tree.Build(boxes);
  std::mt19937 rng(2);
  std::uniform_real_distribution<double> at(-12.0, 12.0);
  for (int ray = 0; ray < 200; ++ray) {
    const Vec3 o(at(rng), at(rng), at(rng));
    const Vec3 d = Vec3(at(rng), at(rng), at(rng)).normalized();
    std::set<int> expected, visited;
    for (int i = 0; i < static_cast<int>(boxes.size()); ++i) {
      if (boxes[i].IsUnbounded() || RayMeets(o, d, boxes[i], 30.0)) {
        expected.insert(i);
      }
    }
    double max_t = 30.0;
    tree.Ray(o, d, Vec3::Zero(), &max_t, [&](int i, double*) { visited.insert(i); });
    EXPECT_TRUE(std::includes(visited.begin(), visited.end(), expected.begin(), expected.end()));
  }
}

// A ray along an axis (direction components of 0) still finds the boxes it runs through.
TEST(AabbTreeTest, AxisAlignedRay) {
  const std::vector<Aabb> boxes = {{Vec3(4, -1, -1), Vec3(5, 1, 1)},
                                   {Vec3(4, 2, -1), Vec3(5, 3, 1)}};
  AabbTree tree;
  tree.Build(boxes);
  std::vector<int> visited;
  double max_t = 100.0;
  tree.Ray(Vec3::Zero(), Vec3::UnitX(), Vec3::Zero(), &max_t,
           [&](int i, double*) { visited.push_back(i); });
  EXPECT_EQ(visited, std::vector<int>{0});
  // Grown by 2.5 m on each side, the swept box reaches the second one too.
  visited.clear();
  tree.Ray(Vec3::Zero(), Vec3::UnitX(), Vec3::Constant(2.5), &max_t,
           [&](int i, double*) { visited.push_back(i); });
  std::sort(visited.begin(), visited.end());
  EXPECT_EQ(visited, (std::vector<int>{0, 1}));
}

TEST(AabbTreeTest, OverlappingMatchesEveryBox) {
  const std::vector<Aabb> boxes = RandomBoxes(500, 3);
  AabbTree tree;
  tree.Build(boxes);
  const Aabb query{Vec3(-3, -2, -1), Vec3(2, 3, 4)};
  std::set<int> expected, visited;
  for (int i = 0; i < static_cast<int>(boxes.size()); ++i) {
    if (boxes[i].Overlaps(query)) expected.insert(i);
  }
  tree.Overlapping(query, [&](int i) { visited.insert(i); });
  EXPECT_EQ(visited, expected);
}

// The nearest box by gap, found by shrinking the bound at each visit, is the one testing
// every box finds.
TEST(AabbTreeTest, NearestFindsTheSmallestGap) {
  std::vector<Aabb> boxes = RandomBoxes(500, 4);
  boxes.pop_back();  // the unbounded box is at gap 0 from everything
  AabbTree tree;
  tree.Build(boxes);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> at(-15.0, 15.0);
  for (int q = 0; q < 100; ++q) {
    const Vec3 p(at(rng), at(rng), at(rng));
    const Aabb point{p, p};
    double expected = std::numeric_limits<double>::infinity();
    for (const Aabb& b : boxes) expected = std::min(expected, AabbTree::Gap(b, point));
    double best = std::numeric_limits<double>::infinity();
    tree.Nearest(point, &best, [&](int i, double* bound) {
      *bound = std::min(*bound, AabbTree::Gap(boxes[i], point));
    });
    EXPECT_DOUBLE_EQ(best, expected);
  }
}

}  // namespace
}  // namespace ligature
