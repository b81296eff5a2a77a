#include "server/haptics/force_filter.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ligature::haptics {
namespace {

SafetyLimits Limits() {
  SafetyLimits l;
  l.force_limit = 5.0;
  l.torque_limit = 0.5;
  l.force_rate_limit = 1000.0;
  l.torque_rate_limit = 100.0;
  l.watchdog_timeout = 0.01;
  return l;
}

TEST(ForceFilterTest, TenTimesTheLimitNeverPassesAndRateHolds) {
  ForceFilter filter(Limits());
  Vec3 last = Vec3::Zero();
  bool clamped = false, limited = false;
  // A demand swinging between +-10x the limit in changing directions, at 1 kHz.
  for (int i = 0; i < 3000; ++i) {
    const double t = i * 1e-3;
    const Vec3 want = 50.0 * Vec3(std::sin(7 * t), std::cos(13 * t), (i / 100) % 2 ? 1 : -1);
    const FilteredForce out = filter.Apply(want, 5.0 * want, 1e-3);
    EXPECT_LE(out.force.norm(), 5.0 + 1e-12);
    EXPECT_LE(out.torque.norm(), 0.5 + 1e-12);
    EXPECT_LE((out.force - last).norm(), 1000.0 * 1e-3 + 1e-9);
    last = out.force;
    clamped = clamped || out.clamped;
    limited = limited || out.rate_limited;
  }
  EXPECT_TRUE(clamped);
  EXPECT_TRUE(limited);
}

TEST(ForceFilterTest, SmallSlowForcesPassUnchanged) {
  ForceFilter filter(Limits());
  const FilteredForce a = filter.Apply(Vec3(0.5, 0, 0), Vec3::Zero(), 1e-3);
  EXPECT_DOUBLE_EQ(a.force.x(), 0.5);
  EXPECT_FALSE(a.clamped);
  EXPECT_FALSE(a.rate_limited);
  const FilteredForce b = filter.Apply(Vec3(1.0, 0, 0), Vec3::Zero(), 1e-3);
  EXPECT_DOUBLE_EQ(b.force.x(), 1.0);
}

TEST(ForceFilterTest, RateCutsAStepToRateTimesDt) {
  ForceFilter filter(Limits());
  const FilteredForce out = filter.Apply(Vec3(0, 4, 0), Vec3::Zero(), 2e-3);
  EXPECT_TRUE(out.rate_limited);
  EXPECT_NEAR(out.force.y(), 2.0, 1e-12);
  // A long silence does not license a jump: dt is capped at the watchdog timeout.
  ForceFilter other(Limits());
  EXPECT_NEAR(other.Apply(Vec3(0, 40, 0), Vec3::Zero(), 10.0).force.norm(), 5.0, 1e-12);
  ForceFilter third(Limits());
  EXPECT_NEAR(third.Apply(Vec3(0, 4, 0), Vec3::Zero(), 10.0).force.norm(), 4.0, 1e-12);
}

TEST(ForceFilterTest, NonFiniteDemandGivesNoForce) {
  ForceFilter filter(Limits());
  const FilteredForce out =
      filter.Apply(Vec3(std::nan(""), 0, 0), Vec3(INFINITY, 0, 0), 1e-3);
  EXPECT_TRUE(out.force.allFinite());
  EXPECT_EQ(out.force.norm(), 0.0);
  EXPECT_EQ(out.torque.norm(), 0.0);
  EXPECT_TRUE(out.clamped);
}

}  // namespace
}  // namespace ligature::haptics
