#include "server/rpc/edit_rate_limiter.h"

#include <gtest/gtest.h>

namespace ligature {
namespace {

using Clock = EditRateLimiter::Clock;
using std::chrono::milliseconds;

// A client gets a burst of one second's worth, then the rate; the refusal names the limit
// and takes nothing.
TEST(EditRateLimiterTest, BurstThenRate) {
  EditRateLimiter limiter(10.0);
  const Clock::time_point t0 = Clock::time_point() + std::chrono::hours(1);
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(limiter.Take("a", 1, t0).ok()) << i;
  absl::Status refused = limiter.Take("a", 1, t0);
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(refused.message().find("edits per second per client"), std::string::npos);
  EXPECT_NE(refused.message().find("--max_edits_per_second"), std::string::npos);
  // 100 ms later one token is back (10 per second), and only one.
  EXPECT_TRUE(limiter.Take("a", 1, t0 + milliseconds(100)).ok());
  EXPECT_FALSE(limiter.Take("a", 1, t0 + milliseconds(100)).ok());
  // Another client has its own bucket.
  EXPECT_TRUE(limiter.Take("b", 10, t0).ok());
}

// A batch takes all its edits or none; a batch larger than the burst never passes.
TEST(EditRateLimiterTest, BatchesAreAllOrNothing) {
  EditRateLimiter limiter(5.0);
  const Clock::time_point t0 = Clock::time_point() + std::chrono::hours(1);
  EXPECT_TRUE(limiter.Take("a", 3, t0).ok());
  EXPECT_FALSE(limiter.Take("a", 3, t0).ok());
  EXPECT_TRUE(limiter.Take("a", 2, t0).ok());
  EXPECT_FALSE(limiter.Take("a", 6, t0 + std::chrono::seconds(10)).ok());
  EXPECT_TRUE(limiter.Take("a", 5, t0 + std::chrono::seconds(10)).ok());
}

// Rate 0 is no limit.
TEST(EditRateLimiterTest, ZeroRateIsUnlimited) {
  EditRateLimiter limiter(0.0);
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(limiter.Take("a", 100).ok());
}

TEST(ClientOfPeerTest, DropsThePort) {
  EXPECT_EQ(ClientOfPeer("ipv4:10.0.0.2:5123"), "10.0.0.2");
  EXPECT_EQ(ClientOfPeer("ipv6:[::1]:5123"), "[::1]");
  EXPECT_EQ(ClientOfPeer("unix:/tmp/sock"), "unix:/tmp/sock");
}

}  // namespace
}  // namespace ligature
