#include "server/haptics/datagram/replay_window.h"

#include <gtest/gtest.h>

namespace ligature::haptics {
namespace {

using Verdict = ReplayWindow::Verdict;

TEST(ReplayWindowTest, NewerIsNewestSeenIsReplayedMissedIsStale) {
  ReplayWindow w;
  EXPECT_EQ(w.Check(1), Verdict::kNewest);
  w.Record(1);
  EXPECT_EQ(w.Check(1), Verdict::kReplayed);
  EXPECT_EQ(w.Check(5), Verdict::kNewest);
  w.Record(5);
  EXPECT_EQ(w.newest(), 5u);
  // 2-4 never arrived: late now, never applied.
  for (uint64_t s = 2; s <= 4; ++s) EXPECT_EQ(w.Check(s), Verdict::kStale) << s;
  // A late one recorded (it was authentic) is a replay when it comes again.
  w.Record(3);
  EXPECT_EQ(w.Check(3), Verdict::kReplayed);
  EXPECT_EQ(w.Check(5), Verdict::kReplayed);
  EXPECT_EQ(w.Check(1), Verdict::kReplayed);
  EXPECT_EQ(w.newest(), 5u);  // recording a late one does not move the window
}

// The window remembers the 64 numbers before the newest; older ones cannot be told apart
// and are stale.
TEST(ReplayWindowTest, SlidesBySixtyFour) {
  ReplayWindow w;
  for (uint64_t s = 1; s <= 100; ++s) w.Record(s);
  EXPECT_EQ(w.Check(100 - 63), Verdict::kReplayed);
  EXPECT_EQ(w.Check(100 - 64), Verdict::kStale);
  // A jump past the window forgets everything before it.
  w.Record(1000);
  EXPECT_EQ(w.Check(999), Verdict::kStale);
  EXPECT_EQ(w.Check(100), Verdict::kStale);
  EXPECT_EQ(w.Check(1000), Verdict::kReplayed);
  // A jump within it keeps what it can.
  w.Record(1010);
  EXPECT_EQ(w.Check(1000), Verdict::kReplayed);
  EXPECT_EQ(w.Check(1005), Verdict::kStale);
}

}  // namespace
}  // namespace ligature::haptics
