#include "server/haptics/haptic_core.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>

namespace ligature::haptics {
namespace {

// A free sphere tool (no gravity, no obstacles) at the origin, published at time 0.
std::shared_ptr<ToolLocalModel> FreeTool() {
  auto m = std::make_shared<ToolLocalModel>();
  m->tick = 1;
  m->dt = 0.01;
  m->mass = 0.1;
  m->inertia_local = 1e-5 * Mat3::Identity();
  m->shapes = {{Shape::Sphere(0.02), {}}};
  return m;
}

HapticParams Params() {
  auto p = ResolveParams(HapticParams{}, 0.1, 1e-5);
  EXPECT_TRUE(p.ok());
  return *p;
}

DevicePose Pose(uint64_t seq, double t, const Vec3& x) {
  DevicePose p;
  p.sequence = seq;
  p.client_time = t;
  p.position = x;
  return p;
}

TEST(HapticCoreTest, DeviceFeelsTheOppositeOfWhatTheWorldTakes) {
  HapticCore core(Params());
  core.SetModel(FreeTool());
  HapticReply r;
  // The tool starts to follow a device 1 cm away: it is pulled along +x, the device back.
  for (int i = 1; i <= 3; ++i) r = core.OnPose(Pose(i, i * 1e-3, Vec3(0.01, 0, 0)), i * 1e-3);
  EXPECT_FALSE(r.rejected_pose);
  EXPECT_LT(r.force.x(), 0.0);
  EXPECT_TRUE(r.world_force.isApprox(-r.force));
  EXPECT_NEAR(r.world_weight, 1e-3, 1e-12);
  EXPECT_EQ(r.model_tick, 1u);
}

TEST(HapticCoreTest, WatchdogRampsToZeroWithinTimeoutPlusOnePeriod) {
  HapticCore core(Params());
  core.SetModel(FreeTool());
  // 1 kHz poses pulling on the tool, then silence.
  double t = 0.0;
  HapticReply last;
  for (int i = 1; i <= 50; ++i) {
    t = i * 1e-3;
    last = core.OnPose(Pose(i, t, Vec3(0.02 * std::sin(i * 0.1), 0, 0)), t);
  }
  ASSERT_GT(last.force.norm(), 0.0);
  EXPECT_NEAR(core.device_period(), 1e-3, 1e-9);
  const double timeout = core.params().limits.watchdog_timeout;
  // Before the timeout nothing happens.
  EXPECT_FALSE(core.Idle(t + 0.5 * timeout).has_value());
  EXPECT_NEAR(core.NextIdleTime(t + 0.5 * timeout), t + timeout, 1e-12);
  // Past it: flagged replies whose force falls to zero by timeout + one period.
  double norm = last.force.norm();
  double now = t + timeout;
  int replies = 0;
  while (!core.released()) {
    auto r = core.Idle(now);
    ASSERT_TRUE(r.has_value());
    EXPECT_TRUE(r->watchdog);
    EXPECT_LE(r->force.norm(), norm + 1e-15);
    norm = r->force.norm();
    ++replies;
    if (core.released()) break;
    now = core.NextIdleTime(now);
    ASSERT_LE(now, t + timeout + core.device_period() + 1e-12);
  }
  EXPECT_EQ(norm, 0.0);
  EXPECT_GE(replies, 2);
  EXPECT_FALSE(core.Idle(now + 1.0).has_value());
  EXPECT_TRUE(std::isinf(core.NextIdleTime(now + 1.0)));
  // Poses resume: the force comes back through the rate limit, from zero.
  const HapticReply back = core.OnPose(Pose(51, now + 1.0, Vec3(0.05, 0, 0)), now + 1.0);
  EXPECT_FALSE(back.watchdog);
  EXPECT_LE(back.force.norm(), core.params().limits.force_rate_limit * timeout + 1e-12);
}

TEST(HapticCoreTest, NonFiniteAndOutOfRangePosesAreRejectedWithZeroForce) {
  HapticCore core(Params());
  core.SetModel(FreeTool());
  for (int i = 1; i <= 10; ++i) core.OnPose(Pose(i, i * 1e-3, Vec3(0.01, 0, 0)), i * 1e-3);
  const Vec3 before = core.simulator().state().position;
  DevicePose nan = Pose(11, 0.011, Vec3(std::nan(""), 0, 0));
  HapticReply r = core.OnPose(nan, 0.011);
  EXPECT_TRUE(r.rejected_pose);
  EXPECT_FALSE(r.out_of_order);
  EXPECT_EQ(r.force.norm(), 0.0);
  EXPECT_EQ(r.world_weight, 0.0);  // nothing for the world
  EXPECT_TRUE(core.simulator().state().position.isApprox(before));
  DevicePose inf = Pose(12, 0.012, Vec3(0, INFINITY, 0));
  EXPECT_TRUE(core.OnPose(inf, 0.012).rejected_pose);
  DevicePose far = Pose(13, 0.013, Vec3(0, 0, 5000));
  EXPECT_TRUE(core.OnPose(far, 0.013).rejected_pose);
  DevicePose bad_q = Pose(14, 0.014, Vec3::Zero());
  bad_q.orientation = Quat(2, 0, 0, 0);
  EXPECT_TRUE(core.OnPose(bad_q, 0.014).rejected_pose);
  // A good pose afterwards is taken, its force starting again from zero.
  r = core.OnPose(Pose(15, 0.015, Vec3(0.01, 0, 0)), 0.015);
  EXPECT_FALSE(r.rejected_pose);
  EXPECT_GT(r.world_weight, 0.0);
}

TEST(HapticCoreTest, OutOfOrderSequencesAreRejected) {
  HapticCore core(Params());
  core.SetModel(FreeTool());
  EXPECT_FALSE(core.OnPose(Pose(5, 0.001, Vec3::Zero()), 0.001).rejected_pose);
  HapticReply r = core.OnPose(Pose(5, 0.002, Vec3::Zero()), 0.002);
  EXPECT_TRUE(r.rejected_pose);
  EXPECT_TRUE(r.out_of_order);
  r = core.OnPose(Pose(3, 0.003, Vec3::Zero()), 0.003);
  EXPECT_TRUE(r.out_of_order);
  EXPECT_EQ(r.sequence, 3u);
  EXPECT_FALSE(core.OnPose(Pose(6, 0.004, Vec3::Zero()), 0.004).rejected_pose);
}

TEST(HapticCoreTest, NoModelGivesZeroForceFlaggedStale) {
  HapticCore core(Params());
  const HapticReply r = core.OnPose(Pose(1, 0.0, Vec3(1, 0, 0)), 0.0);
  EXPECT_TRUE(r.stale_model);
  EXPECT_EQ(r.force.norm(), 0.0);
  EXPECT_EQ(r.world_weight, 0.0);
}

TEST(HapticCoreTest, OldModelIsFlaggedStale) {
  HapticCore core(Params());
  auto m = FreeTool();
  m->published_at = 0.0;
  core.SetModel(m);
  EXPECT_FALSE(core.OnPose(Pose(1, 0.001, Vec3::Zero()), 0.001).stale_model);
  EXPECT_TRUE(core.OnPose(Pose(2, 0.002, Vec3::Zero()), 0.2).stale_model);
}

TEST(HapticCoreTest, ClampsHoldAgainstADeviceTenTimesTooFar) {
  HapticParams p = Params();
  p.limits.force_limit = 2.0;
  p.limits.force_rate_limit = 500.0;
  HapticCore core(p);
  auto m = FreeTool();
  ContactPlane wall;  // a fixed wall at x = 0.02 facing -x
  wall.point = Vec3(0.02, 0, 0);
  wall.normal = -Vec3::UnitX();
  wall.gap = 0.0;
  m->planes.push_back(wall);
  core.SetModel(m);
  Vec3 last = Vec3::Zero();
  bool clamped = false;
  // The device goes 5 cm into the wall: 20 N wanted, 10x the limit.
  for (int i = 1; i <= 2000; ++i) {
    const double t = i * 1e-3;
    const HapticReply r = core.OnPose(Pose(i, t, Vec3(std::min(0.07, 0.0001 * i), 0, 0)), t);
    EXPECT_LE(r.force.norm(), 2.0 + 1e-12);
    EXPECT_LE((r.force - last).norm(), 500.0 * 1e-3 + 1e-9);
    last = r.force;
    clamped = clamped || r.clamped;
  }
  EXPECT_TRUE(clamped);
  EXPECT_NEAR(last.x(), -2.0, 1e-9);
}

}  // namespace
}  // namespace ligature::haptics
