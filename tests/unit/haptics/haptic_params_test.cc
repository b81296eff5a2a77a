#include "server/haptics/haptic_params.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ligature::haptics {
namespace {

TEST(HapticParamsTest, DefaultsAreFilledFromTheToolMass) {
  auto p = ResolveParams(HapticParams{}, 0.1, 1e-4);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->coupling.stiffness, kDefaultStiffness);
  EXPECT_NEAR(p->coupling.damping, 2.0 * std::sqrt(kDefaultStiffness * 0.1), 1e-12);
  EXPECT_EQ(p->coupling.rotational_stiffness, 0.0);
  EXPECT_EQ(p->limits.force_limit, kDefaultForceLimit);
  EXPECT_EQ(p->limits.watchdog_timeout, kDefaultWatchdogTimeout);
  EXPECT_NEAR(p->limits.torque_rate_limit,
              kDefaultForceRateLimit * kDefaultTorqueLimit / kDefaultForceLimit, 1e-9);
}

TEST(HapticParamsTest, GivenValuesAreKept) {
  HapticParams given;
  given.coupling.stiffness = 1000;
  given.coupling.damping = 3;
  given.coupling.rotational_stiffness = 2;
  given.limits.force_limit = 4;
  given.limits.watchdog_timeout = 0.02;
  auto p = ResolveParams(given, 1.0, 0.01);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->coupling.stiffness, 1000);
  EXPECT_EQ(p->coupling.damping, 3);
  EXPECT_NEAR(p->coupling.rotational_damping, 2 * std::sqrt(2 * 0.01), 1e-12);
  EXPECT_EQ(p->limits.force_limit, 4);
  EXPECT_EQ(p->limits.watchdog_timeout, 0.02);
}

TEST(HapticParamsTest, BadFieldsAreNamed) {
  HapticParams p;
  p.coupling.stiffness = -1;
  auto r = ResolveParams(p, 1.0, 1.0);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("stiffness"), std::string::npos);
  p = {};
  p.limits.force_limit = std::nan("");
  r = ResolveParams(p, 1.0, 1.0);
  EXPECT_NE(r.status().message().find("force_limit"), std::string::npos);
  p = {};
  p.limits.watchdog_timeout = 0.0001;
  r = ResolveParams(p, 1.0, 1.0);
  EXPECT_NE(r.status().message().find("watchdog_timeout_ms"), std::string::npos);
  p = {};
  p.coupling.stiffness = 2 * kMaxStiffness;
  EXPECT_FALSE(ResolveParams(p, 1.0, 1.0).ok());
}

}  // namespace
}  // namespace ligature::haptics
