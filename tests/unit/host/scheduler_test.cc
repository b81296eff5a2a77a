#include "server/host/scheduler.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

namespace ligature {
namespace {

// These tests check behaviour, not speed: every wait is for an event, bounded only by a
// generous deadline so that a broken scheduler fails instead of hanging.
constexpr absl::Duration kPatience = absl::Seconds(30);

std::shared_ptr<WorldHost> MakeHost(const std::string& name, double rate_hz, bool paused) {
  WorldSettings settings;
  settings.rate_hz = rate_hz;
  settings.paused = paused;
  return std::make_shared<WorldHost>(
      std::make_unique<World>("worlds/" + name, settings, WorldLimits{}));
}

// Waits for frames until `host` reaches `tick` or the patience runs out; returns the tick.
uint64_t WaitForTick(const WorldHost& host, uint64_t tick) {
  const absl::Time deadline = absl::Now() + kPatience;
  uint64_t version = 0;
  bool open = true;
  auto frame = host.LatestFrame();
  host.WaitForFrame(~0ull, absl::ZeroDuration(), &version, &open);
  while (frame->tick < tick && open && absl::Now() < deadline) {
    frame = host.WaitForFrame(version, absl::Seconds(1), &version, &open);
  }
  return frame->tick;
}

// A running 100 Hz world advances on its own.
TEST(SchedulerTest, RunningWorldAdvances) {
  Scheduler scheduler(1);
  auto host = MakeHost("running", 100.0, false);
  scheduler.Add(host);
  EXPECT_GE(WaitForTick(*host, 3), 3u);
  EXPECT_GT(host->Info().tick, 0u);
  EXPECT_GT(host->Info().sim_time, 0.0);
  scheduler.Stop();
}

// Two worlds on one worker both advance.
TEST(SchedulerTest, SeveralWorldsShareWorkers) {
  Scheduler scheduler(1);
  auto a = MakeHost("a", 100.0, false);
  auto b = MakeHost("b", 50.0, false);
  scheduler.Add(a);
  scheduler.Add(b);
  EXPECT_GE(WaitForTick(*a, 2), 2u);
  EXPECT_GE(WaitForTick(*b, 2), 2u);
}

// A paused world does not advance, but a queued command is applied promptly.
TEST(SchedulerTest, PausedWorldAppliesQueuedCommand) {
  Scheduler scheduler(2);
  auto host = MakeHost("paused", 100.0, true);
  scheduler.Add(host);
  auto count = host->Call<int>(
      [](World& w) -> absl::StatusOr<int> {
        BodyDesc b;
        b.id = "ball";
        b.rigid()->shape = Shape::Sphere(0.1);
        auto id = w.AddBody(b);
        if (!id.ok()) return id.status();
        return w.body_count();
      },
      kPatience);
  ASSERT_TRUE(count.ok()) << count.status();
  EXPECT_EQ(*count, 1);
  // Call returns once the command ran; the frame is published when the tick ends.
  const absl::Time deadline = absl::Now() + kPatience;
  uint64_t version = ~0ull;
  bool open = true;
  auto frame = host->LatestFrame();
  while (frame->bodies.empty() && open && absl::Now() < deadline) {
    frame = host->WaitForFrame(version, absl::Seconds(1), &version, &open);
  }
  ASSERT_EQ(frame->bodies.size(), 1u);
  EXPECT_EQ(frame->tick, 0u);
  EXPECT_EQ(frame->bodies[0].pose.position, Vec3::Zero());  // applied, but no time passed
  EXPECT_EQ(host->Info().tick, 0u);
}

// Un-pausing a paused world through a command makes it run.
TEST(SchedulerTest, UnpausedWorldStartsRunning) {
  Scheduler scheduler(1);
  auto host = MakeHost("resume", 100.0, true);
  scheduler.Add(host);
  ASSERT_TRUE(host->Enqueue([](World* w) {
    if (w == nullptr) return;
    WorldSettings s = w->settings();
    s.paused = false;
    w->SetSettings(s);
  }));
  EXPECT_GE(WaitForTick(*host, 2), 2u);
}

// A tick that takes far longer than the period (a command sleeping 200 ms on a 100 Hz
// world) makes the world skip ticks instead of catching up, and they are counted.
TEST(SchedulerTest, SlowTickCountsMissedTicks) {
  Scheduler scheduler(1);
  auto host = MakeHost("slow", 100.0, false);
  scheduler.Add(host);
  ASSERT_TRUE(
      host->Enqueue([](World*) { std::this_thread::sleep_for(std::chrono::milliseconds(200)); }));
  const absl::Time deadline = absl::Now() + kPatience;
  while (host->Info().missed_ticks == 0 && absl::Now() < deadline) {
    uint64_t version = 0;
    bool open = true;
    host->WaitForFrame(~0ull, absl::Milliseconds(100), &version, &open);
  }
  EXPECT_GT(host->Info().missed_ticks, 0u);
}

// Closed and removed worlds stop being ticked; Stop joins the workers and is idempotent.
TEST(SchedulerTest, RemoveAndStop) {
  Scheduler scheduler(2);
  auto host = MakeHost("gone", 100.0, false);
  scheduler.Add(host);
  ASSERT_GE(WaitForTick(*host, 1), 1u);
  host->Close();
  scheduler.Remove(host.get());
  const uint64_t tick = host->Info().tick;
  // A command queued now is refused: the host is closed.
  EXPECT_FALSE(host->Enqueue([](World*) {}));
  scheduler.Stop();
  EXPECT_EQ(host->Info().tick, tick);
  scheduler.Stop();
}

}  // namespace
}  // namespace ligature
