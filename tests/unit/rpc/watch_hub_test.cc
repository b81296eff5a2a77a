// A watch hub offers its source's newest frame to every stream, starts a new stream on the
// newest frame, ends its streams when the source ends, and may be let go of by its last
// stream on its own thread.

#include "server/rpc/watch_hub.h"

#include <gtest/gtest.h>

#include <vector>

#include "absl/synchronization/notification.h"

namespace ligature {
namespace {

// Frames set by the test; WaitForFrame returns at once when a newer one is there.
class TestSource final : public FrameSource {
 public:
  void Publish(uint64_t tick) {
    auto frame = std::make_shared<Frame>();
    frame->tick = tick;
    absl::MutexLock lock(&mu_);
    latest_ = std::make_shared<const PublishedFrame>(std::move(frame), ++version_, 100.0);
  }
  void End(absl::Status why) {
    absl::MutexLock lock(&mu_);
    ended_ = std::move(why);
  }
  std::shared_ptr<const PublishedFrame> WaitForFrame(uint64_t seen, absl::Duration timeout,
                                                     std::optional<absl::Status>* ended) override {
    absl::MutexLock lock(&mu_);
    auto ready = [this, seen]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
      return ended_.has_value() || version_ != seen;
    };
    mu_.AwaitWithTimeout(absl::Condition(&ready), timeout);
    if (ended_) *ended = *ended_;
    return latest_;
  }

 private:
  absl::Mutex mu_;
  uint64_t version_ ABSL_GUARDED_BY(mu_) = 0;
  std::shared_ptr<const PublishedFrame> latest_ ABSL_GUARDED_BY(mu_);
  std::optional<absl::Status> ended_ ABSL_GUARDED_BY(mu_);
};

// The ticks offered and the status it ended with.
class RecordingSink : public WatchSink {
 public:
  void Offer(std::shared_ptr<const PublishedFrame> frame) override {
    absl::MutexLock lock(&mu_);
    if (ticks_.empty() || ticks_.back() != frame->frame().tick)
      ticks_.push_back(frame->frame().tick);
  }
  void End(const absl::Status& why) override {
    absl::MutexLock lock(&mu_);
    ended_ = why;
  }
  // Waits until `tick` was offered or the stream ended.
  bool WaitFor(uint64_t tick) {
    absl::MutexLock lock(&mu_);
    auto seen = [this, tick]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
      return ended_.has_value() || (!ticks_.empty() && ticks_.back() == tick);
    };
    return mu_.AwaitWithTimeout(absl::Condition(&seen), absl::Seconds(10)) && !ended_;
  }
  std::optional<absl::Status> WaitForEnd() {
    absl::MutexLock lock(&mu_);
    auto done = [this]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return ended_.has_value(); };
    mu_.AwaitWithTimeout(absl::Condition(&done), absl::Seconds(10));
    return ended_;
  }
  std::vector<uint64_t> ticks() {
    absl::MutexLock lock(&mu_);
    return ticks_;
  }

 private:
  absl::Mutex mu_;
  std::vector<uint64_t> ticks_ ABSL_GUARDED_BY(mu_);
  std::optional<absl::Status> ended_ ABSL_GUARDED_BY(mu_);
};

TEST(WatchHubTest, EveryStreamGetsTheNewestFrameAndANewOneStartsOnIt) {
  const std::atomic<bool> stopping{false};
  auto source = std::make_shared<TestSource>();
  auto hub = std::make_shared<WatchHub>(source, &stopping);
  auto first = std::make_shared<RecordingSink>();
  ASSERT_TRUE(hub->Add(first));
  source->Publish(1);
  ASSERT_TRUE(first->WaitFor(1));
  source->Publish(2);
  ASSERT_TRUE(first->WaitFor(2));
  // A stream that comes now is offered tick 2 at once, before anything newer.
  auto second = std::make_shared<RecordingSink>();
  ASSERT_TRUE(hub->Add(second));
  EXPECT_EQ(second->ticks(), std::vector<uint64_t>{2});
  source->Publish(3);
  ASSERT_TRUE(first->WaitFor(3));
  ASSERT_TRUE(second->WaitFor(3));
  EXPECT_EQ(first->ticks(), (std::vector<uint64_t>{1, 2, 3}));
  hub.reset();
  // A hub that goes ends the streams still in it.
  EXPECT_EQ(first->WaitForEnd().value_or(absl::OkStatus()).code(), absl::StatusCode::kUnavailable);
}

TEST(WatchHubTest, AnEndedSourceEndsEveryStreamWithItsStatusAndTakesNoMore) {
  const std::atomic<bool> stopping{false};
  auto source = std::make_shared<TestSource>();
  WatchHub hub(source, &stopping);
  auto a = std::make_shared<RecordingSink>();
  auto b = std::make_shared<RecordingSink>();
  ASSERT_TRUE(hub.Add(a));
  ASSERT_TRUE(hub.Add(b));
  source->End(absl::NotFoundError("worlds/x was deleted"));
  for (RecordingSink* sink : {a.get(), b.get()}) {
    const std::optional<absl::Status> why = sink->WaitForEnd();
    ASSERT_TRUE(why.has_value());
    EXPECT_EQ(why->code(), absl::StatusCode::kNotFound);
    EXPECT_EQ(why->message(), "worlds/x was deleted");
  }
  EXPECT_TRUE(hub.ended());
  EXPECT_FALSE(hub.Add(std::make_shared<RecordingSink>()));
}

// A stream that holds its hub, as a Watch stream does, and blocks its first offer until
// released.
class HoldingSink final : public RecordingSink {
 public:
  HoldingSink(absl::Notification* offered, absl::Notification* release)
      : offered_(offered), release_(release) {}
  void Offer(std::shared_ptr<const PublishedFrame> frame) override {
    if (!offered_->HasBeenNotified()) {
      offered_->Notify();
      release_->WaitForNotification();
    }
    RecordingSink::Offer(std::move(frame));
  }
  std::shared_ptr<WatchHub> hub;

 private:
  absl::Notification* offered_;
  absl::Notification* release_;
};

TEST(WatchHubTest, TheLastStreamMayLetGoOfTheHubOnTheHubsThread) {
  const std::atomic<bool> stopping{false};
  auto source = std::make_shared<TestSource>();
  auto hub = std::make_shared<WatchHub>(source, &stopping);
  absl::Notification offered, release;
  auto sink = std::make_shared<HoldingSink>(&offered, &release);
  sink->hub = hub;
  ASSERT_TRUE(hub->Add(sink));
  source->Publish(1);
  // The hub's thread is inside the offer, holding the stream; the stream leaves the hub and
  // every other owner lets go, so the stream, and with it the hub, goes on the hub's thread
  // once the offer returns. The thread must then run to its end without the hub (a sanitized
  // build reports any read of the freed hub).
  offered.WaitForNotification();
  hub->Remove(sink.get());
  std::weak_ptr<WatchHub> watch = hub;
  hub.reset();
  std::weak_ptr<HoldingSink> held = sink;
  sink.reset();
  release.Notify();
  for (int i = 0; i < 1000 && !watch.expired(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_TRUE(watch.expired());
  EXPECT_TRUE(held.expired());
  // The thread, detached, finds that it should stop at its next look.
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
}

}  // namespace
}  // namespace ligature
