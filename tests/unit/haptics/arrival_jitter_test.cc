#include "server/haptics/arrival_jitter.h"

#include <gtest/gtest.h>

namespace ligature::haptics {
namespace {

// A steady stream has zero jitter at any rate; the first two arrivals give none.
TEST(ArrivalJitterTest, SteadyStreamHasZeroJitter) {
  ArrivalJitter j;
  EXPECT_FALSE(j.OnArrival(1'000'000).has_value());
  EXPECT_FALSE(j.OnArrival(2'000'000).has_value());
  for (int64_t t = 3'000'000; t < 10'000'000; t += 1'000'000) {
    ASSERT_EQ(j.OnArrival(t), 0);
  }
}

// One pose 300 us late: the gap grows by 300 us, then the next gap shrinks by as much
// (jitter 600 us against the late gap), then the stream is steady again.
TEST(ArrivalJitterTest, LatePoseShowsAsChangeOfGap) {
  ArrivalJitter j;
  j.OnArrival(0);
  j.OnArrival(1'000'000);
  EXPECT_EQ(j.OnArrival(2'300'000), 300'000);
  EXPECT_EQ(j.OnArrival(3'000'000), 600'000);
  EXPECT_EQ(j.OnArrival(4'000'000), 300'000);
  EXPECT_EQ(j.OnArrival(5'000'000), 0);
}

}  // namespace
}  // namespace ligature::haptics
