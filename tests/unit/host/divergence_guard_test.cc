#include "server/host/divergence_guard.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "server/host/world_host.h"

namespace ligature {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Two balls falling freely from rest (no ground), at 100 Hz.
World Falling(bool paused = false) {
  WorldSettings settings;
  settings.rate_hz = 100.0;
  settings.paused = paused;
  World w("worlds/guard", settings, WorldLimits{});
  for (const char* id : {"a", "b"}) {
    BodyDesc b;
    b.id = id;
    b.rigid()->shape = Shape::Sphere(0.1);
    b.rigid()->pose.position = Vec3(id[0] == 'a' ? 0.0 : 1.0, 10, 0);
    EXPECT_TRUE(w.AddBody(b).ok());
  }
  return w;
}

BodyUpdate Velocity(const Vec3& v) {
  BodyUpdate u;
  u.linear_velocity = v;
  return u;
}

// A NaN position: the step's own recovery holds a body whose new state is not finite where
// it was, so the NaN stays and only the guard can undo it.
BodyUpdate NaNPosition() {
  BodyUpdate u;
  u.position = Vec3(0, kNaN, 0);
  return u;
}

// A NaN position set between steps: the step diverges and the world goes back to the state
// before it, which steps on exactly as a world that never had the NaN.
TEST(DivergenceGuardTest, NaNPositionRollsBackToTheLastGoodState) {
  World w = Falling();
  World reference = Falling();
  DivergenceGuard guard;
  for (int i = 0; i < 5; ++i) {
    EXPECT_FALSE(guard.Step(&w).has_value());
    reference.Step();
  }
  ASSERT_TRUE(w.UpdateBody("b", NaNPosition()).ok());
  auto event = guard.Step(&w);
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->body, "b");
  EXPECT_EQ(event->reason, "non-finite position");
  EXPECT_EQ(event->diverged_tick, 6u);
  EXPECT_EQ(event->restored_tick, 5u);
  EXPECT_FALSE(event->paused);
  EXPECT_EQ(w.tick(), 5u);
  EXPECT_EQ(w.counters().divergences, 1u);

  // The frame reports the rollback and holds only finite numbers.
  Frame f = w.MakeFrame();
  ASSERT_TRUE(f.divergence.has_value());
  EXPECT_EQ(f.divergence->restored_tick, 5u);
  EXPECT_FALSE(FindNonFinite(f).has_value());

  // The restored state is the reference's, bit for bit, and steps on identically.
  for (int i = 0; i < 10; ++i) {
    EXPECT_FALSE(guard.Step(&w).has_value());
    reference.Step();
  }
  EXPECT_FALSE(w.MakeFrame().divergence.has_value());
  for (int k = 0; k < 2; ++k) {
    EXPECT_EQ(w.bodies().position[k], reference.bodies().position[k]);
    EXPECT_EQ(w.bodies().linear_velocity[k], reference.bodies().linear_velocity[k]);
  }
  // Free fall from rest: v = g t after 15 ticks.
  EXPECT_NEAR(w.bodies().linear_velocity[1].y(), -9.81 * 0.15, 1e-12);
}

// An absurd velocity (finite, beyond the speed bound) is a divergence too.
TEST(DivergenceGuardTest, AbsurdVelocityIsCaught) {
  World w = Falling();
  DivergenceGuard guard;
  EXPECT_FALSE(guard.Step(&w).has_value());
  ASSERT_TRUE(w.UpdateBody("a", Velocity(Vec3(0, 0, 1e9))).ok());
  auto event = guard.Step(&w);
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->body, "a");
  EXPECT_EQ(event->reason, "linear velocity beyond the bound");
  EXPECT_GT(event->value, 1e8);
  EXPECT_EQ(w.tick(), 1u);
  EXPECT_TRUE(w.bodies().linear_velocity[0].allFinite());
  EXPECT_LT(w.bodies().linear_velocity[0].norm(), 1.0);
}

// With a copy every 4 ticks (after ticks 4 and 8), the rollback goes to the newest copy:
// tick 8 when the step to tick 11 diverges.
TEST(DivergenceGuardTest, RollsBackToTheNewestCheckpoint) {
  World w = Falling();
  DivergenceGuardOptions options;
  options.checkpoint_interval = 4;
  DivergenceGuard guard(options);
  for (int i = 0; i < 10; ++i) ASSERT_FALSE(guard.Step(&w).has_value());
  EXPECT_EQ(guard.checkpoint_tick(), 8u);
  ASSERT_TRUE(w.UpdateBody("a", NaNPosition()).ok());
  auto event = guard.Step(&w);
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->restored_tick, 8u);
  EXPECT_EQ(w.tick(), 8u);
}

// An edit accepted between copies survives a later rollback: the step after it copies the
// edited world, so the rollback lands after the edit (tick 5 here, not the copy at 4).
TEST(DivergenceGuardTest, RollbackKeepsAcceptedEdits) {
  World w = Falling();
  DivergenceGuardOptions options;
  options.checkpoint_interval = 4;
  DivergenceGuard guard(options);
  for (int i = 0; i < 5; ++i) ASSERT_FALSE(guard.Step(&w).has_value());
  BodyDesc c;
  c.id = "c";
  c.rigid()->shape = Shape::Sphere(0.1);
  c.rigid()->pose.position = Vec3(2, 10, 0);
  ASSERT_TRUE(w.AddBody(c).ok());
  ASSERT_TRUE(w.UpdateBody("b", Velocity(Vec3(1, 0, 0))).ok());
  ASSERT_FALSE(guard.Step(&w).has_value());
  EXPECT_EQ(guard.checkpoint_tick(), 5u);
  // A NaN is not an edit to keep: the state after it is bad, so the copy stays.
  ASSERT_TRUE(w.UpdateBody("a", NaNPosition()).ok());
  auto event = guard.Step(&w);
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->restored_tick, 5u);
  EXPECT_TRUE(w.HasBody("c"));
  EXPECT_EQ(w.bodies().linear_velocity[1].x(), 1.0);  // b, edited
}

// A state that diverges deterministically (here: free fall passes a 0.5 m/s speed bound at
// tick 6) rolls back each time and, after max_repeats, the world is paused at the good
// state.
TEST(DivergenceGuardTest, RepeatedDivergencePausesTheWorld) {
  World w = Falling();
  DivergenceGuardOptions options;
  options.bounds.max_speed = 0.5;  // m/s: reached after 0.5 / 9.81 s, between ticks 5 and 6
  DivergenceGuard guard(options);
  for (int i = 0; i < 5; ++i) ASSERT_FALSE(guard.Step(&w).has_value());
  for (int repeat = 1; repeat <= 3; ++repeat) {
    auto event = guard.Step(&w);
    ASSERT_TRUE(event.has_value()) << repeat;
    EXPECT_EQ(event->diverged_tick, 6u);
    EXPECT_EQ(event->restored_tick, 5u);
    EXPECT_EQ(event->paused, repeat == 3);
  }
  EXPECT_TRUE(w.settings().paused);
  EXPECT_EQ(w.tick(), 5u);
  EXPECT_EQ(w.counters().divergences, 3u);
}

// A settings change made after the copy (here a pause) survives the rollback.
TEST(DivergenceGuardTest, RollbackKeepsCurrentSettings) {
  World w = Falling();
  DivergenceGuard guard;
  ASSERT_FALSE(guard.Step(&w).has_value());
  WorldSettings s = w.settings();
  s.gravity = Vec3(0, -1, 0);
  w.SetSettings(s);
  ASSERT_TRUE(w.UpdateBody("a", NaNPosition()).ok());
  ASSERT_TRUE(guard.Step(&w).has_value());
  EXPECT_EQ(w.settings().gravity, Vec3(0, -1, 0));
}

// Through a host: the published frames stay finite, the rollback frame reports the event,
// and the summary counts it.
TEST(DivergenceGuardTest, HostPublishesOnlyFiniteFrames) {
  WorldHost host(std::make_unique<World>(Falling()));
  host.RunTick();
  host.RunTick();
  ASSERT_TRUE(host.Enqueue([](World* w) {
    ASSERT_TRUE(w->UpdateBody("a", NaNPosition()).ok());
  }));
  host.RunTick();
  auto frame = host.LatestFrame();
  ASSERT_TRUE(frame->divergence.has_value());
  EXPECT_EQ(frame->divergence->body, "a");
  EXPECT_EQ(frame->tick, 2u);
  EXPECT_FALSE(FindNonFinite(*frame).has_value());
  EXPECT_EQ(host.Info().counters.divergences, 1u);
  host.RunTick();
  EXPECT_EQ(host.LatestFrame()->tick, 3u);
  EXPECT_FALSE(host.LatestFrame()->divergence.has_value());
}

// With the guard off, a non-finite frame is withheld: the previous frame stays out.
TEST(DivergenceGuardTest, HostWithholdsNonFiniteFramesWithTheGuardOff) {
  DivergenceGuardOptions off;
  off.checkpoint_interval = 0;
  WorldHost host(std::make_unique<World>(Falling()), off);
  host.RunTick();
  ASSERT_TRUE(host.Enqueue([](World* w) {
    ASSERT_TRUE(w->UpdateBody("a", NaNPosition()).ok());
  }));
  host.RunTick();
  EXPECT_EQ(host.LatestFrame()->tick, 1u);
  EXPECT_FALSE(FindNonFinite(*host.LatestFrame()).has_value());
  EXPECT_EQ(host.Info().counters.withheld_frames, 1u);
}

}  // namespace
}  // namespace ligature
