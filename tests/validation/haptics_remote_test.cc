// Remote mode against server mode along the same scripted stroke (see
// tests/support/haptic_remote_stroke.h): with models and forces delayed 20 ms each way, the
// device's force stays within 5 % of the reference force's RMS of server mode's at the
// median; with 50 ms, within 10 %.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "tests/support/haptic_remote_stroke.h"

namespace ligature::testing {
namespace {

double MedianError(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
  std::vector<double> e;
  for (size_t i = 0; i < a.size(); ++i) e.push_back((a[i] - b[i]).norm());
  std::nth_element(e.begin(), e.begin() + e.size() / 2, e.end());
  return e[e.size() / 2];
}

class HapticsRemoteTest : public ::testing::TestWithParam<std::pair<double, double>> {};

TEST_P(HapticsRemoteTest, ForceFollowsServerMode) {
  const auto [delay, share] = GetParam();
  const std::vector<Vec3> reference = StrokeForces(0.0);
  const std::vector<Vec3> remote = StrokeForces(delay);
  ASSERT_EQ(remote.size(), reference.size());
  // The stroke presses: the reference force is several newtons, not a vanishing one.
  const double rms = StrokeRms(reference);
  ASSERT_GT(rms, 1.0);
  EXPECT_LE(MedianError(remote, reference), share * rms) << "delay " << delay << " s";
  for (const Vec3& f : remote) ASSERT_TRUE(f.allFinite());
}

INSTANTIATE_TEST_SUITE_P(Delays, HapticsRemoteTest,
                         ::testing::Values(std::make_pair(0.020, 0.05),
                                           std::make_pair(0.050, 0.10)));

}  // namespace
}  // namespace ligature::testing
