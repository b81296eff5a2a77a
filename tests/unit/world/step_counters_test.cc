#include "server/world/step_counters.h"

#include <gtest/gtest.h>

#include <numeric>

#include "server/world/world.h"

namespace ligature {
namespace {

StepStats Stats(double step_ms, int recovered = 0, bool budget_exhausted = false) {
  StepStats s;
  s.step_ms = step_ms;
  s.recovered_bodies = recovered;
  s.budget_exhausted = budget_exhausted;
  return s;
}

// Each step lands in the first bucket whose bound is at or above its time; a bound itself
// belongs to its bucket; anything above the last bound goes to the open bucket.
TEST(StepCountersTest, BucketsBySmallestBoundAtOrAbove) {
  StepCounters c;
  c.Record(Stats(0.0));     // bucket 0 (<= 0.01 ms)
  c.Record(Stats(0.01));    // bucket 0: on the bound
  c.Record(Stats(0.011));   // bucket 1 (<= 0.025)
  c.Record(Stats(3.0));     // (2.5, 5]
  c.Record(Stats(1000.0));  // open bucket
  EXPECT_EQ(c.steps, 5u);
  EXPECT_DOUBLE_EQ(c.step_ms_sum, 0.0 + 0.01 + 0.011 + 3.0 + 1000.0);
  EXPECT_EQ(c.bucket_steps[0], 2u);
  EXPECT_EQ(c.bucket_steps[1], 1u);
  const size_t five_ms = 8;  // index of the 5 ms bound
  ASSERT_DOUBLE_EQ(StepCounters::kBucketBoundsMs[five_ms], 5.0);
  EXPECT_EQ(c.bucket_steps[five_ms], 1u);
  EXPECT_EQ(c.bucket_steps.back(), 1u);
  EXPECT_EQ(std::accumulate(c.bucket_steps.begin(), c.bucket_steps.end(), uint64_t{0}), 5u);
}

TEST(StepCountersTest, SumsRecoveredBodiesAndBudgetStops) {
  StepCounters c;
  c.Record(Stats(0.1, 2, true));
  c.Record(Stats(0.1, 0, false));
  c.Record(Stats(0.1, 3, true));
  EXPECT_EQ(c.recovered_bodies, 5u);
  EXPECT_EQ(c.budget_exhausted_steps, 2u);
}

// The World records every step it takes.
TEST(StepCountersTest, WorldCountsItsSteps) {
  WorldSettings settings;
  settings.rate_hz = 100.0;
  World world("worlds/w", settings, WorldLimits{});
  for (int i = 0; i < 7; ++i) world.Step();
  const StepCounters& c = world.counters();
  EXPECT_EQ(c.steps, 7u);
  EXPECT_EQ(std::accumulate(c.bucket_steps.begin(), c.bucket_steps.end(), uint64_t{0}), 7u);
  EXPECT_GE(c.step_ms_sum, 0.0);
  EXPECT_EQ(c.recovered_bodies, 0u);
}

}  // namespace
}  // namespace ligature
