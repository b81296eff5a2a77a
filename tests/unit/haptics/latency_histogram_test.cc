#include "server/haptics/latency_histogram.h"

#include <gtest/gtest.h>

namespace ligature::haptics {
namespace {

// Each duration lands in the first bucket whose bound holds it (bounds inclusive);
// beyond the last bound it counts in the total only; negatives count as zero.
TEST(LatencyHistogramTest, RecordsIntoBucketsCountAndSum) {
  LatencyHistogram h;
  h.Record(10'000);      // exactly 10 us: first bucket
  h.Record(10'001);      // just above: second
  h.Record(-5);          // zero: first
  h.Record(1'000'000'000);  // 1 s: no bucket
  EXPECT_EQ(h.bucket(0), 2u);
  EXPECT_EQ(h.bucket(1), 1u);
  uint64_t in_buckets = 0;
  for (size_t i = 0; i < LatencyHistogram::kBoundsUs.size(); ++i) in_buckets += h.bucket(i);
  EXPECT_EQ(in_buckets, 3u);
  EXPECT_EQ(h.count(), 4u);
  EXPECT_NEAR(h.sum_seconds(), 10e-6 + 10.001e-6 + 1.0, 1e-12);
}

}  // namespace
}  // namespace ligature::haptics
