#include "server/collision/broadphase.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <vector>

namespace ligature {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Aabb MakeBox(const Vec3& min, const Vec3& max) { return {min, max}; }
Aabb Unbounded() { return {Vec3::Constant(-kInf), Vec3::Constant(kInf)}; }

// Reference answer: every pair tested, unbounded ones against bounded ones only.
std::vector<ProxyPair> BruteForce(const std::vector<Aabb>& boxes) {
  std::vector<ProxyPair> pairs;
  for (uint32_t i = 0; i < boxes.size(); ++i) {
    for (uint32_t j = i + 1; j < boxes.size(); ++j) {
      const bool ui = boxes[i].IsUnbounded();
      const bool uj = boxes[j].IsUnbounded();
      if (ui && uj) continue;
      if (ui || uj || boxes[i].Overlaps(boxes[j])) pairs.emplace_back(i, j);
    }
  }
  return pairs;
}

std::vector<Aabb> RandomBoxes(std::mt19937* rng, int count) {
  std::uniform_real_distribution<double> pos(0.0, 10.0);
  std::uniform_real_distribution<double> size(0.1, 1.5);
  std::vector<Aabb> boxes;
  for (int i = 0; i < count; ++i) {
    const Vec3 min(pos(*rng), pos(*rng), pos(*rng));
    boxes.push_back(MakeBox(min, min + Vec3(size(*rng), size(*rng), size(*rng))));
  }
  return boxes;
}

TEST(SweepAndPruneTest, EmptyInputGivesNoPairsAndClearsOutput) {
  SweepAndPrune sap;
  std::vector<ProxyPair> pairs = {{7, 9}};
  sap.FindPairs({}, &pairs);
  EXPECT_TRUE(pairs.empty());
}

TEST(SweepAndPruneTest, SimpleOverlaps) {
  const std::vector<Aabb> boxes = {
      MakeBox(Vec3(0, 0, 0), Vec3(1, 1, 1)),
      MakeBox(Vec3(0.5, 0.5, 0.5), Vec3(2, 2, 2)),    // overlaps 0
      MakeBox(Vec3(3, 0, 0), Vec3(4, 1, 1)),          // alone in x
      MakeBox(Vec3(0.2, 5, 0), Vec3(0.8, 6, 1)),      // overlaps 0 in x and z, not y
      MakeBox(Vec3(1.5, 1.5, 1.5), Vec3(3.5, 3, 3)),  // overlaps 1 and 2 in x; 1 only
  };
  SweepAndPrune sap;
  std::vector<ProxyPair> pairs;
  sap.FindPairs(boxes, &pairs);
  const std::vector<ProxyPair> expected = {{0, 1}, {1, 4}};
  EXPECT_EQ(pairs, expected);
}

TEST(SweepAndPruneTest, TouchingBoxesOverlapLikeAabbOverlaps) {
  const std::vector<Aabb> boxes = {MakeBox(Vec3(1, 0, 0), Vec3(2, 1, 1)),
                                   MakeBox(Vec3(0, 0, 0), Vec3(1, 1, 1)),
                                   MakeBox(Vec3(0, 1, 1), Vec3(1, 2, 2))};
  SweepAndPrune sap;
  std::vector<ProxyPair> pairs;
  sap.FindPairs(boxes, &pairs);
  const std::vector<ProxyPair> expected = {{0, 1}, {0, 2}, {1, 2}};
  EXPECT_EQ(pairs, expected);
}

TEST(SweepAndPruneTest, UnboundedPairWithEveryBoundedButNotEachOther) {
  const std::vector<Aabb> boxes = {
      MakeBox(Vec3(0, 0, 0), Vec3(1, 1, 1)),       Unbounded(),
      MakeBox(Vec3(5, 5, 5), Vec3(6, 6, 6)),       Unbounded(),
      MakeBox(Vec3(-9, -9, -9), Vec3(-8, -8, -8)),
  };
  SweepAndPrune sap;
  std::vector<ProxyPair> pairs;
  sap.FindPairs(boxes, &pairs);
  const std::vector<ProxyPair> expected = {{0, 1}, {0, 3}, {1, 2}, {1, 4}, {2, 3}, {3, 4}};
  EXPECT_EQ(pairs, expected);
}

TEST(SweepAndPruneTest, OnlyUnboundedGivesNothing) {
  const std::vector<Aabb> boxes = {Unbounded(), Unbounded()};
  SweepAndPrune sap;
  std::vector<ProxyPair> pairs;
  sap.FindPairs(boxes, &pairs);
  EXPECT_TRUE(pairs.empty());
}

// Random scenes moved a little every frame (so the kept order is reused and re-sorted),
// with proxies added and removed, always equal to brute force and sorted.
TEST(SweepAndPruneTest, MatchesBruteForceOverCoherentFrames) {
  std::mt19937 rng(1234);
  std::uniform_real_distribution<double> jitter(-0.3, 0.3);
  SweepAndPrune sap;
  std::vector<ProxyPair> pairs;
  std::vector<Aabb> boxes = RandomBoxes(&rng, 120);
  std::size_t total = 0;
  for (int frame = 0; frame < 40; ++frame) {
    for (Aabb& b : boxes) {
      const Vec3 d(jitter(rng), jitter(rng), jitter(rng));
      b.min += d;
      b.max += d;
    }
    if (frame == 10) boxes.resize(80);  // proxies removed
    if (frame == 20) {                  // proxies added
      std::vector<Aabb> more = RandomBoxes(&rng, 50);
      boxes.insert(boxes.end(), more.begin(), more.end());
    }
    if (frame == 30) boxes[3] = Unbounded();                            // a proxy becomes unbounded
    if (frame == 35) boxes[3] = MakeBox(Vec3(1, 1, 1), Vec3(2, 2, 2));  // and back
    sap.FindPairs(boxes, &pairs);
    const std::vector<ProxyPair> expected = BruteForce(boxes);
    ASSERT_EQ(pairs, expected) << "frame " << frame;
    EXPECT_TRUE(std::is_sorted(pairs.begin(), pairs.end()));
    for (const ProxyPair& p : pairs) EXPECT_LT(p.first, p.second);
    total += pairs.size();
  }
  EXPECT_GT(total, 100u);  // the scenes really had overlaps to find
}

// A fresh instance and a reused one give identical results on shuffled inputs.
TEST(SweepAndPruneTest, ResultDoesNotDependOnHistory) {
  std::mt19937 rng(99);
  std::vector<Aabb> boxes = RandomBoxes(&rng, 60);
  boxes.push_back(Unbounded());
  SweepAndPrune warm;
  std::vector<ProxyPair> warm_pairs;
  std::vector<Aabb> reversed(boxes.rbegin(), boxes.rend());
  warm.FindPairs(reversed, &warm_pairs);
  warm.FindPairs(boxes, &warm_pairs);
  SweepAndPrune cold;
  std::vector<ProxyPair> cold_pairs;
  cold.FindPairs(boxes, &cold_pairs);
  EXPECT_EQ(warm_pairs, cold_pairs);
  EXPECT_EQ(cold_pairs, BruteForce(boxes));
}

// Boxes spread along `long_axis` (20 m) and bunched across it (2 m), with unbounded
// proxies at random indices (first and last included).
std::vector<Aabb> StretchedBoxes(std::mt19937* rng, int count, int long_axis) {
  std::uniform_real_distribution<double> along(0.0, 20.0);
  std::uniform_real_distribution<double> across(0.0, 2.0);
  std::uniform_real_distribution<double> size(0.1, 0.8);
  std::vector<Aabb> boxes;
  for (int i = 0; i < count; ++i) {
    Vec3 min(across(*rng), across(*rng), across(*rng));
    min[long_axis] = along(*rng);
    boxes.push_back(MakeBox(min, min + Vec3(size(*rng), size(*rng), size(*rng))));
  }
  boxes.front() = Unbounded();
  boxes.back() = Unbounded();
  for (int k = 0; k < 3; ++k) {
    boxes[std::uniform_int_distribution<int>(1, count - 2)(*rng)] = Unbounded();
  }
  return boxes;
}

// Whichever axis the scene spreads along (so whichever the sweep picks), the pairs are the
// brute-force ones in (i, j) order.
TEST(SweepAndPruneTest, MatchesBruteForceWhateverAxisTheSceneSpreadsAlong) {
  std::mt19937 rng(31);
  for (int axis = 0; axis < 3; ++axis) {
    for (int trial = 0; trial < 5; ++trial) {
      const std::vector<Aabb> boxes = StretchedBoxes(&rng, 300, axis);
      SweepAndPrune sap;
      std::vector<ProxyPair> pairs;
      sap.FindPairs(boxes, &pairs);
      const std::vector<ProxyPair> expected = BruteForce(boxes);
      EXPECT_GT(expected.size(), 1000u);
      ASSERT_EQ(pairs, expected) << "axis " << axis << " trial " << trial;
    }
  }
}

// One instance over frames whose spread turns from x to z to y (so the sweep changes axis
// and re-sorts its kept order), with the proxy count changing: always brute force.
TEST(SweepAndPruneTest, MatchesBruteForceWhenTheSweepAxisChanges) {
  std::mt19937 rng(8);
  SweepAndPrune sap;
  std::vector<ProxyPair> pairs;
  const int axes[] = {0, 0, 2, 2, 1, 0, 1, 2};
  for (int frame = 0; frame < 8; ++frame) {
    const std::vector<Aabb> boxes = StretchedBoxes(&rng, 200 + 20 * (frame % 3), axes[frame]);
    sap.FindPairs(boxes, &pairs);
    ASSERT_EQ(pairs, BruteForce(boxes)) << "frame " << frame;
  }
}

// Boxes that touch exactly (equal bounds, shared faces) and duplicates of one box: every
// pair found once.
TEST(SweepAndPruneTest, IdenticalAndTouchingBoxesPairOnce) {
  std::vector<Aabb> boxes;
  for (int i = 0; i < 6; ++i) boxes.push_back(MakeBox(Vec3(0, 0, 0), Vec3(1, 1, 1)));
  for (int i = 0; i < 6; ++i) {
    boxes.push_back(MakeBox(Vec3(i + 1.0, 0, 0), Vec3(i + 2.0, 1, 1)));
  }
  boxes.insert(boxes.begin() + 3, Unbounded());
  SweepAndPrune sap;
  std::vector<ProxyPair> pairs;
  sap.FindPairs(boxes, &pairs);
  EXPECT_EQ(pairs, BruteForce(boxes));
}

}  // namespace
}  // namespace ligature
