#include "server/math/unit_quat.h"

#include <gtest/gtest.h>

#include <random>

namespace ligature {
namespace {

// A quaternion as scene files write it (0.7071067811865475: not unit to the last bit) is
// taken as it is, so writing it back and reading it again changes nothing.
TEST(UnitQuat, UnitToRoundingIsKept) {
  const Quat q(0.7071067811865475, 0.0, 0.0, 0.7071067811865475);
  EXPECT_EQ(UnitQuat(q).coeffs(), q.coeffs());
}

// Any quaternion: the result is unit, and reading the result again gives it bit for bit.
TEST(UnitQuat, IsIdempotent) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  for (int i = 0; i < 10000; ++i) {
    const Quat q(u(rng), u(rng), u(rng), u(rng));
    const Quat once = UnitQuat(q);
    EXPECT_NEAR(once.norm(), 1.0, 1e-15);
    EXPECT_EQ(UnitQuat(once).coeffs(), once.coeffs()) << i;
  }
}

// Far from unit: normalized.
TEST(UnitQuat, NormalizesOthers) {
  const Quat q(2.0, 0.0, 0.0, 0.0);
  EXPECT_EQ(UnitQuat(q).coeffs(), Quat::Identity().coeffs());
}

}  // namespace
}  // namespace ligature
