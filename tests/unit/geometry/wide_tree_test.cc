#include "server/geometry/wide_tree.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <vector>

namespace ligature {
namespace {

// The exact test in double precision: does the ray from `o` along `d` meet `box`, grown by
// `grow`, within [0, max_t]? A slab the ray runs along is met when the origin lies in it.
bool Meets(const Vec3& o, const Vec3& d, const Vec3& grow, const Aabb& box, double max_t) {
  double enter = 0.0, leave = max_t;
  for (int i = 0; i < 3; ++i) {
    const double lo = box.min[i] - grow[i], hi = box.max[i] + grow[i];
    if (d[i] == 0.0) {
      if (o[i] < lo || o[i] > hi) return false;
      continue;
    }
    double t0 = (lo - o[i]) / d[i], t1 = (hi - o[i]) / d[i];
    if (t0 > t1) std::swap(t0, t1);
    enter = std::max(enter, t0);
    leave = std::min(leave, t1);
  }
  return enter <= leave;
}

double Gap(const Aabb& a, const Aabb& b) {
  return (a.min - b.max).cwiseMax(b.min - a.max).cwiseMax(0.0).norm();
}

// Random boxes in a cube of side 2 * extent about `centre`, some of them flat (no thickness
// on one axis, as a triangle in an axis plane has).
std::vector<Aabb> RandomBoxes(int n, const Vec3& centre, double extent, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> at(-extent, extent), size(0.001, 0.05 * extent);
  std::vector<Aabb> boxes;
  for (int i = 0; i < n; ++i) {
    const Vec3 c = centre + Vec3(at(rng), at(rng), at(rng));
    Vec3 h(size(rng), size(rng), size(rng));
    if (i % 5 == 0) h[i % 3] = 0.0;
    boxes.push_back({c - h, c + h});
  }
  return boxes;
}

std::set<int> Visited(const WideTree& tree, const Vec3& o, const Vec3& d, const Vec3& grow,
                      double max_t) {
  std::set<int> visited;
  tree.Ray(o, d, grow, &max_t, [&](int i, double*) { visited.insert(i); });
  return visited;
}

// Every box the exact ray meets is visited, for rays in every direction, rays along the axes
// and swept boxes, near the origin and far from it (where single precision is coarse).
TEST(WideTreeTest, RayVisitsEveryBoxTheExactRayMeets) {
  for (const Vec3& centre : {Vec3(0.0, 0.0, 0.0), Vec3(1e4, -3e3, 7e3)}) {
    const std::vector<Aabb> boxes = RandomBoxes(2000, centre, 10.0, 1);
    WideTree tree;
    tree.Build(boxes);
    std::mt19937 rng(2);
    std::uniform_real_distribution<double> at(-12.0, 12.0), unit(-1.0, 1.0);
    for (int ray = 0; ray < 400; ++ray) {
      const Vec3 o = centre + Vec3(at(rng), at(rng), at(rng));
      Vec3 d(unit(rng), unit(rng), unit(rng));
      if (ray % 4 == 1) d[ray % 3] = 0.0;
      if (ray % 4 == 2) d = Vec3::Unit(ray % 3) * (ray % 8 < 4 ? 1.0 : -1.0);
      const Vec3 grow = ray % 3 == 0 ? Vec3(0.3, 0.1, 0.2) : Vec3::Zero();
      const std::set<int> visited = Visited(tree, o, d.normalized(), grow, 30.0);
      for (int i = 0; i < static_cast<int>(boxes.size()); ++i) {
        if (Meets(o, d.normalized(), grow, boxes[i], 30.0)) {
          EXPECT_TRUE(visited.count(i)) << "box " << i << " ray " << ray;
        }
      }
    }
  }
}

// Rays that only graze a box, along one of its faces or through one of its corners, whose
// coordinates single precision cannot hold, still visit it.
TEST(WideTreeTest, GrazingRaysVisitTheBoxTheyTouch) {
  const Aabb box{Vec3(0.1, 0.2, 0.3), Vec3(1.1, 1.3, 1.7)};
  const std::vector<Aabb> boxes = {box, {Vec3(5.0, 5.0, 5.0), Vec3(6.0, 6.0, 6.0)}};
  WideTree tree;
  tree.Build(boxes);
  // Along the top face, along an edge, and into a corner from afar.
  EXPECT_TRUE(Visited(tree, Vec3(-3.0, 1.3, 1.0), Vec3::UnitX(), Vec3::Zero(), 10.0).count(0));
  EXPECT_TRUE(Visited(tree, Vec3(0.1, 0.2, -5.0), Vec3::UnitZ(), Vec3::Zero(), 10.0).count(0));
  const Vec3 from(-7.3, -4.1, 9.9);
  const Vec3 corner(1.1, 0.2, 0.3);
  const Vec3 d = (corner - from).normalized();
  EXPECT_TRUE(Visited(tree, from, d, Vec3::Zero(), 20.0).count(0));
  // A ray ending just at the face it runs to.
  const Vec3 o(0.6, -2.0, 1.0);
  EXPECT_TRUE(Visited(tree, o, Vec3::UnitY(), Vec3::Zero(), 2.2).count(0));
  // And one that stops short of it, or points away, does not.
  EXPECT_FALSE(Visited(tree, o, Vec3::UnitY(), Vec3::Zero(), 2.1).count(0));
  EXPECT_FALSE(Visited(tree, o, -Vec3::UnitY(), Vec3::Zero(), 50.0).count(0));
}

// Visits come nearest first as the tree sees them, and a visit that shrinks the reach prunes
// every box beyond it: a ray through a row of boxes stops at the first.
TEST(WideTreeTest, AHitPrunesTheBoxesBeyondIt) {
  std::vector<Aabb> boxes;
  for (int i = 0; i < 40; ++i) {
    boxes.push_back({Vec3(2.0 * i, -0.5, -0.5), Vec3(2.0 * i + 1.0, 0.5, 0.5)});
  }
  WideTree tree;
  tree.Build(boxes);
  std::vector<int> visited;
  double max_t = 1000.0;
  tree.Ray(Vec3(-1.0, 0.0, 0.0), Vec3::UnitX(), Vec3::Zero(), &max_t, [&](int i, double* t) {
    visited.push_back(i);
    *t = std::min(*t, 2.0 * i + 1.0);  // the ray enters box i at 2 i + 1
  });
  EXPECT_EQ(visited, std::vector<int>{0});
}

// Overlapping offers every box that overlaps, and Nearest finds the nearest gap exactly.
TEST(WideTreeTest, OverlapAndNearestMatchEveryBox) {
  const std::vector<Aabb> boxes = RandomBoxes(1500, Vec3::Zero(), 10.0, 3);
  WideTree tree;
  tree.Build(boxes);
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> at(-12.0, 12.0), size(0.0, 2.0);
  for (int q = 0; q < 200; ++q) {
    const Vec3 c(at(rng), at(rng), at(rng)), h(size(rng), size(rng), size(rng));
    const Aabb query{c - h, c + h};
    std::set<int> offered;
    tree.Overlapping(query, [&](int i) { offered.insert(i); });
    double nearest = 1e9;
    for (int i = 0; i < static_cast<int>(boxes.size()); ++i) {
      if (boxes[i].Overlaps(query)) EXPECT_TRUE(offered.count(i)) << i;
      nearest = std::min(nearest, Gap(boxes[i], query));
    }
    double best = 1e9;
    tree.Nearest(query, &best, [&](int i, double* b) { *b = std::min(*b, Gap(boxes[i], query)); });
    EXPECT_EQ(best, nearest);
  }
}

TEST(WideTreeTest, EmptyAndSingleBox) {
  WideTree tree;
  tree.Build({});
  EXPECT_TRUE(Visited(tree, Vec3::Zero(), Vec3::UnitX(), Vec3::Zero(), 10.0).empty());
  const std::vector<Aabb> one = {{Vec3(1.0, -1.0, -1.0), Vec3(2.0, 1.0, 1.0)}};
  tree.Build(one);
  EXPECT_EQ(Visited(tree, Vec3::Zero(), Vec3::UnitX(), Vec3::Zero(), 10.0), std::set<int>{0});
  EXPECT_TRUE(Visited(tree, Vec3::Zero(), Vec3::UnitY(), Vec3::Zero(), 10.0).empty());
}

TEST(WideTreeTest, RoundFloatRoundsOutward) {
  for (const double x : {0.1, -0.1, 1e4 + 1e-3, -7.3e-5, 3.0}) {
    EXPECT_LE(double{RoundFloat(x, false)}, x);
    EXPECT_GE(double{RoundFloat(x, true)}, x);
    EXPECT_LE(double{RoundFloat(x, true)} - double{RoundFloat(x, false)},
              2.0 * std::abs(x) * 0x1p-23);
  }
  EXPECT_EQ(RoundFloat(3.0, true), 3.0f);
}

}  // namespace
}  // namespace ligature
