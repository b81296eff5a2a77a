#include "server/collision/moving_pairs.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <vector>

namespace ligature {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Aabb Unbounded() { return {Vec3::Constant(-kInf), Vec3::Constant(kInf)}; }

// Reference answer: every pair with a moving box tested, unbounded ones against bounded
// ones only.
std::vector<ProxyPair> BruteForce(const std::vector<Aabb>& boxes,
                                  const std::vector<uint8_t>& moving) {
  std::vector<ProxyPair> pairs;
  for (uint32_t i = 0; i < boxes.size(); ++i) {
    for (uint32_t j = i + 1; j < boxes.size(); ++j) {
      if (!moving[i] && !moving[j]) continue;
      const bool ui = boxes[i].IsUnbounded();
      const bool uj = boxes[j].IsUnbounded();
      if (ui && uj) continue;
      if (ui || uj || boxes[i].Overlaps(boxes[j])) pairs.emplace_back(i, j);
    }
  }
  return pairs;
}

// Over frames in which boxes move, stop, start moving and the resting ones are now and then
// edited (so the kept tree must be rebuilt), with a plane resting and a plane moving, the
// pairs are exactly those with a moving box, sorted.
TEST(MovingPairsTest, MatchesBruteForceAsBoxesStopStartAndChange) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> pos(0.0, 10.0);
  std::uniform_real_distribution<double> size(0.1, 1.5);
  std::uniform_real_distribution<double> step(-0.2, 0.2);
  std::bernoulli_distribution flip(0.05);
  const int n = 300;
  std::vector<Aabb> boxes(n);
  std::vector<uint8_t> moving(n);
  for (int i = 0; i < n; ++i) {
    const Vec3 min(pos(rng), pos(rng), pos(rng));
    boxes[i] = {min, min + Vec3(size(rng), size(rng), size(rng))};
    moving[i] = i % 10 == 0;
  }
  boxes[1] = Unbounded();  // a resting plane
  MovingPairs finder;
  std::vector<ProxyPair> pairs;
  for (int frame = 0; frame < 40; ++frame) {
    if (frame == 20) {
      boxes[2] = Unbounded();  // a moving plane from here on
      moving[2] = 1;
    }
    for (int i = 3; i < n; ++i) {
      if (flip(rng)) moving[i] = !moving[i];
      const bool edited = frame % 7 == 3 && i % 50 == 7;
      if (moving[i] || edited) {
        const Vec3 d(step(rng), step(rng), step(rng));
        boxes[i].min += d;
        boxes[i].max += d;
      }
    }
    finder.FindPairs(boxes, moving, &pairs);
    ASSERT_EQ(pairs, BruteForce(boxes, moving)) << "frame " << frame;
  }
}

TEST(MovingPairsTest, NothingMovesNoPairs) {
  MovingPairs finder;
  std::vector<ProxyPair> pairs = {{0, 1}};
  const std::vector<Aabb> boxes = {{Vec3::Zero(), Vec3::Ones()}, {Vec3::Zero(), Vec3::Ones()}};
  finder.FindPairs(boxes, std::vector<uint8_t>{0, 0}, &pairs);
  EXPECT_TRUE(pairs.empty());
  finder.FindPairs(boxes, std::vector<uint8_t>{0, 1}, &pairs);
  EXPECT_EQ(pairs, (std::vector<ProxyPair>{{0, 1}}));
}

}  // namespace
}  // namespace ligature
