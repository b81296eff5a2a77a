#pragma once
// The point of a triangle nearest to a point.

#include "server/math/types.h"

namespace ligature {

// The point of triangle (a, b, c) nearest to p, as barycentric weights (>= 0, sum 1).
Vec3 ClosestPointBarycentric(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c);

}  // namespace ligature
