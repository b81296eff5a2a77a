#pragma once
// Unit quaternions read from outside (scenes, updates) without repeated normalization.

#include <cmath>
#include <limits>

#include "server/math/types.h"

namespace ligature {

// q made a unit quaternion, left as it is when it already is one to rounding (|q|^2 within
// 8 ulps of 1). Normalizing a unit quaternion again may change its last bits; left alone,
// a quaternion read back from an export of one that was read in comes out bit for bit the
// same (a restored snapshot is built from its world's scene export and must match it).
inline Quat UnitQuat(const Quat& q) {
  constexpr double kUnitTolerance = 8 * std::numeric_limits<double>::epsilon();
  if (std::abs(q.squaredNorm() - 1.0) <= kUnitTolerance) return q;
  return q.normalized();
}

}  // namespace ligature
