#include "server/host/world_host.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"

namespace ligature {
namespace {

std::unique_ptr<World> MakeWorld(bool paused) {
  WorldSettings settings;
  settings.rate_hz = 100.0;
  settings.paused = paused;
  return std::make_unique<World>("worlds/host", settings, WorldLimits{});
}

BodyDesc Ball(const std::string& id) {
  BodyDesc b;
  b.id = id;
  b.rigid()->shape = Shape::Sphere(0.1);
  b.rigid()->pose.position = Vec3(0, 10, 0);
  return b;
}

// Spins (without timing assumptions) until the host has a queued command.
void WaitUntilQueued(const WorldHost& host) {
  while (!host.HasPendingCommands()) std::this_thread::yield();
}

// A new host publishes the world's initial frame.
TEST(WorldHostTest, PublishesInitialFrame) {
  WorldHost host(MakeWorld(false));
  EXPECT_EQ(host.name(), "worlds/host");
  auto frame = host.LatestFrame();
  ASSERT_NE(frame, nullptr);
  EXPECT_EQ(frame->tick, 0u);
  EXPECT_EQ(frame->world, "worlds/host");
  EXPECT_EQ(host.Info().tick, 0u);
  EXPECT_EQ(host.rate_hz(), 100.0);
  EXPECT_FALSE(host.paused());
  EXPECT_FALSE(host.closed());
}

// Commands wait for RunTick, run in arrival order before the step (they see the world at
// the old tick), and the step then advances the tick.
TEST(WorldHostTest, CommandsRunInOrderAtRunTick) {
  WorldHost host(MakeWorld(false));
  std::vector<std::string> log;
  for (const char* id : {"a", "b", "c"}) {
    ASSERT_TRUE(host.Enqueue([&log, id](World* w) {
      ASSERT_NE(w, nullptr);
      log.push_back(std::string(id) + "@" + std::to_string(w->tick()));
      ASSERT_TRUE(w->AddBody(Ball(id)).ok());
    }));
  }
  EXPECT_TRUE(log.empty());
  EXPECT_TRUE(host.HasPendingCommands());
  host.RunTick();
  EXPECT_EQ(log, (std::vector<std::string>{"a@0", "b@0", "c@0"}));
  EXPECT_FALSE(host.HasPendingCommands());
  auto frame = host.LatestFrame();
  EXPECT_EQ(frame->tick, 1u);
  ASSERT_EQ(frame->bodies.size(), 3u);
  EXPECT_EQ(frame->bodies[0].id, "a");
  EXPECT_EQ(frame->bodies[2].id, "c");
  const WorldInfo info = host.Info();
  EXPECT_EQ(info.tick, 1u);
  EXPECT_EQ(info.body_count, 3);
  EXPECT_NEAR(info.sim_time, 0.01, 1e-15);
  // Without commands the tick still advances.
  host.RunTick();
  EXPECT_EQ(host.LatestFrame()->tick, 2u);
}

// A paused host applies commands (and publishes them) without advancing time; with nothing
// queued it publishes nothing.
TEST(WorldHostTest, PausedHostAppliesCommandsWithoutAdvancing) {
  WorldHost host(MakeWorld(true));
  EXPECT_TRUE(host.paused());
  ASSERT_TRUE(host.Enqueue([](World* w) { ASSERT_TRUE(w->AddBody(Ball("a")).ok()); }));
  uint64_t version = 0;
  bool open = false;
  host.WaitForFrame(~0ull, absl::ZeroDuration(), &version, &open);
  host.RunTick();
  uint64_t after = 0;
  auto frame = host.WaitForFrame(version, absl::ZeroDuration(), &after, &open);
  EXPECT_NE(after, version);
  EXPECT_EQ(frame->tick, 0u);
  ASSERT_EQ(frame->bodies.size(), 1u);
  EXPECT_EQ(frame->bodies[0].pose.position, Vec3(0, 10, 0));  // did not fall
  EXPECT_EQ(host.Info().body_count, 1);

  host.RunTick();  // nothing queued, paused: no new frame
  uint64_t idle = 0;
  host.WaitForFrame(after, absl::ZeroDuration(), &idle, &open);
  EXPECT_EQ(idle, after);
  EXPECT_EQ(host.LatestFrame()->tick, 0u);
}

// Un-pausing through a command lets the same tick step.
TEST(WorldHostTest, SettingsCommandTakesEffectSameTick) {
  WorldHost host(MakeWorld(true));
  ASSERT_TRUE(host.Enqueue([](World* w) {
    WorldSettings s = w->settings();
    s.paused = false;
    w->SetSettings(s);
  }));
  host.RunTick();
  EXPECT_EQ(host.LatestFrame()->tick, 1u);
  EXPECT_FALSE(host.paused());
}

// Call returns the command's result once a tick has run it.
TEST(WorldHostTest, CallReturnsResultAfterRunTick) {
  WorldHost host(MakeWorld(true));
  absl::StatusOr<int> result;
  std::thread caller([&] {
    result = host.Call<int>(
        [](World& w) -> absl::StatusOr<int> {
          auto id = w.AddBody(Ball(""));
          if (!id.ok()) return id.status();
          return w.body_count();
        },
        absl::Seconds(60));
  });
  WaitUntilQueued(host);
  host.RunTick();
  caller.join();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(*result, 1);
}

// A call's caller hears back only once the tick that ran the call has published: not while
// a command queued after it still runs, and then its next reads (Info, the frame) hold the
// three ticks and the body the call made.
TEST(WorldHostTest, ACallAnswersOnceItsTickHasPublished) {
  WorldHost host(MakeWorld(true));
  absl::StatusOr<uint64_t> stepped;
  absl::Notification heard_back;
  WorldInfo info;
  uint64_t frame_tick = 0;
  std::thread caller([&] {
    stepped = host.Call<uint64_t>(
        [](World& w) -> absl::StatusOr<uint64_t> {
          if (auto id = w.AddBody(Ball("")); !id.ok()) return id.status();
          for (int i = 0; i < 3; ++i) w.Step();
          return w.tick();
        },
        absl::Seconds(60));
    info = host.Info();
    frame_tick = host.LatestFrame()->tick;
    heard_back.Notify();
  });
  WaitUntilQueued(host);
  // Runs after the call in the same tick: gives a caller that heard back early a moment to
  // say so.
  bool early = false;
  ASSERT_TRUE(host.Enqueue(
      [&](World*) { early = heard_back.WaitForNotificationWithTimeout(absl::Milliseconds(100)); }));
  host.RunTick();
  caller.join();
  EXPECT_FALSE(early);
  ASSERT_TRUE(stepped.ok()) << stepped.status();
  EXPECT_EQ(*stepped, 3u);
  EXPECT_EQ(info.tick, 3u);
  EXPECT_DOUBLE_EQ(info.sim_time, 3 * 0.01);
  EXPECT_EQ(info.body_count, 1u);
  EXPECT_EQ(frame_tick, 3u);
}

// A command's error comes back through Call.
TEST(WorldHostTest, CallPropagatesErrors) {
  WorldHost host(MakeWorld(true));
  absl::StatusOr<int> result;
  std::thread caller([&] {
    result = host.Call<int>([](World& w) -> absl::StatusOr<int> { return w.RemoveBody("nobody"); },
                            absl::Seconds(60));
  });
  WaitUntilQueued(host);
  host.RunTick();
  caller.join();
  EXPECT_EQ(result.status().code(), absl::StatusCode::kNotFound);
}

// A command that is never run times out with DEADLINE_EXCEEDED.
TEST(WorldHostTest, CallTimesOutWhenNotRun) {
  WorldHost host(MakeWorld(true));
  auto result =
      host.Call<int>([](World&) -> absl::StatusOr<int> { return 1; }, absl::Milliseconds(1));
  EXPECT_EQ(result.status().code(), absl::StatusCode::kDeadlineExceeded);
}

// Close runs the pending commands with nullptr, refuses new ones, and Call then returns
// NOT_FOUND at once.
TEST(WorldHostTest, CloseRunsPendingCommandsWithNull) {
  WorldHost host(MakeWorld(false));
  std::vector<std::string> log;
  for (const char* id : {"a", "b"}) {
    ASSERT_TRUE(host.Enqueue([&log, id](World* w) {
      log.push_back(std::string(id) + (w == nullptr ? ":null" : ":world"));
    }));
  }
  host.Close();
  EXPECT_TRUE(host.closed());
  EXPECT_EQ(log, (std::vector<std::string>{"a:null", "b:null"}));
  EXPECT_FALSE(host.Enqueue([&log](World*) { log.push_back("late"); }));
  auto after = host.Call<int>([](World&) -> absl::StatusOr<int> { return 1; }, absl::Seconds(60));
  EXPECT_EQ(after.status().code(), absl::StatusCode::kNotFound);
  host.RunTick();  // closed: runs nothing, steps nothing
  EXPECT_EQ(log.size(), 2u);
  EXPECT_EQ(host.LatestFrame()->tick, 0u);
  host.Close();  // idempotent
}

// A Call waiting when the host closes returns NOT_FOUND without running its function.
TEST(WorldHostTest, PendingCallReturnsNotFoundOnClose) {
  WorldHost host(MakeWorld(true));
  std::atomic<bool> ran = false;
  absl::StatusOr<int> result;
  std::thread caller([&] {
    result = host.Call<int>(
        [&ran](World&) -> absl::StatusOr<int> {
          ran = true;
          return 7;
        },
        absl::Seconds(60));
  });
  WaitUntilQueued(host);
  host.Close();
  caller.join();
  EXPECT_EQ(result.status().code(), absl::StatusCode::kNotFound);
  EXPECT_FALSE(ran.load());
}

// WaitForFrame returns as soon as a newer frame is published, with that frame.
TEST(WorldHostTest, WaitForFrameWakesOnPublish) {
  WorldHost host(MakeWorld(false));
  uint64_t seen = 0;
  bool open = false;
  host.WaitForFrame(~0ull, absl::ZeroDuration(), &seen, &open);
  ASSERT_TRUE(open);
  uint64_t version = seen;
  std::shared_ptr<const Frame> frame;
  std::thread waiter([&] {
    bool still_open = false;
    frame = host.WaitForFrame(seen, absl::Seconds(60), &version, &still_open);
    open = still_open;
  });
  host.RunTick();
  waiter.join();
  EXPECT_NE(version, seen);
  EXPECT_TRUE(open);
  ASSERT_NE(frame, nullptr);
  EXPECT_EQ(frame->tick, 1u);
}

// WaitForFrame returns when the host closes, reporting it closed.
TEST(WorldHostTest, WaitForFrameWakesOnClose) {
  WorldHost host(MakeWorld(true));
  uint64_t seen = 0;
  bool open = false;
  host.WaitForFrame(~0ull, absl::ZeroDuration(), &seen, &open);
  bool open_after = true;
  std::thread waiter([&] {
    uint64_t version = 0;
    host.WaitForFrame(seen, absl::Seconds(60), &version, &open_after);
  });
  host.Close();
  waiter.join();
  EXPECT_FALSE(open_after);
}

// Missed ticks accumulate and survive later publications; Enqueue wakes the scheduler.
TEST(WorldHostTest, MissedTicksAndWakeCallback) {
  WorldHost host(MakeWorld(false));
  int wakes = 0;
  host.SetWakeCallback([&wakes] { ++wakes; });
  host.AddMissedTicks(3);
  host.AddMissedTicks(4);
  EXPECT_EQ(host.Info().missed_ticks, 7u);
  ASSERT_TRUE(host.Enqueue([](World*) {}));
  EXPECT_EQ(wakes, 1);
  host.RunTick();
  EXPECT_EQ(host.Info().missed_ticks, 7u);
  EXPECT_EQ(host.Info().tick, 1u);
}

}  // namespace
}  // namespace ligature
