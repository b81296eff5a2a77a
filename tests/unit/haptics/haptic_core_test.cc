#include "server/haptics/haptic_core.h"

#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
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

// A model of tick `tick` whose tool sits at `x` (a late model's view of the tool), with a
// fixed floor under it: the tool's state differs from the client's own by a little.
std::shared_ptr<ToolLocalModel> ModelAt(uint64_t tick, const Vec3& x, double now) {
  auto m = FreeTool();
  m->tick = tick;
  m->published_at = now;
  m->tool.position = x;
  ContactPlane floor;
  floor.point = Vec3(x.x(), -0.02, x.z());
  floor.normal = Vec3::UnitY();
  floor.gap = x.y();
  m->planes.push_back(floor);
  return m;
}

// Runs a device held 5 mm into the floor (the tool resting on it) for `poses` poses at
// 1 kHz, a new model every 10 poses whose tool is off the client's by up to 2 mm (what a
// world a network delay away sees). Returns the largest force change between poses after
// the first second; `ticks` counts the models taken.
double LargestForceStep(double blend, int poses, int* ticks, Vec3* last_force) {
  HapticParams p = Params();
  p.limits.force_rate_limit = 1e6;  // not binding: the change itself is measured
  HapticCore core(p);
  if (blend >= 0.0) core.SetRemoteResync(blend);
  double largest = 0.0;
  Vec3 previous = Vec3::Zero();
  *ticks = 0;
  for (int i = 1; i <= poses; ++i) {
    const double t = i * 1e-3;
    if (i % 10 == 1) {
      const double off = 0.002 * std::sin(0.37 * i);
      core.SetModel(ModelAt(++*ticks, Vec3(off, 0.0, -off), t));
    }
    const HapticReply r = core.OnPose(Pose(i, t, Vec3(0, -0.005, 0)), t);
    EXPECT_FALSE(r.stale_model);
    EXPECT_EQ(r.model_tick, static_cast<uint64_t>(*ticks));
    if (i > 1000) largest = std::max(largest, (r.force - previous).norm());
    previous = r.force;
  }
  *last_force = previous;
  return largest;
}

TEST(HapticCoreTest, RemoteResyncDrawsTheToolAShareOfTheWayPerModel) {
  // One model: the tool is taken whole at first; a second model 1 cm off moves the
  // client's tool by the blend's share of the way (then the step's own motion).
  HapticCore core(Params());
  core.SetRemoteResync(0.05);
  auto first = FreeTool();
  core.SetModel(first);
  core.OnPose(Pose(1, 1e-3, Vec3::Zero()), 1e-3);
  EXPECT_TRUE(core.simulator().state().position.isZero(1e-12));
  auto second = FreeTool();
  second->tick = 2;
  second->tool.position = Vec3(0.01, 0, 0);
  ToolSimulator alone(Params().coupling);
  alone.Reset(first);
  alone.Refresh(second, 0.05);
  EXPECT_TRUE(alone.state().position.isApprox(Vec3(0.0005, 0, 0)));
  core.SetModel(second);
  core.OnPose(Pose(2, 2e-3, Vec3::Zero()), 2e-3);
  // The device at the origin pulls the tool back a little within the step.
  EXPECT_GT(core.simulator().state().position.x(), 0.0004);
  EXPECT_LT(core.simulator().state().position.x(), 0.0005);
  // The same model again changes nothing (no second blend).
  const Vec3 before = core.simulator().state().position;
  core.SetModel(second);
  core.OnPose(Pose(3, 3e-3, Vec3::Zero()), 3e-3);
  EXPECT_LT((core.simulator().state().position - before).norm(), 1e-4);
  EXPECT_GT(core.simulator().state().position.x(), 0.0);
}

TEST(HapticCoreTest, RemoteForcesStayContinuousAcrossModelSwaps) {
  // Remote re-sync, with the share the C++ client uses: every model swap moves the tool at
  // most 5 % (docs/haptics.md) of a 2 mm disagreement, so the coupling force
  // (k = 400 N/m) steps by at most 400 * 0.05 * 2.8 mm = 0.06 N.
  EXPECT_EQ(kRemoteResyncBlend, 0.05);
  int ticks = 0;
  Vec3 force;
  const double remote = LargestForceStep(kRemoteResyncBlend, 4000, &ticks, &force);
  EXPECT_EQ(ticks, 400);
  EXPECT_LT(remote, 400 * 0.05 * 0.0029);
  // Resting on the floor, the device feels the press: k * 5 mm upwards.
  EXPECT_NEAR(force.y(), 400 * 0.005, 0.05);
  // Server mode takes each model whole: the same swaps give steps of up to k * 2.8 mm.
  const double server = LargestForceStep(-1.0, 4000, &ticks, &force);
  EXPECT_GT(server, 5.0 * remote);
}

}  // namespace
}  // namespace ligature::haptics
